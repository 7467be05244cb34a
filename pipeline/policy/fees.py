"""What a record "comes to", and the fee a refund keeps back: the policy's money lines.

A person who cancels something asks what they get back. The world's answer is a line of its
policy: for an operation that undoes a purchase (cancel, refund, return, withdraw), what was paid
on the record (the amounts of the payments that reference it, where the world keeps payments;
else the record's own amount) comes back less a fee of a few per cent, rounded to the cent per
record. No tool returns that figure: it is read across records, reduced by the rule and added
up, which is the computation a policy without judgment skips.

A ``cap`` line limits what one request gives back in all, as a till's refund authority does: the
request's records are taken from the most recent down, and one whose refund would take the running
total past the limit is left for a manager while the next is still looked at. Whether a record goes
through then depends on the others before it, which no per-record rule captures: the agent keeps a
running sum of computed refunds in a stated order.

A ``late`` line keeps a larger fee on a record undone long after it was made, as shops do for a
return past their usual period: its own time more than some days before today. Which records it
falls on is read off each record's time against today, so the fee differs record by record, and a
choice "whichever gives me the most back" may go to a smaller amount.

A ``waiver`` line gives some records back in full, as shops do: one cancelled within a few days of
being made (a cooling-off period, read off the record's own time against today), or one whose owner
holds a privileged standing (a gold customer, a senior member, read off the owner's record). The fee
then differs record by record, so one rate applied to every record, or none, gives another total.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from pipeline.policy.model import Rule, days_between, is_late, waives
from pipeline.world.naming import UNITS, with_article, words
from pipeline.world.schema import Column, Operation, Schema, Table
from pipeline.world.sqlnames import quote_ident as _q

REFUND_VERBS = frozenset({"cancel", "refund", "return", "withdraw"})
"""Operations that undo a purchase: the person gets money back."""
FEES = (5, 10, 15, 20, 25)
"""Per cent kept back, chosen per operation by the world's seed."""
CENT = Decimal("0.01")


@dataclass(frozen=True)
class Source:
    """Where a record's amount is read: ``column`` of the record itself (``via`` None), or of the rows
    of ``table`` whose ``via`` references it (an order's payments)."""

    column: Column
    table: Table
    via: Column | None = None
    count: bool = False
    """Whether each row of ``table`` that references the record counts one (how many comments the
    tickets have), ``column`` then being the reference itself: a world with no amount to add up."""


def money_column(table: Table) -> Column | None:
    """A table's amount (none where amounts carry a currency of their own: a sum across currencies
    means nothing)."""
    if any("currency" in (c.field or c.name).lower() for c in table.columns):
        return None
    return next((c for c in table.columns if c.semantic == "money" and not c.nullable), None)


def measure_column(table: Table) -> Column | None:
    """A table's own summable measure, for a world that keeps no money on it: a count of things
    (``quantity``: parcels, units planned) or a decimal in a unit (a weight in kg, a volume in ml);
    never a rate, a factor, a year or a rank, whose sum means nothing."""
    for column in table.columns:
        if column.nullable or column.references:
            continue
        unit = words(column.field or column.name)[-1]  # weight_kg, weightKg: "kg"
        if column.semantic == "quantity" or (column.semantic == "decimal" and unit in UNITS):
            return column
    return None


def amount_source(schema: Schema, table: Table) -> Source | None:
    """What a person means by what their records "come to": what was paid on them (a payments table
    whose rows reference the record) where the world keeps that, else the record's own amount, else
    another table of amounts on it (never prices that a quantity multiplies: a sum of them means
    nothing)."""
    children = []
    for child in sorted(schema.tables, key=lambda t: t.name):
        money = money_column(child)
        if money is None or child.name == table.name or any(c.semantic == "quantity" for c in child.columns):
            continue
        for fk in child.foreign_keys:
            if fk.references == table.name and not fk.nullable:
                children.append(Source(money, child, fk))
    paid = [s for s in children if "pay" in s.table.name.lower()]
    own = money_column(table)
    if paid:
        return paid[0]
    if own is not None:
        return Source(own, table)
    return children[0] if children else None


def is_refund(op: Operation) -> bool:
    return op.name.split("_")[0] in REFUND_VERBS


