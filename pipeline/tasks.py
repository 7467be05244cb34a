"""Step 4: tasks with a reference solution and a declarative verifier, each one proven.

A family proposes a candidate (instruction, knobs, reference tool calls, answer check)
from the populated state. The expected state diff is not written by hand: it is what
replaying the reference solution on a fresh copy actually changed. A candidate ships
only if the replay scores 1.0 and doing nothing scores 0.0; otherwise it is dropped and
the reason counted.
"""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from pipeline.populate import ISO, column_seed, generate_column
from pipeline.runtime.executor import Executor, ToolError
from pipeline.runtime.session import Session, open_copy
from pipeline.schema import Column, Schema, Table
from pipeline.verify import AnswerCheck, RowChange, Verifier, normalise_text, table_diff
from pipeline.tools import Toolset


class ToolCall(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str
    arguments: dict[str, Any]


class Task(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    family: str
    level: int
    knobs: dict[str, Any]
    instruction: str
    solution: tuple[ToolCall, ...]
    answer: Any = None
    verifier: Verifier


@dataclass
class Candidate:
    family: str
    level: int
    knobs: dict[str, Any]
    instruction: str
    solution: list[ToolCall]
    answer: Any = None
    answer_check: AnswerCheck | None = None
    table: str = ""


@dataclass
class TaskSet:
    tasks: list[Task]
    dropped: Counter[str] = field(default_factory=Counter)
    candidates: int = 0


class Context:
    """Read access to the initial state for families choosing their subjects."""

    def __init__(self, schema: Schema, toolset: Toolset, conn: sqlite3.Connection, clock: str, seed: int) -> None:
        self.schema, self.toolset, self.conn, self.clock, self.seed = schema, toolset, conn, clock, seed

    def rows(self, table: Table, where: str = "", params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        cur = self.conn.execute(f'SELECT * FROM "{table.name}" {where} ORDER BY id', params)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    def uniquely_labelled(self, table: Table) -> list[dict[str, Any]]:
        """Rows a user can name unambiguously: their label occurs once in the table."""
        return self.rows(
            table,
            f'WHERE "{table.label}" IN (SELECT "{table.label}" FROM "{table.name}" '
            f'GROUP BY "{table.label}" HAVING count(*) = 1)',
        )


def _words(name: str) -> str:
    return name.replace("_", " ")


def _attributes(table: Table) -> list[Column]:
    return [c for c in table.columns
            if not c.primary_key and not c.references and c.name != table.label and c.sql_type != "BOOLEAN"]


def _answer_check(column: Column, value: Any) -> AnswerCheck:
    if column.sql_type in ("INTEGER", "REAL"):
        return AnswerCheck(kind="number", expected=value)
    return AnswerCheck(kind="text", expected=value)


def _show(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, float) else str(value)


# -- families -------------------------------------------------------------------------------


def lookup(ctx: Context, rng: random.Random, level: int) -> Candidate | None:
    """Read one attribute; level 0 gives the id, 1 the name, 2 needs one foreign-key hop."""
    tables = [t for t in ctx.schema.tables if _attributes(t)]
    if level == 2:
        tables = [t for t in ctx.schema.tables if t.foreign_keys]
    table = rng.choice(tables)
    rows = ctx.uniquely_labelled(table)
    if not rows:
        return None
    row = rng.choice(rows)
    label = f"{_words(table.entity)} {row[table.label]}"
    if level == 2:
        fk = rng.choice(list(table.foreign_keys))
        parent = ctx.schema.table(str(fk.references))
        attrs = [c for c in _attributes(parent) + [parent.column(parent.label)] if c.sql_type != "BOOLEAN"]
        col = rng.choice(attrs)
        target = ctx.rows(parent, "WHERE id = ?", (row[fk.name],))[0]
        value = target[col.name]
        instruction = (f"What is the {_words(col.name)} of the {_words(parent.entity)} linked (as {_words(fk.name.removesuffix('_id'))}) "
                       f"to the {label}?")
        solution = [ToolCall(tool=f"list_{table.name}", arguments={table.label: row[table.label]}),
                    ToolCall(tool=f"get_{parent.entity}", arguments={"id": row[fk.name]})]
        knobs = {"ids_given": False, "hops": 1, "required_calls": 2}
    else:
        col = rng.choice(_attributes(table))
        value = row[col.name]
        if level == 0:
            instruction = f"What is the {_words(col.name)} of the {_words(table.entity)} with id {row['id']}?"
            solution = [ToolCall(tool=f"get_{table.entity}", arguments={"id": row["id"]})]
        else:
            instruction = f"What is the {_words(col.name)} of the {label}?"
            solution = [ToolCall(tool=f"list_{table.name}", arguments={table.label: row[table.label]})]
        knobs = {"ids_given": level == 0, "hops": 0, "required_calls": 1}
    if value is None:
        return None
    return Candidate("lookup", level, knobs, instruction + " Answer with the value only.", solution,
                     answer=value, answer_check=_answer_check(col, value), table=table.name)


def count(ctx: Context, rng: random.Random, level: int) -> Candidate | None:
    """Count rows under filters; level 1 adds a numeric range to a categorical filter."""
    tables = [t for t in ctx.schema.tables if any(c.values for c in t.columns)]
    if not tables:
        return None
    table = rng.choice(tables)
    cat = rng.choice([c for c in table.columns if c.values])
    value = rng.choice(list(cat.values or ()))
    args: dict[str, Any] = {cat.name: value, "limit": 1}
    where, params = f'WHERE "{cat.name}" = ?', [value]
    text = f"How many {_words(table.name)} have {_words(cat.name)} '{value}'"
    nums = [c for c in table.columns if c.sql_type in ("INTEGER", "REAL") and not c.references and not c.primary_key]
    if level >= 1 and nums:
        num = rng.choice(nums)
        values = sorted(r[num.name] for r in ctx.rows(table) if r[num.name] is not None)
        if not values:
            return None
        bound = values[len(values) // 2]
        args[f"{num.name}_min"] = bound
        where += f' AND "{num.name}" >= ?'
        params.append(bound)
        text += f" and a {_words(num.name)} of at least {_show(bound)}"
    total = ctx.conn.execute(f'SELECT count(*) FROM "{table.name}" {where}', params).fetchone()[0]
    if total == 0:
        return None
    knobs = {"filters": len(params), "required_calls": 1}
    return Candidate("count", level, knobs, text + "? Answer with a number.",
                     [ToolCall(tool=f"list_{table.name}", arguments=args)],
                     answer=total, answer_check=AnswerCheck(kind="number", expected=total), table=table.name)


def _fresh_value(ctx: Context, table: Table, column: Column, salt: int, taken: set[Any]) -> Any:
    now = datetime.strptime(ctx.clock, ISO)
    for attempt in range(20):
        seed = column_seed(ctx.seed, table.name, f"task/{salt}/{attempt}")
        values = generate_column(table, column, 8, seed, now, {}, {})
        for v in values:
            if v is not None and v not in taken:
                return v
    return None


def create(ctx: Context, rng: random.Random, level: int) -> Candidate | None:
    """Insert a record; level 1 must first find the parent it belongs to by name."""
    tables = [t for t in ctx.schema.tables if bool(t.foreign_keys) == (level >= 1)]
    if not tables:
        return None
    table = rng.choice(tables)
    args: dict[str, Any] = {}
    parts: list[str] = []
    solution: list[ToolCall] = []
    for col in table.columns:
        if col.primary_key or col.semantic == "status" or col.nullable:
            continue
        if col.references:
            parent = ctx.schema.table(col.references)
            parents = ctx.uniquely_labelled(parent)
            if not parents:
                return None
            prow = rng.choice(parents)
            args[col.name] = prow["id"]
            solution.append(ToolCall(tool=f"list_{parent.name}", arguments={parent.label: prow[parent.label]}))
            parts.append(f"{_words(parent.entity)} {prow[parent.label]}")
            continue
        taken = {r[col.name] for r in ctx.rows(table)} if col.unique or col.name == table.label else set()
        value = _fresh_value(ctx, table, col, rng.randrange(10**9), taken)
        if value is None:
            return None
        args[col.name] = bool(value) if col.sql_type == "BOOLEAN" else value
        shown = ("yes" if value else "no") if col.sql_type == "BOOLEAN" else _show(value)
        parts.append(f"{_words(col.name)} {shown}")
    solution.append(ToolCall(tool=f"create_{table.entity}", arguments=args))
    instruction = f"Create a new {_words(table.entity)} with " + ", ".join(parts) + "."
    knobs = {"writes": 1, "ids_given": False, "required_calls": len(solution)}
    return Candidate("create", level, knobs, instruction, solution, table=table.name)


def _new_value(ctx: Context, table: Table, col: Column, current: Any, rng: random.Random) -> Any:
    if col.values:
        options = [v for v in col.values if v != current]
        return rng.choice(options) if options else None
    taken = {current} | ({r[col.name] for r in ctx.rows(table)} if col.unique else set())
    return _fresh_value(ctx, table, col, rng.randrange(10**9), taken)


def update(ctx: Context, rng: random.Random, level: int) -> Candidate | None:
    """Change a record; 0 gives the id, 1 the name, 2 runs a guarded business operation."""
    if level == 2:
        ops = [t for t in ctx.toolset.tools if t.kind == "transition"]
        if not ops:
            return None
        op = rng.choice(ops)
        table = ctx.schema.table(op.table)
        status = str(op.status_column)
        marks = ", ".join("?" for _ in op.allowed_from)
        rows = [r for r in ctx.uniquely_labelled(table) if r[status] in op.allowed_from] if marks else []
        if not rows:
            return None
        row = rng.choice(rows)
        instruction = (f"{_words(op.name).capitalize()} for the {_words(table.entity)} {row[table.label]}: "
                       f"its {_words(status)} must become '{op.to}'.")
        solution = [ToolCall(tool=f"list_{table.name}", arguments={table.label: row[table.label]}),
                    ToolCall(tool=op.name, arguments={"id": row["id"]})]
        return Candidate("update", level, {"writes": 1, "ids_given": False, "operation": True, "required_calls": 2},
                         instruction, solution, table=table.name)
    table = rng.choice([t for t in ctx.schema.tables if _attributes(t)])
    rows = ctx.uniquely_labelled(table) if level == 1 else ctx.rows(table)
    if not rows:
        return None
    row = rng.choice(rows)
    col = rng.choice([c for c in _attributes(table) if c.semantic != "status"] or [None]) if _attributes(table) else None
    if col is None:
        return None
    value = _new_value(ctx, table, col, row[col.name], rng)
    if value is None:
        return None
    if level == 0:
        subject = f"the {_words(table.entity)} with id {row['id']}"
        solution = [ToolCall(tool=f"update_{table.entity}", arguments={"id": row["id"], col.name: value})]
    else:
        subject = f"the {_words(table.entity)} {row[table.label]}"
        solution = [ToolCall(tool=f"list_{table.name}", arguments={table.label: row[table.label]}),
                    ToolCall(tool=f"update_{table.entity}", arguments={"id": row["id"], col.name: value})]
    instruction = f"Set the {_words(col.name)} of {subject} to {_show(value)}."
    knobs = {"writes": 1, "ids_given": level == 0, "operation": False, "required_calls": len(solution)}
    return Candidate("update", level, knobs, instruction, solution, table=table.name)


Family = Callable[[Context, random.Random, int], "Candidate | None"]
FAMILIES: dict[str, tuple[Family, tuple[int, ...]]] = {
    "lookup": (lookup, (0, 1, 2)),
    "count": (count, (0, 1)),
    "create": (create, (0, 1)),
    "update": (update, (0, 1, 2)),
}


# -- proof ----------------------------------------------------------------------------------


def _replay(session: Session, solution: list[ToolCall] | tuple[ToolCall, ...]) -> None:
    for call in solution:
        session.call(call.tool, dict(call.arguments))


def _expected_changes(session: Session, table: str, initial: bytes) -> tuple[RowChange, ...]:
    """The diff the reference solution produced: inserted rows by value, updates by id."""
    conn = session.conn
    conn.execute("ATTACH DATABASE ':memory:' AS init")
    try:
        conn.deserialize(initial, name="init")
        diff = table_diff(conn, table, "init")
        changes = [RowChange(table=table, op="insert", values={k: v for k, v in r.items() if k != "id"})
                   for r in diff["inserted"]]
        for r in diff["updated"]:
            before = conn.execute(f'SELECT * FROM init."{table}" WHERE id = ?', (r["id"],))
            names = [d[0] for d in before.description]
            old = dict(zip(names, before.fetchone()))
            changes.append(RowChange(table=table, op="update", id=r["id"],
                                     values={k: v for k, v in r.items() if old.get(k) != v}))
        changes += [RowChange(table=table, op="delete", id=i) for i in diff["deleted"]]
        return tuple(changes)
    finally:
        conn.execute("DETACH DATABASE init")


def prove(task: Task, initial: bytes, executor: Executor) -> str | None:
    """None when gold scores 1.0 and doing nothing scores 0.0; else the drop reason."""
    gold = Session(initial, executor)
    try:
        _replay(gold, task.solution)
        if gold.verify(task.verifier, task.answer).reward != 1.0:
            return "gold_below_1"
    except ToolError as exc:
        return f"reference_failed:{exc.code}"
    finally:
        gold.close()
    null = Session(initial, executor)
    try:
        if null.verify(task.verifier, None).reward != 0.0:
            return "null_above_0"
    finally:
        null.close()
    return None


def _finalise(c: Candidate, task_id: str, initial: bytes, executor: Executor) -> Task | str:
    session = Session(initial, executor)
    try:
        _replay(session, c.solution)
        changes = _expected_changes(session, c.table, initial)
    except ToolError as exc:
        return f"reference_failed:{exc.code}"
    finally:
        session.close()
    if c.answer_check is None and not changes:
        return "no_effect"
    verifier = Verifier(answer=c.answer_check, changes=changes, watch=(c.table,))
    return Task(id=task_id, family=c.family, level=c.level, knobs=c.knobs, instruction=c.instruction,
                solution=tuple(c.solution), answer=c.answer, verifier=verifier)


def generate_tasks(
    schema: Schema, toolset: Toolset, initial: bytes, executor: Executor, seed: int, clock: str,
    per_family: int = 6,
) -> TaskSet:
    """Propose ``per_family`` candidates per family across its levels; keep the proven ones."""
    conn = open_copy(initial)
    ctx = Context(schema, toolset, conn, clock, seed)
    out = TaskSet(tasks=[])
    seen: set[str] = set()
    try:
        for family, (make, levels) in FAMILIES.items():
            for i in range(per_family):
                level = levels[i % len(levels)]
                rng = random.Random(column_seed(seed, "task", f"{family}/{i}"))
                out.candidates += 1
                candidate = make(ctx, rng, level)
                if candidate is None:
                    out.dropped["no_subject"] += 1
                    continue
                key = normalise_text(candidate.instruction)
                if key in seen:
                    out.dropped["duplicate_instruction"] += 1
                    continue
                result = _finalise(candidate, f"{family}-{i:03d}", initial, executor)
                reason = result if isinstance(result, str) else prove(result, initial, executor)
                if reason is not None or isinstance(result, str):
                    out.dropped[str(reason)] += 1
                    continue
                seen.add(key)
                out.tasks.append(result)
    finally:
        conn.close()
    return out
