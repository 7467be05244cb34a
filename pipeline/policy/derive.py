"""A world's policy, derived from its schema and its state.

The enforced lines restate what the tools already refuse (each operation's lifecycle, each
cross-field check with its message), so the agent can plan instead of probing. The staff
rules are new: for every operation, at most one of

* ``threshold``: not for a record whose amount is over a limit (a manager decides those);
* ``window``: only within some days of one of the record's times, counted to the world's clock;
* ``related``: not for a record that has a related record with some value (a gift-card payment);
* ``history``: not for an owner who already had records set to that status in some days up to
  today (a customer who cancelled an order last week), read on the owner's other records, the ones
  the same request set earlier counted (records of one request interact: from the most recent down);

chosen by a stable seed among the kinds the table supports, with its limit read off the
state so that some records the operation's lifecycle allows are blocked and most are not
(a rule that blocks nothing or everything teaches nothing). A ``priority`` line says which
record "my latest one" means, a ``fee`` line what a refund gives back, a ``late`` line the larger
fee on a record undone long after it was made, a ``waiver`` line which records go back in
full, and a ``cap`` line the most one request gives back in all (:mod:`pipeline.policy.fees`).
Everything is a function of (schema, state, clock, seed): the same world gives the same policy,
byte for byte.
"""

from __future__ import annotations

import random
import sqlite3
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from decimal import Decimal
from typing import Any

from pipeline.policy.check import Owners, first_blocking
from pipeline.policy.fees import (
    cap_rule,
    fee_rule,
    is_waived,
    late_percent,
    late_rule,
    nice,
    paid_by_record,
    refund,
    waiver_rule,
)
from pipeline.policy.model import STAFF_KINDS, Policy, Rule, RuleKind, days_between
from pipeline.world.naming import with_article as _a
from pipeline.world.schema import Column, Operation, Schema, Table
from pipeline.world.sqlnames import quote_ident as _q

PARTIES = frozenset({"person_name", "company"})
STAFF = (
    "agent",
    "adjuster",
    "veterinarian",
    "doctor",
    "mechanic",
    "staff",
    "instructor",
    "recruiter",
    "rep",
    "banker",
    "trainer",
    "cashier",
    "analyst",
    "operator",
    "referee",
    "driver",
    "courier",
    "team_member",
    "technician",
    "prescriber",
    "worker",
    "nurse",
    "manager",
    "inspector",
    "promoter",
    "seller",
)
"""Words that make a person table the business's own staff: their records are not theirs to ask about."""
"""What a record's owner is named by: a person, or an organisation that writes in through its staff."""
WINDOW_DAYS = (3, 7, 14, 30, 60, 90, 180, 365, 730)
BLOCKED_SHARE = (0.1, 0.6)
"""Share of the records an operation's lifecycle allows that a staff rule may block."""
TARGET_SHARE = 0.3


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def time_words(column: Column) -> str:
    """``placed at`` -> "placed date", ``check-in on`` -> "check-in date"."""
    label = column.label
    for suffix in (" at", " on", " date", " time"):
        label = label.removesuffix(suffix)
    return f"{label} date"


def _listed(values: list[str]) -> str:
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + " or " + values[-1]


def _money(value: float) -> str:
    return f"{value:,.2f}"


_HELD: ContextVar[dict[tuple[Any, ...], Any] | None] = ContextVar("derive_held_rows", default=None)
"""Within one :func:`derive_policy`, what its reads return, read once: the records each operation's
lifecycle allows it on (every kind of rule and the fee lines read them) and which records a related
kind's values name (every operation on a table asks): a scan of a large table each time otherwise."""


def _rows(conn: sqlite3.Connection, table: Table, op: Operation) -> list[dict[str, Any]]:
    """The records ``op``'s lifecycle allows it on (to read, not to change: one derivation shares them)."""
    held = _HELD.get()
    key = ("rows", table.name, op.column, tuple(op.allowed_from))
    if held is not None and key in held:
        return list(held[key])
    marks = ", ".join("?" for _ in op.allowed_from)
    cur = conn.execute(f"SELECT * FROM {_q(table.name)} WHERE {_q(op.column)} IN ({marks})", op.allowed_from)
    names = [d[0] for d in cur.description]
    rows = [dict(zip(names, r)) for r in cur.fetchall()]
    if held is not None:
        held[key] = rows
    return list(rows)


