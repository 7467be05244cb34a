"""Declarative verifiers: an answer check plus the expected state diff, over every table.

A verifier never runs code from a task. It compares the agent's answer with a stored
expectation, and the session database with the initial state through a read-only view
(``PRAGMA query_only``). The state check is *exact everywhere*: every expected row change
must be there (rows found by a natural key: a unique column or an unambiguous label,
never an auto id for inserted rows), an updated row changes only the listed columns, an
inserted row holds exactly the expected values with every other column at its default,
and no other row of any table may be written at all, even to the value it had. With the
session's touched-row log (:mod:`pipeline.runtime.session`) this costs only the rows the
episode wrote, whatever the size of the tables; reads are free.

The result is a :class:`Verdict` with a ``status``: ``passed``/``failed`` when the checks
ran, ``error`` when they could not (a corrupt state, a bundle whose expectations do not
match its own initial state, an internal error): then ``reward`` is 0.0 and a trainer
should mask the episode instead of learning from it. Every check reports what it
observed next to what it expected (the trainer's view, :meth:`Verdict.full`); what an
agent may see (:meth:`Verdict.public`) names each check and whether it passed, never an
expected value.
"""

from __future__ import annotations

import json
import math
import sqlite3
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pipeline.runtime.answers import (
    Number,
    as_bool,
    as_date,
    as_items,
    as_number,
    as_refusal,
    normalise_text,
    refusal_matches,
    report_matches,
    same_number,
)
from pipeline.runtime.diff import WRITE_LOG as WRITE_LOG
from pipeline.runtime.diff import Initial as Initial
from pipeline.runtime.diff import Touched as Touched
from pipeline.runtime.diff import initial_table, read_only, table_diff, user_tables
from pipeline.runtime.wire import VerdictStatus
from pipeline.world.sqlnames import quote_ident as _q

AnswerKind = Literal["number", "text", "date", "set", "list", "refuse", "report"]
Status = VerdictStatus
REFUSAL_KINDS = ("missing", "status", "limit", "policy")
"""What may block a task: the record does not exist, its status forbids it, a value would leave its range,
a rule of the world's policy forbids it (``value`` names the rule, ``P4``)."""
MAX_REPORTED = 10
"""Unexpected writes listed in a failed 'nothing else written' check (the count is exact)."""


class VerificationError(Exception):
    """The verification could not run: the state or the task record is broken, not the agent's answer."""


class AnswerCheck(BaseModel):
    """How the final answer is judged.

    ``number``: exactly one number equal to ``expected`` (within ``tolerance``, absolute;
    0 for everything a task asks: counts, stored values, amounts already rounded as the
    instruction says). ``text``: one value, normalised (a flag: yes/no, true/false). ``date``: one calendar day in any
    common form. ``set``: exactly these items, each once, any order. ``list``: exactly
    these items in this order. ``refuse``: the structured refusal
    ``{"cannot": kind, "id": record, "value": blocking value}`` naming the real blocker, or a
    list of them for a request done only in part (one per part refused, any order). ``report``: a
    request done in part that also asks what it came to, ``{"total": amount, "refused": [refusals]}``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: AnswerKind
    expected: Any = None
    tolerance: float = 0.0

    @staticmethod
    def _one_refusal(e: Any) -> None:
        if not isinstance(e, dict) or e.get("cannot") not in REFUSAL_KINDS or not isinstance(e.get("id"), int):
            raise ValueError(
                "a refuse check expects {'cannot': one of missing/status/limit/policy, 'id': int, 'value': ...}; "
                "this task record predates structured refusals: regenerate the bundle"
            )

    @model_validator(mode="after")
    def _well_formed(self) -> AnswerCheck:
        if self.kind == "refuse":
            several = isinstance(self.expected, (list, tuple)) and len(self.expected) >= 2
            for e in self.expected if several else [self.expected]:
                self._one_refusal(e)
        if self.kind == "report":
            if not isinstance(self.expected, dict) or set(self.expected) != {"total", "refused"}:
                raise ValueError("a report check expects {'total': amount, 'refused': [refusals]}")
            for e in self.expected["refused"]:
                self._one_refusal(e)
        if self.kind in ("set", "list") and not isinstance(self.expected, (list, tuple)):
            raise ValueError(f"a {self.kind} check expects a list of items")
        if self.tolerance < 0:
            raise ValueError("tolerance must be >= 0")
        return self


class RowChange(BaseModel):
    """One expected row change, located by a natural key.

    ``key`` names the row: for ``update``/``delete`` it is resolved in the initial
    state, for ``insert`` among the rows the episode added. ``values`` are the columns
    the row must hold afterwards: for an update, the changed ones (the others must keep
    their value); for an insert, every column but the id (empty ones as null).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str
    op: Literal["insert", "update", "delete"]
    key: dict[str, Any]
    values: dict[str, Any] = {}
    stamps: dict[str, Any] = Field(default_factory=dict, exclude_if=lambda v: not v)
    """For a goal ("make sure it ends up closed") more than one legal path reaches: columns an
    operation on such a path stamps, with the value it stamps. Each may hold that value or keep
    its own, whichever path the agent took; nothing else is free."""
    avoid: dict[str, tuple[str, ...]] = Field(default_factory=dict, exclude_if=lambda v: not v)
    """Status column -> values the row may not take at any point of the episode: each one the
    world's policy forbids this record to reach. An agent could pass through one on its way to
    the right end state (a claim sent to awaiting documents, then denied), which the end state
    alone does not show; the session's write log keeps every status a row took, and the check
    fails if one of these is among them."""

    def row(self, conn: sqlite3.Connection) -> dict[str, Any] | None:
        """The row ``key`` names in ``conn`` as a column -> value mapping, or None: how the task
        builder and the exploit library find the record a change is about (the verifier resolves
        keys against the initial state itself, :func:`_resolve`)."""
        where = " AND ".join(f"{_q(k)} IS ?" for k in self.key) or "0"
        cur = conn.execute(f"SELECT * FROM {_q(self.table)} WHERE {where}", tuple(self.key.values()))
        found = cur.fetchone()
        return None if found is None else dict(zip([d[0] for d in cur.description], found, strict=True))


