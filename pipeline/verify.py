"""Declarative verifiers: an answer check plus an expected per-table state diff.

A verifier never runs code from a task. It compares the agent's answer with a stored
expectation, and the session database with the initial state through a read-only view
(``PRAGMA query_only``). The state check is *exact on the watched tables* (the tables
the task could touch): every expected row change must be there, rows are found by their
natural key (a unique column or an unambiguous label, never an auto id for inserted
rows), only the listed columns are compared, and nothing else in those tables may have
changed. So an agent can neither skip the work, do it twice, nor do it to the wrong
row, while writes to tables the task has nothing to do with are not its concern.

Every check reports what it observed next to what it expected, so a 0.0 explains itself.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

AnswerKind = Literal["number", "text", "set", "refuse"]
MAX_REPORTED = 10
"""Unexpected rows listed in a failed 'nothing else changed' check (the count is exact)."""


class AnswerCheck(BaseModel):
    """How the final answer is judged: one number, one string, a set, or a refusal."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: AnswerKind
    expected: Any = None
    tolerance: float = 0.0
    """Absolute tolerance of a ``number`` check (0 for counts, 0.01 for amounts)."""


class RowChange(BaseModel):
    """One expected row change, located by a natural key.

    ``key`` names the row: for ``update``/``delete`` it is resolved in the initial
    state, for ``insert`` among the rows the episode added. ``values`` are the listed
    columns the row must hold afterwards; other columns of an updated row must keep
    their initial value.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str
    op: Literal["insert", "update", "delete"]
    key: dict[str, Any]
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

_NUMBER = re.compile(r"[-+]?\$?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-+]?\$?\.\d+")
"""One number as people write it: 17, -3.5, $1,204.50 (a comma only as a thousands separator)."""
REFUSAL_MARKERS = ("cannot", "can't", "can not", "unable", "not possible", "impossible", "does not exist",
                   "doesn't exist", "no such", "not found", "not allowed", "isn't allowed", "is not allowed",
                   "won't be able", "refuse", "there is no", "there are no")


def _as_number(value: Any) -> float | None:
    """A number, or a string holding exactly one number ("17", "$1,204.50", "It is 17.")."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, list) and len(value) == 1:
        return _as_number(value[0])
    if isinstance(value, str):
        found = _NUMBER.findall(value)
        return float(found[0].replace(",", "").replace("$", "")) if len(found) == 1 else None
    return None


def normalise_text(value: Any) -> str:
    """Case, surrounding quotes/full stops, underscores and runs of spaces do not matter."""
    text = str(value).strip().strip(".").strip("\"'`").replace("_", " ")
    return " ".join(text.split()).casefold()


def _as_set(value: Any) -> set[str] | None:
    if isinstance(value, (list, tuple)):
        if not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value):
            return None
        return {normalise_text(v) for v in value}
    if isinstance(value, str):
        return {normalise_text(v) for v in re.split(r"[,;\n]", value) if v.strip()}
    return None


def is_refusal(answer: Any) -> bool:
    return isinstance(answer, str) and any(m in answer.casefold() for m in REFUSAL_MARKERS)


def check_answer(check: AnswerCheck, answer: Any) -> Check:
    """Compare one answer; a single value must be given, not a list of candidates."""
    ok = False
    if check.kind == "number":
        got = _as_number(answer)
        ok = got is not None and math.isclose(got, float(check.expected), rel_tol=1e-9, abs_tol=check.tolerance + 1e-9)
    elif check.kind == "text":
        single = answer[0] if isinstance(answer, list) and len(answer) == 1 else answer
        ok = isinstance(single, (str, int, float)) and not isinstance(single, bool) and (
            normalise_text(single) == normalise_text(check.expected)
        )
    elif check.kind == "set":
        got_set = _as_set(answer)
        ok = got_set is not None and got_set == {normalise_text(v) for v in check.expected}
    elif check.kind == "refuse":
        ok = is_refusal(answer)
    expected = "a refusal (the request cannot be carried out)" if check.kind == "refuse" else check.expected
    return Check(name=f"answer ({check.kind})", passed=ok, expected=expected, observed=answer)


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


def _rows(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
    cur = conn.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


Touched = dict[str, set[int]]
"""Ids of rows each table's triggers saw written in this session (see runtime.session)."""


def table_diff(conn: sqlite3.Connection, table: str, initial: str = "init", touched: Touched | None = None
               ) -> dict[str, Any]:
    """Rows of ``table`` inserted, updated (before and after) and deleted relative to ``initial``.

    With ``touched`` (ids recorded by the session's write triggers) only those rows are
    compared, which keeps verification cost independent of table size; without it the
    whole table is compared.
    """
    t, i = _q(table), f"{_q(initial)}.{_q(table)}"
    if touched is not None:
        return _touched_diff(conn, t, i, sorted(touched.get(table, ())))
    same = conn.execute(f"SELECT NOT EXISTS (SELECT * FROM main.{t} EXCEPT SELECT * FROM {i}) "
                        f"AND NOT EXISTS (SELECT * FROM {i} EXCEPT SELECT * FROM main.{t})").fetchone()[0]
    if same:
        return {"inserted": [], "updated": [], "deleted": []}
    inserted = _rows(conn, f"SELECT * FROM main.{t} WHERE id NOT IN (SELECT id FROM {i}) ORDER BY id")
    deleted = _rows(conn, f"SELECT * FROM {i} WHERE id NOT IN (SELECT id FROM main.{t}) ORDER BY id")
    after = _rows(conn, f"SELECT * FROM (SELECT * FROM main.{t} EXCEPT SELECT * FROM {i}) "
                        f"WHERE id IN (SELECT id FROM {i}) ORDER BY id")
    before = {r["id"]: r for r in _rows(conn, f"SELECT * FROM {i} WHERE id IN ({','.join('?' * len(after))}) ",
                                        tuple(r["id"] for r in after))} if after else {}
    updated = [(before[r["id"]], r) for r in after]
    return {"inserted": inserted, "updated": updated, "deleted": deleted}


def _touched_diff(conn: sqlite3.Connection, t: str, i: str, ids: list[int]) -> dict[str, Any]:
    if not ids:
        return {"inserted": [], "updated": [], "deleted": []}
    marks = ",".join("?" * len(ids))
    now = {r["id"]: r for r in _rows(conn, f"SELECT * FROM main.{t} WHERE id IN ({marks})", tuple(ids))}
    then = {r["id"]: r for r in _rows(conn, f"SELECT * FROM {i} WHERE id IN ({marks})", tuple(ids))}
    return {
        "inserted": [now[k] for k in ids if k in now and k not in then],
        "updated": [(then[k], now[k]) for k in ids if k in now and k in then and now[k] != then[k]],
        "deleted": [then[k] for k in ids if k in then and k not in now],
    }


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-6)
    return a == b


