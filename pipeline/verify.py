"""Declarative verifiers: an answer check plus an expected per-table state diff.

A verifier never runs code from a task: it compares the agent's answer with a stored
expectation and the session database with the initial state, through a read-only
view (``PRAGMA query_only``). The state check is *exact on the watched tables*: the
expected rows must have changed as the reference solution changed them, and nothing
else in those tables may have changed, so an agent can neither skip the work nor do it
twice. Every check reports what it observed and what it expected.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from pipeline.schema import Schema

AnswerKind = Literal["number", "text", "set", "refuse"]


class AnswerCheck(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: AnswerKind
    expected: Any
    tolerance: float = 0.005


class RowChange(BaseModel):
    """One expected change: an insert (matched by values), an update or delete (by id)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str
    op: Literal["insert", "update", "delete"]
    id: int | None = None
    values: dict[str, Any] = {}


class Verifier(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    answer: AnswerCheck | None = None
    changes: tuple[RowChange, ...] = ()
    watch: tuple[str, ...] = ()
    """Tables in which nothing but ``changes`` may differ from the initial state."""


class Check(BaseModel):
    name: str
    passed: bool
    expected: Any = None
    observed: Any = None


class Verdict(BaseModel):
    reward: float
    checks: list[Check]

    @property
    def passed(self) -> bool:
        return self.reward >= 1.0


# -- answers --------------------------------------------------------------------------------


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip().replace(",", "").removeprefix("$").rstrip(".")
        try:
            return float(text)
        except ValueError:
            return None
    return None


def normalise_text(value: Any) -> str:
    return " ".join(str(value).strip().strip(".").strip("\"'").split()).casefold()


def _as_set(value: Any) -> set[str] | None:
    if isinstance(value, (list, tuple)):
        return {normalise_text(v) for v in value}
    if isinstance(value, str):
        return {normalise_text(v) for v in value.replace(";", ",").split(",") if v.strip()}
    return None


REFUSAL_MARKERS = ("cannot", "can't", "can not", "unable", "not possible", "impossible", "does not exist",
                   "doesn't exist", "no such", "not found", "not allowed")


def check_answer(check: AnswerCheck, answer: Any) -> Check:
    """Compare one answer; a single value must be given, not a list of candidates."""
    ok = False
    if check.kind == "number":
        got = _as_number(answer)
        want = float(check.expected)
        ok = got is not None and math.isclose(got, want, rel_tol=1e-9, abs_tol=check.tolerance)
    elif check.kind == "text":
        ok = isinstance(answer, (str, int, float)) and not isinstance(answer, bool) and (
            normalise_text(answer) == normalise_text(check.expected)
        )
    elif check.kind == "set":
        got_set = _as_set(answer)
        ok = got_set is not None and got_set == {normalise_text(v) for v in check.expected}
    elif check.kind == "refuse":
        ok = isinstance(answer, str) and any(m in answer.casefold() for m in REFUSAL_MARKERS)
    return Check(name="answer", passed=ok, expected=check.expected, observed=answer)


# -- state ----------------------------------------------------------------------------------


def _q(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


@contextmanager
def read_only(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    conn.execute("PRAGMA query_only = ON")
    try:
        yield conn
    finally:
        conn.execute("PRAGMA query_only = OFF")


def table_diff(conn: sqlite3.Connection, table: str, initial: str = "init") -> dict[str, Any]:
    """Rows of ``table`` inserted, updated (new values) and deleted relative to ``initial``."""
    t, i = _q(table), f"{_q(initial)}.{_q(table)}"
    cur = conn.execute(f"SELECT * FROM main.{t} WHERE id NOT IN (SELECT id FROM {i}) ORDER BY id")
    names = [d[0] for d in cur.description]
    inserted = [dict(zip(names, r)) for r in cur.fetchall()]
    deleted = [r[0] for r in conn.execute(f"SELECT id FROM {i} WHERE id NOT IN (SELECT id FROM main.{t}) ORDER BY id")]
    cur = conn.execute(
        f"SELECT * FROM (SELECT * FROM main.{t} EXCEPT SELECT * FROM {i}) WHERE id IN (SELECT id FROM {i}) ORDER BY id"
    )
    updated = [dict(zip(names, r)) for r in cur.fetchall()]
    return {"inserted": inserted, "updated": updated, "deleted": deleted}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-6)
    return a == b


def _matches(row: dict[str, Any], values: dict[str, Any]) -> bool:
    return all(_same(row.get(k), v) for k, v in values.items())


def check_state(conn: sqlite3.Connection, verifier: Verifier, initial: str = "init") -> list[Check]:
    checks: list[Check] = []
    for table in verifier.watch:
        diff = table_diff(conn, table, initial)
        expected = [c for c in verifier.changes if c.table == table]
        for change in expected:
            if change.op == "insert":
                hits = [r for r in diff["inserted"] if _matches(r, change.values)]
                ok = len(hits) == 1
                observed: Any = hits or diff["inserted"]
            elif change.op == "update":
                hits = [r for r in diff["updated"] if r["id"] == change.id]
                ok = len(hits) == 1 and _matches(hits[0], change.values)
                observed = hits[0] if hits else None
            else:
                ok = change.id in diff["deleted"]
                observed = diff["deleted"]
            checks.append(Check(name=f"{change.op} {table}" + (f" id={change.id}" if change.id else ""),
                                passed=ok, expected=change.values or change.id, observed=observed))
        want = {op: sum(1 for c in expected if c.op == op) for op in ("insert", "update", "delete")}
        got = {"insert": len(diff["inserted"]), "update": len(diff["updated"]), "delete": len(diff["deleted"])}
        checks.append(Check(name=f"nothing else changed in {table}", passed=got == want, expected=want, observed=got))
    return checks


def verify(conn: sqlite3.Connection, verifier: Verifier, answer: Any, initial: str = "init") -> Verdict:
    """Outcome reward 1.0 only when every check passes; the breakdown explains a 0.0."""
    with read_only(conn):
        checks = check_state(conn, verifier, initial)
    if verifier.answer is not None:
        checks.insert(0, check_answer(verifier.answer, answer))
    reward = 1.0 if checks and all(c.passed for c in checks) else 0.0
    return Verdict(reward=reward, checks=checks)


def schema_tables(schema: Schema) -> tuple[str, ...]:
    return tuple(t.name for t in schema.tables)