class Verifier(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    answer: AnswerCheck | None = None
    """None for a task that only asks for changes (its answer may be anything but a refusal)."""
    changes: tuple[RowChange, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _current_format(cls, data: Any) -> Any:
        if isinstance(data, dict) and "watch" in data:
            raise ValueError(
                "this task record predates checks over every table ('watch' lists only some): regenerate the bundle"
            )
        return data


class Check(BaseModel):
    name: str
    passed: bool
    expected: Any = None
    observed: Any = None


class Verdict(BaseModel):
    status: Status
    reward: float
    checks: list[Check]
    error: str | None = None
    """Why the verification could not run (status ``error`` only)."""
    task_id: str | None = None
    """The task whose verifier produced this verdict (set by the runtime that scored it)."""
    assigned_task_id: str | None = None
    """The task the trainer assigned to the episode (see :func:`for_task`)."""

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def public(self) -> dict[str, Any]:
        """What an agent-facing surface may return: the outcome and each check's name and pass/fail
        (a :class:`pipeline.runtime.wire.PublicVerdict`)."""
        out: dict[str, Any] = {
            "status": self.status,
            "reward": self.reward,
            "checks": [{"name": c.name, "passed": c.passed} for c in self.checks],
        }
        if self.error is not None:
            out["error"] = "the verification could not run"
        if self.task_id is not None or self.assigned_task_id is not None:
            out["task_id"], out["assigned_task_id"] = self.task_id, self.assigned_task_id
        return out

    def full(self) -> dict[str, Any]:
        """The trainer's view: every check with what it expected and observed."""
        return self.model_dump(mode="json")


def error_verdict(exc: BaseException) -> Verdict:
    return Verdict(status="error", reward=0.0, checks=[], error=f"{type(exc).__name__}: {str(exc)[:300]}")


TASK_MISMATCH = "the scored task is not the task the trainer assigned to this episode"


def for_task(verdict: Verdict, task_id: str | None, assigned_task_id: str | None) -> Verdict:
    """``verdict`` naming the task it scored and the one the trainer assigned.

    A verdict on another task than the assigned one is never a pass, whatever its checks
    say: an agent that swapped its task for one whose answer it knows would otherwise win.
    It becomes an ``error`` (reward 0.0, to be masked), so the switch is visible.
    """
    stamped = verdict.model_copy(update={"task_id": task_id, "assigned_task_id": assigned_task_id})
    if task_id == assigned_task_id:
        return stamped
    return stamped.model_copy(update={"status": "error", "reward": 0.0, "error": TASK_MISMATCH})


# -- answers --------------------------------------------------------------------------------


def _exact_number(got: Number | None, expected: Any, tolerance: float) -> bool:
    want = as_number(expected)
    return got is not None and want is not None and same_number(got, want, tolerance)


def is_refusal(answer: Any) -> bool:
    """Whether the answer is the structured refusal form (any reason)."""
    got = as_refusal(answer)
    return got is not None and isinstance(got.get("cannot"), str) and normalise_text(got["cannot"]) in REFUSAL_KINDS


def expected_refusals(check: AnswerCheck | None) -> list[dict[str, Any]]:
    """The refusals an answer check expects: a refusal's, or a report's ``refused`` ([] otherwise)."""
    if check is None:
        return []
    if check.kind == "report":
        return [dict(r) for r in check.expected["refused"]]
    if check.kind != "refuse":
        return []
    expected = check.expected
    return [dict(e) for e in (expected if isinstance(expected, (list, tuple)) else [expected])]


def check_answer(check: AnswerCheck, answer: Any) -> Check:
    """Compare one answer: one value, or exactly the items, as the instruction asks."""
    ok = False
    if check.kind == "number":
        ok = _exact_number(as_number(answer), check.expected, check.tolerance)
    elif check.kind == "text" and isinstance(check.expected, bool):
        ok = as_bool(answer) is check.expected
    elif check.kind == "text":
        single = answer[0] if isinstance(answer, list) and len(answer) == 1 else answer
        ok = (
            isinstance(single, (str, int, float))
            and not isinstance(single, bool)
            and normalise_text(single) == normalise_text(check.expected)
        )
    elif check.kind == "date":
        ok = as_date(answer) is not None and as_date(answer) == as_date(str(check.expected))
    elif check.kind in ("set", "list"):
        wanted = [normalise_text(v) for v in check.expected]
        got = as_items(answer, list(check.expected), ordered=check.kind == "list")
        if got is not None and len(set(got)) == len(got):
            ok = got == wanted if check.kind == "list" else sorted(got) == sorted(wanted)
    elif check.kind == "refuse":
        ok = refusal_matches(check.expected, answer)
    elif check.kind == "report":
        ok = report_matches(check.expected, answer)
    return Check(name="answer", passed=ok, expected=check.expected, observed=answer)


def check_no_refusal(answer: Any) -> Check:
    """A task that only asks for changes: any answer will do, except claiming it could not be done."""
    return Check(name="answer", passed=not is_refusal(answer), expected="not a refusal", observed=answer)


# -- state ----------------------------------------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        # Float noise only (12.350000000000001 is 12.35); stored values carry at most a few decimals.
        return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-6)
    return bool(a == b)


def _matches(row: dict[str, Any], values: dict[str, Any]) -> bool:
    return all(k in row and _same(row[k], v) for k, v in values.items())


def _changed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[Any]]:
    return {k: [before[k], after[k]] for k in after if not _same(before.get(k), after[k])}