def fee_rule(schema: Schema, op: Operation, seed: int) -> Rule | None:
    """The refund line of ``op`` (None for an operation that refunds nothing, or a record with no amount)."""
    table = schema.table(op.table)
    source = amount_source(schema, table)
    if not is_refund(op) or source is None:
        return None
    fee = random.Random(f"{seed}/{schema.name}/{op.name}/fee").choice(FEES)
    if source.via is None:
        what = f"its {source.column.label}"
    elif "pay" in source.table.name.lower():
        what = f"what was paid on it (the {source.column.label} of its {source.table.plural}, added up)"
    else:
        what = f"the {source.column.label} of its {source.table.plural}, added up,"
    text = (
        f"When {with_article(table.noun)} is set to {op.to.replace('_', ' ')} ({op.name} or otherwise), the customer "
        f"gets back {what} less a fee of {fee} % of that: {100 - fee} % of it, rounded to the nearest cent (half a "
        f"cent up), for each {table.noun} (the amount given back is rounded, not the fee)."
    )
    return Rule(
        id="",
        kind="fee",
        text=text,
        enforced=False,
        table=table.name,
        operation=op.name,
        column=source.column.name,
        limit=float(fee),
        child=source.table.name if source.via is not None else None,
        via=source.via.name if source.via is not None else None,
        goal=op.to,
    )


def refund(paid: Decimal, rule: Rule, waived: bool = False, percent: float | None = None) -> Decimal:
    """What comes back of ``paid`` under a fee rule: less the fee (``percent`` instead of the rule's
    where a late line sets a larger one; none where a waiver line lets the record go back in full),
    rounded half up to the cent."""
    kept = Decimal(0) if waived else Decimal(str(rule.limit if percent is None else percent))
    return (paid * (Decimal(100) - kept) / Decimal(100)).quantize(CENT, rounding=ROUND_HALF_UP)


def late_percent(late: Rule | None, row: dict[str, Any] | None, clock: str) -> float | None:
    """The per cent a late line keeps on ``row`` instead of the fee's, or None (no such line, or the
    record is recent enough)."""
    if late is None or row is None or not is_late(late, row, clock):
        return None
    return float(late.count or 0)


def nice(value: float) -> float:
    """Two significant figures: 1,234.56 -> 1,200.00, 87.3 -> 87.00."""
    if value <= 0:
        return 0.0
    digits = len(str(int(value))) - 2
    step = 10 ** max(digits, 0)
    return float(round(value / step) * step)


LATE_DAYS = (30, 45, 60, 90, 120, 180, 270, 365)
"""How long after a record was made a late line's larger fee starts, in calendar days."""
LATE_FEES = (30, 40, 50, 60)
"""Per cent a late line may keep instead of the fee (the seed picks one above the fee's)."""
LATE_SHARE = (0.2, 0.6)
"""Share of the records an operation may refund that a late line's larger fee may fall on."""


def late_rule(
    schema: Schema, fee: Rule, rows: list[dict[str, Any]], when: Column, time: str, clock: str, seed: int, after: float
) -> Rule | None:
    """The line that keeps a larger fee on ``fee``'s records made more than some days before today
    (None where no period fits). ``rows``: the records the operation may go through for that something
    was paid on; the days are the fewest (past ``after``, the waiver's period where it is one of days,
    so the two never meet) that put the larger fee on a fitting share of them: some, not most (a
    line that falls on none or on all changes no choice)."""
    ages = [days_between(str(r[when.name]), clock) for r in rows if r[when.name] is not None]
    if len(ages) < 4:
        return None
    for days in LATE_DAYS:
        late = sum(age > days for age in ages)
        if days > after and late >= 2 and len(ages) - late >= 2 and LATE_SHARE[0] <= late / len(ages) <= LATE_SHARE[1]:
            break
    else:
        return None
    table = schema.table(fee.table)
    rng = random.Random(f"{seed}/{schema.name}/{fee.operation}/late")
    percent = rng.choice([p for p in LATE_FEES if p > float(fee.limit or 0)])
    text = (
        f"When {with_article(table.noun)} whose {time} is more than {days} days before today (calendar days) is set to "
        f"{str(fee.goal).replace('_', ' ')} ({fee.operation} or otherwise), the fee is {percent} % instead of "
        f"{float(fee.limit or 0):g} %: the customer gets back {100 - percent} % of it, rounded the same way (where "
        "another line gives it back in full, that line still applies)."
    )
    return Rule(
        id="",
        kind="late",
        text=text,
        enforced=False,
        table=table.name,
        operation=fee.operation,
        column=when.name,
        limit=float(days),
        count=percent,
        goal=fee.goal,
    )