def _share_ok(share: float) -> bool:
    return BLOCKED_SHARE[0] <= share <= BLOCKED_SHARE[1]


def _threshold(table: Table, op: Operation, rows: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for column in table.columns:
        if column.semantic != "money" or column.nullable:
            continue
        values = sorted(float(r[column.name]) for r in rows if r[column.name] is not None)
        if len(values) < 4:
            continue
        limit = nice(values[int(len(values) * (1 - TARGET_SHARE))])
        share = sum(v > limit for v in values) / len(values)
        if _share_ok(share):
            yield {"column": column.name, "limit": limit}


def _window(table: Table, op: Operation, rows: list[dict[str, Any]], clock: str) -> Iterator[dict[str, Any]]:
    for column in table.columns:
        if column.semantic not in ("timestamp", "date") or column.nullable or column.name == op.sets_time:
            continue
        ages = [days_between(str(r[column.name]), clock) for r in rows if r[column.name] is not None]
        if len(ages) < 4:
            continue
        best = min(WINDOW_DAYS, key=lambda d: abs(sum(a > d for a in ages) / len(ages) - TARGET_SHARE))
        if _share_ok(sum(a > best for a in ages) / len(ages)):
            yield {"column": column.name, "limit": float(best)}


def _related(
    conn: sqlite3.Connection, schema: Schema, table: Table, rows: list[dict[str, Any]]
) -> Iterator[dict[str, Any]]:
    if len(rows) < 4:
        return
    ids = {r["id"] for r in rows}
    for child in schema.tables:
        for fk in child.foreign_keys:
            if fk.references != table.name or fk.nullable or child.name == table.name:
                continue
            for column in child.columns:
                if not column.values or column.transitions or column.references:
                    continue
                best: tuple[float, str] | None = None
                hits = _hits(conn, child, fk, column)
                for value in column.values:
                    hit = hits[value] if hits is not None else _hit(conn, child, fk, column, value)
                    share = len(hit & ids) / len(ids)
                    if _share_ok(share) and (best is None or abs(share - TARGET_SHARE) < abs(best[0] - TARGET_SHARE)):
                        best = (share, value)
                if best is not None:
                    yield {"child": child.name, "via": fk.name, "column": column.name, "value": best[1]}


def _hit(conn: sqlite3.Connection, child: Table, fk: Column, column: Column, value: str) -> set[Any]:
    """The records of ``child`` whose ``column`` is ``value`` reference these (``fk``) records."""
    sql = f"SELECT DISTINCT {_q(fk.name)} FROM {_q(child.name)} WHERE {_q(column.name)} = ?"
    return {r[0] for r in conn.execute(sql, (value,))}


def _hits(conn: sqlite3.Connection, child: Table, fk: Column, column: Column) -> dict[str, set[Any]] | None:
    """:func:`_hit` for every value of ``column`` in one scan of ``child`` (a scan per value otherwise),
    where the column holds text: then ``=`` in SQL is Python's ``==`` on what it returns. None otherwise."""
    values = column.values or ()
    if column.sql_type != "TEXT" or not all(isinstance(v, str) for v in values):
        return None
    held, key = _HELD.get(), ("hits", child.name, fk.name, column.name)
    if held is not None and key in held:
        found: dict[str, set[Any]] = held[key]  # only read: each caller intersects, never changes it
        return found
    hits: dict[str, set[Any]] = {v: set() for v in values}
    marks = ", ".join("?" for _ in values)
    sql = f"SELECT DISTINCT {_q(column.name)}, {_q(fk.name)} FROM {_q(child.name)} WHERE {_q(column.name)} IN ({marks})"
    for value, ref in conn.execute(sql, tuple(values)):
        hits[value].add(ref)
    if held is not None:
        held[key] = hits
    return hits


HISTORY_DAYS = (7, 14, 30, 60, 90, 180, 365)
"""Periods a history rule may count over, in calendar days before today."""
HISTORY_VERBS = frozenset({"cancel", "refund", "withdraw"})
"""Operations a business limits per customer (cancelling again and again), the ones a history rule is for."""


def _history(
    conn: sqlite3.Connection, schema: Schema, table: Table, op: Operation, rows: list[dict[str, Any]], clock: str
) -> Iterator[dict[str, Any]]:
    """A limit on how often one owner's records reach the operation's status: the owner's records
    the operation stamped (its time column written) within some days before today, counted per owner
    of the records it may go through for (a customer who cancelled an order last week)."""
    paths = ownership(schema, table)
    if op.name.split("_")[0] not in HISTORY_VERBS or not op.sets_time or not paths or len(paths[0]) != 1:
        return
    if len(rows) < 4:
        return
    via = paths[0][0].name
    stamped: dict[Any, list[int]] = {}
    query = f"SELECT {_q(via)}, {_q(op.sets_time)} FROM {_q(table.name)} WHERE {_q(op.sets_time)} IS NOT NULL"
    for owner, stamp in conn.execute(query):
        stamped.setdefault(owner, []).append(days_between(str(stamp), clock))
    for ages in stamped.values():
        ages.sort()  # counted by bisection below: 14 counts per record, a pass over its owner's each
    # Two per period where that fits: then a request's own writes and the owner's earlier records
    # both decide (one earlier cancellation leaves room for one more, none for two), so neither can
    # be skipped; with one per period, any earlier record refuses everything.
    for count in (2, 1):
        best: tuple[float, dict[str, Any]] | None = None
        for days in HISTORY_DAYS:
            hit = [_in_period_count(stamped.get(r[via], ()), days) >= count for r in rows]
            share = sum(hit) / len(rows)
            if _share_ok(share) and (best is None or abs(share - TARGET_SHARE) < abs(best[0] - TARGET_SHARE)):
                best = (share, {"column": op.sets_time, "limit": float(days), "via": via, "count": count})
        if best is not None:
            yield best[1]
            return


def _in_period_count(ages: Sequence[int], days: float) -> int:
    """How many of the sorted ``ages`` :func:`in_period` counts for ``days``: those from 0 to ``days``."""
    return bisect_right(ages, days) - bisect_left(ages, 0)


def _options(
    conn: sqlite3.Connection, schema: Schema, table: Table, op: Operation, clock: str, kind: str
) -> Iterator[dict[str, Any]]:
    rows = _rows(conn, table, op)
    if kind == "threshold":
        yield from _threshold(table, op, rows)
    elif kind == "window":
        yield from _window(table, op, rows, clock)
    elif kind == "history":
        yield from _history(conn, schema, table, op, rows, clock)
    else:
        yield from _related(conn, schema, table, rows)


def _staff_rule(
    conn: sqlite3.Connection,
    schema: Schema,
    table: Table,
    op: Operation,
    clock: str,
    rng: random.Random,
    used: set[tuple[Any, ...]],
) -> Rule | None:
    """One staff rule for ``op``: a ``history`` rule where one fits (only cancellations and refunds
    have one), else the first kind (in the seed's order) with a fitting column, a column or related
    record no other rule of the table uses where there is one."""
    kinds: list[RuleKind] = ["threshold", "window", "related"]
    rng.shuffle(kinds)
    kinds.insert(0, "history")  # where a customer's earlier cancellations can limit the next, that rule
    options = [(kind, found) for kind in kinds for found in _options(conn, schema, table, op, clock, kind)]
    if not options:
        return None

    def signature(option: tuple[RuleKind, dict[str, Any]]) -> tuple[Any, ...]:
        return (option[0], option[1].get("column"), option[1].get("child"))

    kind, found = next((o for o in options if signature(o) not in used), options[0])
    used.add(signature((kind, found)))
    goal = op.to.replace("_", " ")
    noun = table.noun
    if kind == "threshold":
        label = table.column(found["column"]).label
        text = (
            f"Staff do not set {_a(noun)} to {goal} ({op.name} or otherwise) when its {label} is over "
            f"{_money(found['limit'])}: a manager decides those."
        )
    elif kind == "window":
        label = time_words(table.column(found["column"]))
        text = (
            f"Staff set {_a(noun)} to {goal} ({op.name} or otherwise) only when its {label} is at most "
            f"{int(found['limit'])} days before today (calendar days)."
        )
    elif kind == "history":
        holder = schema.table(str(table.column(found["via"]).references))
        owner = holder.noun
        # A person "who", a workspace or a company "that".
        who = "who" if holder.column(holder.label).semantic == "person_name" else "that"
        label = time_words(table.column(found["column"]))
        many = _a(noun) if found["count"] == 1 else f"two or more {table.plural}"
        when = recency_column(schema, table)
        order = "" if when is None else f", and a request for several goes from the most recent {time_words(when)} down"
        text = (
            f"Staff do not set {_a(noun)} to {goal} ({op.name} or otherwise) for {_a(owner)} {who} already had "
            f"{many} set to {goal} in the {int(found['limit'])} days before today or today itself (by its "
            f"{label}): one set to {goal} earlier in the same request counts{order}. A manager decides those."
        )
    else:
        child = schema.table(found["child"])
        label = child.column(found["column"]).label
        value = str(found["value"]).replace("_", " ")
        # Whatever the related record's own status (a voided payment was still made that way).
        any_status = " (in any status)" if schema.status_columns(child) else ""
        text = (
            f"Staff do not set {_a(noun)} to {goal} ({op.name} or otherwise) when it has {_a(child.noun)} "
            f"whose {label} is {value}{any_status}: a manager decides those."
        )
    return Rule(id="", kind=kind, text=text, enforced=False, table=table.name, operation=op.name, goal=op.to, **found)


def _is_party(schema: Schema, fk: Column) -> bool:
    """A reference to someone who could write in about their records: a customer or a customer
    organisation with contact details (an author or an artist has none), never the staff."""
    parent = schema.table(str(fk.references))
    label = next((c for c in parent.columns if c.name == parent.label), None)
    contact = any(c.semantic in ("email", "phone") for c in parent.columns)
    return not fk.nullable and label is not None and label.semantic in PARTIES and contact and not is_staff(parent)


def ownership(schema: Schema, table: Table) -> list[tuple[Column, ...]]:
    """Every way a record of ``table`` belongs to a person (a customer, an organisation that is a
    customer): its own reference to them, or through a record of theirs it references (a claim
    through the policy it is on, a visit through the pet's owner). Each path is the references
    followed, in order."""
    paths: list[tuple[Column, ...]] = []
    for fk in table.foreign_keys:
        if _is_party(schema, fk):
            paths.append((fk,))
    for fk in table.foreign_keys:
        middle = schema.table(str(fk.references))
        if fk.nullable or middle.name == table.name or _is_party(schema, fk):
            continue
        for up in middle.foreign_keys:
            owner = schema.table(str(up.references))
            person = owner.column(owner.label).semantic == "person_name"
            if up.references != table.name and person and _is_party(schema, up):
                paths.append((fk, up))  # a person's, not an organisation's: a publisher owns no library copy
    return paths


def _party(schema: Schema, table: Table) -> Column | None:
    """The last reference of the first ownership path: the one to the person."""
    paths = ownership(schema, table)
    return paths[0][-1] if paths else None


def _recency(table: Table, op_times: set[str]) -> Column | None:
    return next(
        (c for c in table.columns if c.semantic in ("timestamp", "date") and not c.nullable and c.name not in op_times),
        None,
    )


def is_staff(table: Table) -> bool:
    """Whether a person table holds the business's staff (a veterinarian, an adjuster), not its customers."""
    words = f"{table.entity} {table.noun}".lower().replace(" ", "_")
    return any(w in words for w in STAFF)


def recency_column(schema: Schema, table: Table) -> Column | None:
    """The time that orders ``table``'s records by recency (when each was made, not a time an
    operation stamps), or None."""
    times = {str(op.sets_time) for op in schema.operations if op.table == table.name and op.sets_time}
    return _recency(table, times)


def priority_column(schema: Schema, table: Table) -> Column | None:
    """The time that orders a person's records of ``table`` ("my latest"), or None."""
    return recency_column(schema, table) if _party(schema, table) is not None else None


def derive_policy(schema: Schema, conn: sqlite3.Connection, clock: str, seed: int) -> Policy:
    """The policy of the world ``conn`` holds (see the module docstring)."""
    token = _HELD.set({})
    try:
        return _derive_policy(schema, conn, clock, seed)
    finally:
        _HELD.reset(token)


def _derive_policy(schema: Schema, conn: sqlite3.Connection, clock: str, seed: int) -> Policy:
    rules: list[Rule] = []
    for op in schema.operations:
        table = schema.table(op.table)
        status = table.column(op.column).label
        allowed = _listed([s.replace("_", " ") for s in op.allowed_from])
        rules.append(
            Rule(
                id="",
                kind="lifecycle",
                text=f"{op.name} applies only to {table.plural} whose {status} is {allowed}; it sets the {status} to "
                f"{op.to.replace('_', ' ')}.",
                enforced=True,
                table=table.name,
                operation=op.name,
                goal=op.to,
            )
        )
    for table in schema.tables:
        for br in table.rules:
            if br.message:
                text = br.message[:1].upper() + br.message[1:].rstrip(".") + "."
                rules.append(Rule(id="", kind="check", text=text, enforced=True, table=table.name))
    used: dict[str, set[tuple[Any, ...]]] = {}
    for op in schema.operations:
        rng = random.Random(f"{seed}/{schema.name}/{op.name}/policy")
        staff = _staff_rule(conn, schema, schema.table(op.table), op, clock, rng, used.setdefault(op.table, set()))
        if staff is not None:
            rules.append(staff)
    caps: list[Rule] = []  # numbered after every fee line
    for op in schema.operations:
        fee = fee_rule(schema, op, seed)
        if fee is None:
            continue
        rules.append(fee)
        table = schema.table(op.table)
        when = recency_column(schema, table)
        if when is None:
            continue
        ruling = [r for r in rules if r.kind in STAFF_KINDS and r.operation == op.name]
        owners: Owners = {}  # the state does not change here: each history rule counted once for every owner
        rows = [r for r in _rows(conn, table, op) if first_blocking(ruling, conn, r, clock, owners=owners) is None]
        paths = ownership(schema, table)
        owner = paths[0][0] if paths and len(paths[0]) == 1 else None
        paid = paid_by_record(conn, fee)
        # A waiver is set on the records something was paid on: it changes nothing on the others.
        paying = [r for r in rows if paid.get(r["id"], Decimal(0)) > 0]
        waiver = waiver_rule(schema, fee, paying, owner, when, time_words(when), conn, clock)
        if waiver is not None:
            rules.append(waiver)
        by_time = waiver is not None and waiver.via is None
        after = float(waiver.limit or 0) if waiver is not None and by_time else 0.0
        late = late_rule(schema, fee, paying, when, time_words(when), clock, seed, after)
        if late is not None:
            rules.append(late)
        refunds = [
            refund(
                paid.get(r["id"], Decimal(0)),
                fee,
                waiver is not None and is_waived(conn, waiver, r, clock),
                late_percent(late, r, clock),
            )
            for r in rows
        ]
        cap = cap_rule(schema, fee, refunds, when, time_words(when), seed)
        if cap is not None:
            caps.append(cap)
    rules += caps
    for table in schema.tables:
        if not any(op.table == table.name for op in schema.operations):
            continue
        column = priority_column(schema, table)
        fk = _party(schema, table)
        if column is None or fk is None:
            continue
        rules.append(
            Rule(
                id="",
                kind="priority",
                text=f"Someone's latest {table.noun} is the one of theirs with the most recent {time_words(column)}; "
                "their latest two, three or four are that many of the most recent.",
                enforced=False,
                table=table.name,
                column=column.name,
            )
        )
    numbered = tuple(r.model_copy(update={"id": f"P{i}"}) for i, r in enumerate(rules, 1))
    return Policy(clock=clock, rules=numbered)