Resolved = dict[tuple[str, str], int]
"""Natural keys already resolved in an initial state that never changes (a shared read-only base)."""


def _resolve(
    conn: sqlite3.Connection, table: str, key: dict[str, Any], initial: Initial, resolved: Resolved | None = None
) -> int:
    """The one initial row ``key`` names; anything else means the task does not fit its own state.

    A key may name an unindexed column (an unambiguous label), so finding it can scan the table;
    with ``resolved`` (only for an initial state nothing writes) each key is looked up once.
    """
    memo = (table, json.dumps(key, sort_keys=True))
    if resolved is not None and memo in resolved:
        return resolved[memo]
    where = " AND ".join(f"{_q(k)} IS ?" for k in key) or "0"
    init, name = initial_table(conn, initial, table)
    ids = [r[0] for r in init.execute(f"SELECT id FROM {name} WHERE {where}", tuple(key.values()))]
    if len(ids) != 1:
        raise VerificationError(f"the key {key} names {len(ids)} rows of {table} in the initial state, not 1")
    if resolved is not None:
        resolved[memo] = int(ids[0])
    return int(ids[0])


def _check_change(
    conn: sqlite3.Connection,
    n: int,
    change: RowChange,
    diff: dict[str, Any],
    used: dict[str, set[int]],
    initial: Initial,
    resolved: Resolved | None = None,
) -> Check:
    name = f"change {n}"
    target = {"op": change.op, "table": change.table, "key": change.key, "values": change.values}
    if change.op == "insert":
        hits = [r for r in diff["inserted"] if _matches(r, change.key)]
        used["inserted"].update(r["id"] for r in hits)
        if len(hits) != 1:
            return Check(
                name=name,
                passed=False,
                expected=target,
                observed=f"{len(hits)} new rows with this key; new rows: {diff['inserted'][:MAX_REPORTED]}",
            )
        row = {k: v for k, v in hits[0].items() if k != "id"}
        wrong = {k: v for k, v in row.items() if not _same(v, change.values.get(k))}
        return Check(name=name, passed=not wrong, expected=target, observed={"differs": wrong} if wrong else row)
    row_id = _resolve(conn, change.table, change.key, initial, resolved)
    if change.op == "delete":
        gone = any(r["id"] == row_id for r in diff["deleted"])
        used["deleted"].add(row_id)
        return Check(name=name, passed=gone, expected=target, observed="deleted" if gone else "still present")
    used["updated"].add(row_id)
    pair = next(((b, a) for b, a in diff["updated"] if a["id"] == row_id), None)
    if pair is None:
        gone = any(r["id"] == row_id for r in diff["deleted"])
        return Check(name=name, passed=False, expected=target, observed="deleted" if gone else "unchanged")
    before, after = pair
    detours = _passed(conn, change, row_id)
    free = change.stamps
    wanted = {k: v for k, v in change.values.items() if k not in free}
    extra = {k: v for k, v in _changed(before, after).items() if k not in change.values and k not in free}
    stamped = all(_same(after.get(k), before.get(k)) or _same(after.get(k), v) for k, v in free.items())
    observed: dict[str, Any] = {k: after.get(k) for k in change.values}
    if extra:
        observed["other columns changed"] = extra
    if not stamped:
        observed["stamped"] = {k: after.get(k) for k in free}
    if detours:
        observed["passed through what the policy forbids"] = detours
    passed = _matches(after, wanted) and not extra and stamped and not detours
    return Check(name=name, passed=passed, expected=target, observed=observed)


