"""Replay and proof: where a task's expected diff comes from, and why it is trusted.

The expected state diff is never written by hand: it is what replaying the reference
solution from the initial state changed, with each row named by a natural key (and an
inserted row with every column it holds, empty ones included). A task ships only if,
each replay starting from the initial state (one session, every replay rolled back:
:mod:`pipeline.tasks.replay`):

* every grounding (entity named by the wording) matches its row count;
* the reference solution and answer score 1.0;
* every exploit in the library (:mod:`pipeline.tasks.exploits`: doing nothing, blind or
  wrong-reason refusals, false success claims, constant, echoed, stuffed, perturbed or
  permuted answers, collateral writes to every table, junk columns, repeated, misplaced
  or missing writes) scores 0.0.

A candidate that fails is dropped with the reason counted (``exploit:<name>`` for the
first exploit that beat it).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from pipeline.runtime.diff import Touched, table_diff
from pipeline.runtime.session import Session
from pipeline.runtime.task import Task, ToolCall
from pipeline.runtime.verify import RowChange
from pipeline.tasks.exploits import Attempt, LibraryRun, run_library
from pipeline.tasks.replay import Replayer
from pipeline.tools.executor import Executor, ToolError
from pipeline.world.schema import Schema, Table
from pipeline.world.sqlnames import quote_ident


def replay(session: Session, solution: Iterable[ToolCall], tolerate: bool = False) -> None:
    for call in solution:
        try:
            session.call(call.tool, dict(call.arguments))
        except ToolError:
            if not tolerate:
                raise


def fingerprint(conn: sqlite3.Connection, schema: Schema) -> tuple[Any, ...]:
    return tuple(
        tuple(conn.execute(f"SELECT * FROM {quote_ident(t.name)} ORDER BY id").fetchall()) for t in schema.tables
    )


def _unique_columns(table: Table) -> list[str]:
    cols = [c.name for c in table.columns if c.unique and not c.primary_key]
    return sorted(cols, key=lambda n: n != table.label)


def _existing_key(reference: sqlite3.Connection, table: Table, row: dict[str, Any]) -> dict[str, Any]:
    """A unique column, else an unambiguous label, else (only then) the id."""
    for name in _unique_columns(table):
        if row.get(name) is not None:
            return {name: row[name]}
    label = row.get(table.label)
    if label is not None:
        sql = (
            f"SELECT count(*) FROM (SELECT 1 FROM {quote_ident(table.name)} "
            f"WHERE {quote_ident(table.label)} IS ? LIMIT 2)"
        )
        if reference.execute(sql, (label,)).fetchone()[0] == 1:
            return {table.label: label}
    return {"id": row["id"]}


def _insert_key(table: Table, row: dict[str, Any], inserted: list[dict[str, Any]]) -> dict[str, Any]:
    for name in [*_unique_columns(table), table.label]:
        value = row.get(name)
        if value is not None and sum(1 for r in inserted if r.get(name) == value) == 1:
            return {name: value}
    return {k: v for k, v in row.items() if k != "id" and v is not None}


def expected_changes(
    conn: sqlite3.Connection, touched: Touched, schema: Schema, reference: sqlite3.Connection
) -> tuple[tuple[RowChange, ...], int]:
    """Every row the replayed solution changed, keyed naturally, and how many rows it wrote
    without changing them (a reference that does that cannot be told from collateral writes).

    ``touched`` is the replay's write log and ``reference`` a copy of the initial state: only
    the rows the log names are compared, so this costs what the solution wrote, not the tables.
    """
    changes: list[RowChange] = []
    idle = 0
    for table in schema.tables:
        if not touched.get(table.name):
            continue
        diff = table_diff(conn, table.name, reference, touched)
        idle += len(diff["written"])
        for r in diff["inserted"]:
            values = {k: v for k, v in r.items() if k != "id"}
            changes.append(
                RowChange(table=table.name, op="insert", key=_insert_key(table, r, diff["inserted"]), values=values)
            )
        for before, after in diff["updated"]:
            values = {k: v for k, v in after.items() if before.get(k) != v}
            changes.append(
                RowChange(table=table.name, op="update", key=_existing_key(reference, table, before), values=values)
            )
        for r in diff["deleted"]:
            changes.append(RowChange(table=table.name, op="delete", key=_existing_key(reference, table, r)))
    return tuple(changes), idle


def replay_key(solution: Iterable[ToolCall]) -> str:
    """The replay key of a solution replayed as an agent's calls (shared with exploit attempts)."""
    return Attempt(calls=tuple(solution)).key()


def _grounding_holds(task: Task, replayer: Replayer) -> bool:
    replayer.enter(replay_key(()), ())
    try:
        return all(
            replayer.session.call(g.tool, {**g.arguments, "limit": 1})["total"] == g.total for g in task.grounding
        )
    except ToolError:
        return False
    finally:
        replayer.reset()


def prove(
    task: Task,
    initial: bytes,
    executor: Executor,
    scratch: sqlite3.Connection | None = None,
    replayer: Replayer | None = None,
) -> tuple[str | None, LibraryRun | None]:
    """(None, the library run) when every probe holds; otherwise (the reason the task must not ship, run).

    A ``replayer`` over ``initial`` (one per build) spares a session per task; every replay on it
    is rolled back, so each probe still starts from the initial state.
    """
    rep = Replayer(initial, executor) if replayer is None else replayer
    try:
        if not _grounding_holds(task, rep):
            return "grounding_mismatch", None
        run = run_library(task, initial, rep.executor, stop_at_first=True, scratch=scratch, replayer=rep)
    finally:
        if replayer is None:
            rep.close()
    if run.gold != 1.0:
        return "gold_below_1", run
    if run.passed:
        return f"exploit:{run.passed[0]}", run
    return None, run