CAP_TIMES = (3, 4)
"""A request's refunds may come to at most this many times a usual record's refund (the seed picks)."""


def paid_by_record(conn: sqlite3.Connection, rule: Rule) -> dict[Any, Decimal]:
    """Roughly what was paid on each record of a fee rule's table, before the fee (summed in floating
    point: enough to set a limit by, not to grade by; :func:`refund_of` is exact)."""
    if rule.child is None or rule.via is None:
        cur = conn.execute(f"SELECT id, {_q(str(rule.column))} FROM {_q(rule.table)}")
    else:
        cur = conn.execute(
            f"SELECT {_q(rule.via)}, SUM({_q(str(rule.column))}) FROM {_q(rule.child)} GROUP BY {_q(rule.via)}"
        )
    return {i: Decimal(str(v)) for i, v in cur.fetchall() if v is not None}


def refund_of(
    conn: sqlite3.Connection,
    rule: Rule,
    row_id: Any,
    waiver: Rule | None = None,
    clock: str = "",
    late: Rule | None = None,
) -> Decimal:
    """What a fee rule gives back for record ``row_id``, to the cent (its amounts added as decimals;
    in full where ``waiver`` lets it go back so at ``clock``; less the larger fee where ``late``
    falls on it)."""
    if rule.child is None or rule.via is None:
        cur = conn.execute(f"SELECT {_q(str(rule.column))} FROM {_q(rule.table)} WHERE id = ?", (row_id,))
    else:
        cur = conn.execute(f"SELECT {_q(str(rule.column))} FROM {_q(rule.child)} WHERE {_q(rule.via)} = ?", (row_id,))
    paid = sum((Decimal(str(v)) for (v,) in cur.fetchall() if v is not None), Decimal(0))
    row = row_of(conn, rule.table, row_id) if waiver is not None or late is not None else None
    free = waiver is not None and row is not None and is_waived(conn, waiver, row, clock)
    return refund(paid, rule, free, late_percent(late, row, clock))


def row_of(conn: sqlite3.Connection, table: str, row_id: Any) -> dict[str, Any] | None:
    """Record ``row_id`` of ``table`` as a dict (None where there is none): the one read of a record
    the policy's readings share."""
    cur = conn.execute(f"SELECT * FROM {_q(table)} WHERE id = ?", (row_id,))
    found = cur.fetchone()
    return None if found is None else dict(zip([d[0] for d in cur.description], found))


def is_waived(conn: sqlite3.Connection, waiver: Rule, row: dict[str, Any], clock: str) -> bool:
    """Whether ``waiver`` lets ``row`` go back in full (its owner read where the line is about them)."""
    owner = None
    if waiver.via is not None and waiver.child is not None and row.get(waiver.via) is not None:
        owner = row_of(conn, waiver.child, row[waiver.via])
    return waives(waiver, row, clock, owner)


WAIVER_DAYS = (2, 3, 5, 7, 10, 14, 21, 30)
"""Cooling-off periods a waiver by time may give, in calendar days."""
WAIVER_SHARE = (0.05, 0.5)
"""Share of the records an operation may refund that a waiver may give back in full."""
STANDING = ("tier", "membership", "plan", "level", "class", "segment", "grade")
"""Words that name an owner's standing, the kind of column a business waives fees by."""
PRIVILEGED = ("platinum", "gold", "vip", "elite", "premium", "senior", "student", "business", "enterprise")
"""Standings a waiver is written for, the first the owners hold in a fitting share taken."""