def _passed(conn: sqlite3.Connection, change: RowChange, row_id: int) -> dict[str, list[str]]:
    """The statuses of ``change.avoid`` the row took during the episode, per column, from the
    session's write log (none to read without one: a state compared whole, as in a container)."""
    if not change.avoid:
        return {}
    logged = conn.execute("SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?", (WRITE_LOG,))
    if logged.fetchone() is None:
        return {}
    out: dict[str, list[str]] = {}
    for column, values in change.avoid.items():
        took = conn.execute(
            f"SELECT val FROM main.{WRITE_LOG} WHERE tbl = ? AND id = ? AND col = ?", (change.table, row_id, column)
        )
        hits = [str(v) for (v,) in took if str(v) in values]
        if hits:
            out[column] = hits
    return out


def check_state(
    conn: sqlite3.Connection,
    verifier: Verifier,
    initial: Initial = "init",
    touched: Touched | None = None,
    resolved: Resolved | None = None,
) -> list[Check]:
    """One check per expected change, then one that nothing else in any table was written.

    With ``touched``, only the tables and rows the session wrote are read; without it,
    every table is compared in full (for tests and tools that have no write log).
    ``resolved`` caches natural keys across verifications of one immutable initial state.
    """
    tables = sorted(set(touched) | {c.table for c in verifier.changes}) if touched is not None else user_tables(conn)
    checks: list[Check] = []
    unexpected: list[Any] = []
    n = 0
    for table in tables:
        diff = table_diff(conn, table, initial, touched)
        used: dict[str, set[int]] = {"inserted": set(), "updated": set(), "deleted": set()}
        for change in (c for c in verifier.changes if c.table == table):
            n += 1
            checks.append(_check_change(conn, n, change, diff, used, initial, resolved))
        allowed = used["inserted"] | used["updated"] | used["deleted"]
        unexpected += [{"table": table, "inserted": r} for r in diff["inserted"] if r["id"] not in allowed]
        unexpected += [
            {"table": table, "updated": {"id": a["id"], **_changed(b, a)}}
            for b, a in diff["updated"]
            if a["id"] not in allowed
        ]
        unexpected += [{"table": table, "deleted": r} for r in diff["deleted"] if r["id"] not in allowed]
        unexpected += [{"table": table, "written, unchanged": k} for k in diff["written"] if k not in allowed]
    observed: Any = unexpected[:MAX_REPORTED] if unexpected else "no other write"
    if len(unexpected) > MAX_REPORTED:
        observed.append(f"... {len(unexpected) - MAX_REPORTED} more")
    checks.append(
        Check(name="nothing else written", passed=not unexpected, expected="no other write", observed=observed)
    )
    return checks


def verify(
    conn: sqlite3.Connection,
    verifier: Verifier,
    answer: Any,
    initial: Initial = "init",
    touched: Touched | None = None,
    resolved: Resolved | None = None,
) -> Verdict:
    """Outcome reward 1.0 only when every check passes; the breakdown explains a 0.0.

    Raises :class:`VerificationError` (or ``sqlite3.Error``) when the verification cannot
    run; :meth:`pipeline.runtime.session.Session.verify` turns that into an ``error`` verdict.
    """
    with read_only(conn):
        checks = check_state(conn, verifier, initial, touched, resolved)
    first = check_answer(verifier.answer, answer) if verifier.answer is not None else check_no_refusal(answer)
    checks.insert(0, first)
    ok = all(c.passed for c in checks)
    return Verdict(status="passed" if ok else "failed", reward=1.0 if ok else 0.0, checks=checks)