def _matches(row: dict[str, Any], values: dict[str, Any]) -> bool:
    return all(k in row and _same(row[k], v) for k, v in values.items())


def _changed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[Any]]:
    return {k: [before[k], after[k]] for k in after if not _same(before.get(k), after[k])}


def _resolve(conn: sqlite3.Connection, table: str, key: dict[str, Any], initial: str) -> list[int]:
    where = " AND ".join(f"{_q(k)} IS ?" for k in key) or "0"
    return [r[0] for r in conn.execute(f"SELECT id FROM {_q(initial)}.{_q(table)} WHERE {where}", tuple(key.values()))]


def _check_change(conn: sqlite3.Connection, change: RowChange, diff: dict[str, Any], used: dict[str, set[int]],
                  initial: str) -> Check:
    name = f"{change.op} {change.table} {change.key}"
    if change.op == "insert":
        hits = [r for r in diff["inserted"] if _matches(r, change.key)]
        used["inserted"].update(r["id"] for r in hits)
        if len(hits) != 1:
            return Check(name=name, passed=False, expected=change.values,
                         observed=f"{len(hits)} new rows with this key; new rows: {diff['inserted'][:MAX_REPORTED]}")
        observed = {k: hits[0].get(k) for k in change.values}
        return Check(name=name, passed=_matches(hits[0], change.values), expected=change.values, observed=observed)
    ids = _resolve(conn, change.table, change.key, initial)
    if len(ids) != 1:
        return Check(name=name, passed=False, expected=change.values or "deleted",
                     observed=f"the key names {len(ids)} rows of the initial state")
    if change.op == "delete":
        gone = any(r["id"] == ids[0] for r in diff["deleted"])
        used["deleted"].add(ids[0])
        return Check(name=name, passed=gone, expected="deleted", observed="deleted" if gone else "still present")
    used["updated"].add(ids[0])
    pair = next(((b, a) for b, a in diff["updated"] if a["id"] == ids[0]), None)
    if pair is None:
        gone = any(r["id"] == ids[0] for r in diff["deleted"])
        return Check(name=name, passed=False, expected=change.values, observed="deleted" if gone else "unchanged")
    before, after = pair
    extra = {k: v for k, v in _changed(before, after).items() if k not in change.values}
    observed: dict[str, Any] = {k: after.get(k) for k in change.values}
    if extra:
        observed["other columns changed"] = extra
    return Check(name=name, passed=_matches(after, change.values) and not extra, expected=change.values,
                 observed=observed)


def check_state(conn: sqlite3.Connection, verifier: Verifier, initial: str = "init",
                touched: Touched | None = None) -> list[Check]:
    checks: list[Check] = []
    for table in verifier.watch:
        diff = table_diff(conn, table, initial, touched)
        used: dict[str, set[int]] = {"inserted": set(), "updated": set(), "deleted": set()}
        for change in (c for c in verifier.changes if c.table == table):
            checks.append(_check_change(conn, change, diff, used, initial))
        unexpected: list[Any] = [{"inserted": r} for r in diff["inserted"] if r["id"] not in used["inserted"]]
        unexpected += [{"updated": {"id": a["id"], **_changed(b, a)}} for b, a in diff["updated"]
                       if a["id"] not in used["updated"]]
        unexpected += [{"deleted": r} for r in diff["deleted"] if r["id"] not in used["deleted"]]
        observed: Any = unexpected[:MAX_REPORTED] if unexpected else "no other change"
        if len(unexpected) > MAX_REPORTED:
            observed.append(f"... {len(unexpected) - MAX_REPORTED} more")
        checks.append(Check(name=f"nothing else changed in {table}", passed=not unexpected,
                            expected="no other change", observed=observed))
    return checks


def verify(conn: sqlite3.Connection, verifier: Verifier, answer: Any, initial: str = "init",
           touched: Touched | None = None) -> Verdict:
    """Outcome reward 1.0 only when every check passes; the breakdown explains a 0.0."""
    with read_only(conn):
        checks = check_state(conn, verifier, initial, touched)
    if verifier.answer is not None:
        checks.insert(0, check_answer(verifier.answer, answer))
    reward = 1.0 if checks and all(c.passed for c in checks) else 0.0
    return Verdict(reward=reward, checks=checks)