def waiver_rule(
    schema: Schema,
    fee: Rule,
    rows: list[dict[str, Any]],
    owner: Column | None,
    when: Column,
    time: str,
    conn: sqlite3.Connection,
    clock: str,
) -> Rule | None:
    """The line that gives some of ``fee``'s records back in full (None where no form fits): a
    privileged standing of the owner ``owner`` references where the owners have one, else a
    cooling-off period of days counted to ``clock`` from ``when``. ``rows``: the records the
    operation may go through for that something was paid on; the form must spare some of them and
    not most (a waiver of none or of all changes no total)."""
    table = schema.table(fee.table)
    goal = str(fee.goal).replace("_", " ")
    forms: list[Rule] = []
    ages = [days_between(str(r[when.name]), clock) for r in rows if r[when.name] is not None]
    days = [d for d in WAIVER_DAYS if _fits(sum(age <= d for age in ages), rows)]
    if days:
        limit = days[0]  # the shortest: a few of the most recent records, which requests take first
        text = (
            f"No fee is kept back on {with_article(table.noun)} set to {goal} whose {time} is at most {limit} days "
            "before today (calendar days): the customer gets back all of it."
        )
        forms.append(_waiver(fee, text, column=when.name, limit=float(limit)))
    if owner is not None:
        # A standing is preferred: it is read on another record, one per owner, as staff would.
        forms = _standing(schema, fee, rows, owner, conn) or forms
    return forms[0] if forms else None


def _waiver(fee: Rule, text: str, **reading: Any) -> Rule:
    """A waiver line of ``fee``'s operation with its machine reading (see :func:`pipeline.policy.model.waives`)."""
    return Rule(
        id="",
        kind="waiver",
        text=text,
        enforced=False,
        table=fee.table,
        operation=fee.operation,
        goal=fee.goal,
        **reading,
    )


def _fits(spared: int, rows: list[dict[str, Any]], least: float = WAIVER_SHARE[0]) -> bool:
    return bool(rows) and least <= spared / len(rows) <= WAIVER_SHARE[1] and spared >= 2


def _standing(
    schema: Schema, fee: Rule, rows: list[dict[str, Any]], owner: Column, conn: sqlite3.Connection
) -> list[Rule]:
    """The waiver by the owner's standing, where the owner's table has a standing column holding a
    privileged value for a fitting share of ``rows``."""
    table, party = schema.table(fee.table), schema.table(str(owner.references))
    for column in party.columns:
        words = f"{column.name} {column.label}".lower()
        if not column.values or not any(w in words for w in STANDING) or column in schema.status_columns(party):
            continue
        held = dict(conn.execute(f"SELECT id, {_q(column.name)} FROM {_q(party.name)}").fetchall())
        for value in PRIVILEGED:
            if value not in column.values:
                continue
            # A privileged standing may be rare (few customers are gold): some spared is enough.
            if not _fits(sum(held.get(r[owner.name]) == value for r in rows), rows, least=0):
                continue
            text = (
                f"No fee is kept back on {with_article(table.noun)} set to {str(fee.goal).replace('_', ' ')} whose "
                f"{party.noun}'s {column.label} is {value.replace('_', ' ')}: the customer gets back all of it."
            )
            return [_waiver(fee, text, column=column.name, child=party.name, via=owner.name, value=value)]
    return []


def cap_rule(schema: Schema, fee: Rule, refunds: list[Decimal], when: Column, time: str, seed: int) -> Rule | None:
    """The most ``fee``'s operation gives back in one request: a few times a usual refund (None where
    too few records could go through to say what is usual). ``refunds``: what each record the
    operation may go through for (its lifecycle allows it, no staff rule forbids it) would give back.
    A record whose refund alone is over it is held back even alone; no task asks for one such record
    to go through (:func:`pipeline.policy.check.breaking_call` drops it at build)."""
    paid = sorted(r for r in refunds if r > 0)
    if len(paid) < 4:
        return None
    times = random.Random(f"{seed}/{schema.name}/{fee.operation}/cap").choice(CAP_TIMES)
    usual = float(paid[len(paid) // 2])
    limit = nice(usual * times)
    table = schema.table(fee.table)
    goal = str(fee.goal).replace("_", " ")
    text = (
        f"One request's refunds (what the customer gets back, after the fee) come to at most {limit:,.2f} in all: "
        f"taking the {table.plural} it sets to {goal} ({fee.operation} or otherwise) that no other line forbids, "
        f"from the most recent {time} down, {with_article(table.noun)} whose refund would take them past that is "
        "left for a manager (it stays as it is), and the next one is looked at."
    )
    return Rule(
        id="",
        kind="cap",
        text=text,
        enforced=False,
        table=table.name,
        operation=fee.operation,
        column=when.name,
        limit=limit,
        goal=fee.goal,
    )
