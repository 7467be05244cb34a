"""Which writes a policy forbids: the one reading task generation, the exploit library and
``synthenv check`` share.

A staff rule restricts an outcome (a record reaching a status), whatever the path: the
operation named in the rule, or an update that sets the status directly. A write breaks the
rule when the record it moves blocks it in the initial state (the amounts and times a staff
rule reads are not what the operation changes), a ``history`` rule also counting the owner's
records the same request set to its goal before it (``Earlier``): the writes of one request are
read in their order.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from pipeline.policy.fees import refund_of, row_of
from pipeline.policy.model import Policy, Rule, blocks, recent
from pipeline.runtime.task import ToolCall
from pipeline.tools.specs import ToolSpec
from pipeline.world.sqlnames import quote_ident as _q

Owners = dict[tuple[str, Any], int]
"""(history rule id, owner) -> how many of the owner's records the rule counts in the state, counted
for every owner in one pass over the rule's table the first time the rule is asked about, while the
state does not change (reading one owner's records is a scan of the table too, so a pass over every
record of a table would otherwise cost the square of its size)."""

_COUNTED = object()
"""The owner under which :data:`Owners` marks a rule whose counts are all in."""


def _children(conn: sqlite3.Connection, rule: Rule, row: dict[str, Any]) -> list[dict[str, Any]]:
    """The records a staff rule reads beyond ``row``: its children (``related``), or its owner's
    records of the same table (``history``)."""
    if rule.kind == "related" and rule.child is not None and rule.via is not None:
        return _dicts(conn.execute(f"SELECT * FROM {_q(rule.child)} WHERE {_q(rule.via)} = ?", (row["id"],)))
    if rule.kind != "history" or rule.via is None or row.get(rule.via) is None:
        return []
    return _dicts(conn.execute(f"SELECT * FROM {_q(rule.table)} WHERE {_q(rule.via)} = ?", (row[rule.via],)))


def _count_all(conn: sqlite3.Connection, rule: Rule, clock: str, owners: Owners) -> None:
    """Fill ``owners`` with ``rule``'s count for every owner: :func:`recent` over each owner's records,
    which are the records whose ``rule.via`` is that owner (an owner with none counts 0)."""
    via, column = str(rule.via), str(rule.column)
    stamps: dict[Any, list[Any]] = {}
    query = f"SELECT {_q(via)}, {_q(column)} FROM {_q(rule.table)} WHERE {_q(via)} IS NOT NULL"
    for owner, stamp in conn.execute(query):
        stamps.setdefault(owner, []).append(stamp)
    for owner, found in stamps.items():
        owners[(rule.id, owner)] = recent(rule, [{column: s} for s in found], clock)
    owners[(rule.id, _COUNTED)] = 0


def _dicts(cur: sqlite3.Cursor) -> list[dict[str, Any]]:
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


Earlier = dict[tuple[str, Any], int]
"""(history rule id, owner) -> how many of the owner's records the request has set to the rule's goal
so far: what the state read before the request does not show, and the rule counts."""


def blocking_rule(
    policy: Policy,
    conn: sqlite3.Connection,
    table: str,
    goal: str,
    row_id: Any,
    earlier: Earlier | None = None,
    owners: Owners | None = None,
) -> Rule | None:
    """The staff rule that forbids record ``row_id`` of ``table`` reaching ``goal`` (after the request's
    ``earlier`` writes), or None. ``owners``: history counts kept across calls, only while ``conn``'s
    state does not change."""
    rules = policy.goal_rules(table, goal)
    if not rules:
        return None
    row = row_of(conn, table, row_id)
    if row is None:
        return None
    return first_blocking(rules, conn, row, policy.clock, earlier, owners)


def first_blocking(
    rules: Iterable[Rule],
    conn: sqlite3.Connection,
    row: dict[str, Any],
    clock: str,
    earlier: Earlier | None = None,
    owners: Owners | None = None,
) -> Rule | None:
    """The first of the staff ``rules`` that forbids its operation on ``row`` (its related records read
    from ``conn`` where a rule needs them; a history rule's count per owner kept in ``owners`` where
    given, and including the request's ``earlier`` writes), or None."""
    for rule in rules:
        before = 0 if earlier is None or rule.kind != "history" else earlier.get((rule.id, row.get(str(rule.via))), 0)
        if owners is not None and rule.kind == "history" and rule.via is not None and row.get(rule.via) is not None:
            if (rule.id, _COUNTED) not in owners:
                _count_all(conn, rule, clock, owners)
            if blocks(rule, row, clock, [], before + owners.get((rule.id, row[rule.via]), 0)):  # counted once
                return rule
        elif blocks(rule, row, clock, _children(conn, rule, row), before):
            return rule
    return None


def count_write(policy: Policy, table: str, goal: str, row: dict[str, Any], earlier: Earlier) -> None:
    """Note in ``earlier`` that the request set ``row`` of ``table`` to ``goal``: a history rule over that
    goal counts it against the owner's next record."""
    for rule in policy.goal_rules(table, goal):
        if rule.kind == "history" and rule.via is not None and row.get(rule.via) is not None:
            key = (rule.id, row[rule.via])
            earlier[key] = earlier.get(key, 0) + 1


def forbidden_statuses(
    policy: Policy, conn: sqlite3.Connection, table: str, statuses: Iterable[str], row_id: Any, end: str
) -> tuple[str, ...]:
    """The ``statuses`` (other than the one it must end in) a staff rule forbids record ``row_id``
    to reach: the ones it may not pass through on any path."""
    return tuple(s for s in statuses if s != end and blocking_rule(policy, conn, table, s, row_id) is not None)


def goal_of(spec: ToolSpec, arguments: dict[str, Any]) -> str | None:
    """The status a write call moves its record to, or None (not a status write)."""
    if spec.kind == "transition" and spec.to is not None:
        return str(spec.to)
    if spec.kind == "update" and spec.status_column and spec.status_column in arguments:
        return str(arguments[spec.status_column])
    return None


def breaking_call(
    policy: Policy,
    specs: dict[str, ToolSpec],
    conn: sqlite3.Connection,
    calls: Iterable[ToolCall],
    owners: Owners | None = None,
) -> tuple[ToolCall, Rule] | None:
    """The first call of ``calls`` a staff rule forbids (read against the initial state ``conn``), or
    the write that takes the refunds of ``calls`` past the policy's cap on one request. ``owners``:
    history counts kept across calls, only while ``conn``'s state does not change."""
    calls = list(calls)
    return _breaking_record(policy, specs, conn, calls, owners) or _past_cap(policy, specs, conn, calls)


def _past_cap(
    policy: Policy, specs: dict[str, ToolSpec], conn: sqlite3.Connection, calls: list[ToolCall]
) -> tuple[ToolCall, Rule] | None:
    """The write whose refund takes the request's refunds past a cap (each record counted once)."""
    given: dict[str, Decimal] = {}
    seen: set[tuple[str, Any]] = set()
    for call in calls:
        spec = specs.get(call.tool)
        if spec is None or spec.mode != "write" or "id" not in call.arguments:
            continue
        goal = goal_of(spec, dict(call.arguments))
        cap = next((r for r in policy.rules if r.kind == "cap" and r.table == spec.table and r.goal == goal), None)
        fee = None if cap is None else policy.fee(str(cap.operation))
        if cap is None or fee is None or (cap.id, call.arguments["id"]) in seen:
            continue
        seen.add((cap.id, call.arguments["id"]))
        op = str(cap.operation)
        back = refund_of(conn, fee, call.arguments["id"], policy.waiver(op), policy.clock, policy.late(op))
        given[cap.id] = given.get(cap.id, Decimal(0)) + back
        if given[cap.id] > Decimal(str(cap.limit)):
            return call, cap
    return None


def _breaking_record(
    policy: Policy,
    specs: dict[str, ToolSpec],
    conn: sqlite3.Connection,
    calls: list[ToolCall],
    owners: Owners | None = None,
) -> tuple[ToolCall, Rule] | None:
    """The first status write a staff rule forbids, the calls read in order: a history rule counts the
    owner's records the earlier calls set to its goal (each record once)."""
    earlier: Earlier = {}
    done: set[tuple[str, Any, str]] = set()
    for call in calls:
        spec = specs.get(call.tool)
        if spec is None or spec.mode != "write":
            continue
        goal = goal_of(spec, dict(call.arguments))
        if goal is None or "id" not in call.arguments:
            continue
        table, row_id = str(spec.table), call.arguments["id"]
        if (table, row_id, goal) in done:
            continue  # already there: a repeated write is not a second one for the count
        rule = blocking_rule(policy, conn, table, goal, row_id, earlier, owners)
        if rule is not None:
            return call, rule
        row = row_of(conn, table, row_id)
        if row is not None:
            done.add((table, row_id, goal))
            count_write(policy, table, goal, row, earlier)
    return None
