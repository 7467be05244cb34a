"""Replay and proof: where a task's expected diff comes from, and why it is trusted.

The expected state diff is never written by hand: it is what replaying the reference
solution on a fresh copy changed, with each row named by a natural key. A task ships
only if its verifier passes every probe below on fresh copies of the initial state:

* gold: the reference solution and answer score 1.0;
* null: no calls and no answer score 0.0;
* blanket refusal: refusing without doing anything scores 0.0 (unless refusing is right);
* a wrong answer (perturbed value) and answer stuffing (many candidate values) score 0.0;
* doing the writes twice scores 0.0 whenever the repeat changes the state (a refused or
  idempotent repeat leaves the very same state as doing it once, and an outcome check
  cannot and should not tell those apart);
* the same write aimed at the wrong row (or a create with a wrong value) scores 0.0;
* every grounding (entity named by the wording) matches its row count.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from pipeline.runtime.executor import Executor, ToolError
from pipeline.runtime.session import Session
from pipeline.schema import Schema, Table
from pipeline.taskgen.model import Task, ToolCall
from pipeline.verify import RowChange, table_diff

REFUSAL = "I cannot do that: the request cannot be carried out."
WRONG_ROW_PROBES = 2


def replay(session: Session, solution: Iterable[ToolCall], tolerate: bool = False) -> None:
    for call in solution:
        try:
            session.call(call.tool, dict(call.arguments))
        except ToolError:
            if not tolerate:
                raise


def fingerprint(conn: sqlite3.Connection, schema: Schema) -> tuple[Any, ...]:
    return tuple(tuple(conn.execute(f'SELECT * FROM "{t.name}" ORDER BY id').fetchall()) for t in schema.tables)


def _unique_columns(table: Table) -> list[str]:
    cols = [c.name for c in table.columns if c.unique and not c.primary_key]
    return sorted(cols, key=lambda n: n != table.label)


def _existing_key(conn: sqlite3.Connection, table: Table, row: dict[str, Any]) -> dict[str, Any]:
    """A unique column, else an unambiguous label, else (only then) the id."""
    for name in _unique_columns(table):
        if row.get(name) is not None:
            return {name: row[name]}
    label = row.get(table.label)
    if label is not None:
        n = conn.execute(f'SELECT count(*) FROM init."{table.name}" WHERE "{table.label}" IS ?', (label,)).fetchone()[0]
        if n == 1:
            return {table.label: label}
    return {"id": row["id"]}


def _insert_key(table: Table, row: dict[str, Any], inserted: list[dict[str, Any]]) -> dict[str, Any]:
    for name in [*_unique_columns(table), table.label]:
        value = row.get(name)
        if value is not None and sum(1 for r in inserted if r.get(name) == value) == 1:
            return {name: value}
    return {k: v for k, v in row.items() if k != "id" and v is not None}


def expected_changes(session: Session, schema: Schema, initial: bytes) -> tuple[RowChange, ...]:
    """Every row the replayed solution inserted, updated or deleted, keyed naturally."""
    conn = session.conn
    conn.execute("ATTACH DATABASE ':memory:' AS init")
    try:
        conn.deserialize(initial, name="init")
        changes: list[RowChange] = []
        for table in schema.tables:
            diff = table_diff(conn, table.name, "init")
            for r in diff["inserted"]:
                values = {k: v for k, v in r.items() if k != "id" and v is not None}
                changes.append(RowChange(table=table.name, op="insert", key=_insert_key(table, r, diff["inserted"]),
                                         values=values))
            for before, after in diff["updated"]:
                values = {k: v for k, v in after.items() if before.get(k) != v}
                changes.append(RowChange(table=table.name, op="update", key=_existing_key(conn, table, before),
                                         values=values))
            for r in diff["deleted"]:
                changes.append(RowChange(table=table.name, op="delete", key=_existing_key(conn, table, r)))
        return tuple(changes)
    finally:
        conn.execute("DETACH DATABASE init")


# -- perturbations -------------------------------------------------------------------------


def perturbed_answers(task: Task) -> list[Any]:
    """Wrong answers that must not pass: a nearby value, a subset, a superset, a non-refusal."""
    check = task.verifier.answer
    if check is None:
        return []
    if check.kind == "refuse":
        return ["Done.", None]
    if check.kind == "number":
        e = float(check.expected)
        return [e + max(1.0, abs(e) * 0.1, check.tolerance * 10), e - max(1.0, abs(e) * 0.1, check.tolerance * 10)]
    if check.kind == "set":
        values = list(check.expected)
        out: list[Any] = [values + ["an extra value"]]
        if len(values) > 1:
            out.append(values[:-1])
        return out
    return [f"{check.expected} 2", "unknown"]


def stuffed_answers(task: Task) -> list[Any]:
    """Answer stuffing: many candidate values at once, as a list and as one string."""
    check = task.verifier.answer
    if check is None:
        return []
    if check.kind == "refuse":
        return [[REFUSAL, "Done."]]
    if check.kind == "number":
        e = check.expected
        many = [e, e + 1, e - 1, e + 2, e * 2]
    elif check.kind == "set":
        many = [*check.expected, "alpha", "beta", "gamma", "delta"]
    else:
        many = [check.expected, "alpha", "beta", "gamma", "delta"]
    return [many, ", ".join(str(v) for v in many)]


def wrong_row_solutions(task: Task, executor: Executor) -> list[list[ToolCall]]:
    """The solution with its last write aimed at a neighbouring row, or with a value altered."""
    writes = [i for i, c in enumerate(task.solution) if executor.spec(c.tool).mode == "write"]
    if not writes:
        return []
    i = writes[-1]
    call = task.solution[i]
    args = dict(call.arguments)
    variants: list[dict[str, Any]] = []
    if "id" in args and isinstance(args["id"], int):
        for step in (1, -1, 2, -2, 3, -3, 5, 8):
            if args["id"] + step >= 1:
                variants.append({**args, "id": args["id"] + step})
    else:
        spec = executor.spec(call.tool)
        table = executor.schema.table(spec.table)
        refs = {c.name for c in table.foreign_keys}
        for name, value in args.items():
            if name in refs or isinstance(value, bool):
                continue
            if isinstance(value, (int, float)):
                variants.append({**args, name: value + 1})
            elif isinstance(value, str) and table.column(name).semantic not in ("timestamp", "date"):
                variants.append({**args, name: value + " B"})
    solution = list(task.solution)
    return [solution[:i] + [ToolCall(tool=call.tool, arguments=v)] + solution[i + 1:] for v in variants]


# -- the proof --------------------------------------------------------------------------------


def _grounding_holds(task: Task, initial: bytes, executor: Executor) -> bool:
    session = Session(initial, executor)
    try:
        return all(session.call(g.tool, {**g.arguments, "limit": 1})["total"] == g.total for g in task.grounding)
    except ToolError:
        return False
    finally:
        session.close()


def _score(initial: bytes, executor: Executor, task: Task, solution: Iterable[ToolCall], answers: list[Any],
           tolerate: bool = False, state: bool = True) -> tuple[list[float], tuple[Any, ...]]:
    """Rewards for ``answers`` after replaying ``solution``, and (if asked) the state reached."""
    session = Session(initial, executor)
    try:
        replay(session, solution, tolerate)
        return ([session.verify(task.verifier, a).reward for a in answers],
                fingerprint(session.conn, executor.schema) if state else ())
    finally:
        session.close()


def prove(task: Task, initial: bytes, executor: Executor) -> str | None:
    """None when every probe holds; otherwise the reason the task must not ship."""
    if not _grounding_holds(task, initial, executor):
        return "grounding_mismatch"
    wrong = perturbed_answers(task)
    stuffed = stuffed_answers(task)
    try:
        scores, gold_state = _score(initial, executor, task, task.solution, [task.answer, *wrong, *stuffed],
                                    state=bool(task.verifier.changes))
    except ToolError as exc:
        return f"reference_failed:{exc.code}"
    if scores[0] != 1.0:
        return "gold_below_1"
    if any(s >= 1.0 for s in scores[1:1 + len(wrong)]):
        return "perturbed_answer_passes"
    if any(s > 0.0 for s in scores[1 + len(wrong):]):
        return "stuffed_answer_passes"
    refuses = task.verifier.answer is not None and task.verifier.answer.kind == "refuse"
    null = _score(initial, executor, task, (), [None, REFUSAL], state=False)[0]
    if null[0] != 0.0:
        return "null_above_0"
    if not refuses and null[1] != 0.0:
        return "blanket_refusal_passes"
    if not task.verifier.changes:
        return None
    twice, state = _score(initial, executor, task, [*task.solution, *task.solution], [task.answer], tolerate=True)
    if state != gold_state and twice[0] != 0.0:
        return "double_write_passes"
    probed = 0
    for solution in wrong_row_solutions(task, executor):
        try:
            score, state = _score(initial, executor, task, solution, [task.answer])
        except ToolError:
            continue
        if state == gold_state:
            continue
        if score[0] != 0.0:
            return "wrong_row_passes"
        probed += 1
        if probed == WRONG_ROW_PROBES:
            break
    return None
