"""Judging a request's records one by one, and what the ones that go through come to.

The reference's walk over a person's (``case``) or a sweep's (``sweep``) records: for each, the
reads its staff rules need, then the operation and the reads of its amounts where the policy lets
it through, else its refusal; under the policy's cap on one request's refunds a running sum, under
its waiver some records given back in full. Both families judge through :func:`settle`, so the
exploits against the cap and the waiver serve both.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from pipeline.policy.check import blocking_rule
from pipeline.policy.fees import Source, amount_source, late_percent, measure_column, refund
from pipeline.policy.model import Rule, waives
from pipeline.runtime.task import ToolCall
from pipeline.tasks.context import Context
from pipeline.tasks.families._common import op_call
from pipeline.tasks.families.request import judge, refusal
from pipeline.tasks.model import Skip
from pipeline.tools.specs import TransitionTool
from pipeline.world.schema import Table
from pipeline.world.sqlnames import quote_ident

MAX_ITEMS = 20
"""At most this many amounts per record that went through (one page of a listing)."""


def amounts(ctx: Context, table: Table, measure: bool = False) -> Source | None:
    """Where the person's "what it comes to" is read (:func:`pipeline.policy.fees.amount_source`), if
    the tools can read it one record at a time (once per table: the search asks for every candidate).
    With ``measure``, a table with no money on it adds up its own measure instead
    (:func:`pipeline.policy.fees.measure_column`: the weight of the shipments that went through), or
    with no measure either counts the records of another kind that reference it (:func:`_counted`), as
    staff tally a batch of work; a person asks what their records come to in money alone."""
    key = ("case_amounts", table.name, measure)
    if key not in ctx.memo:
        source = amount_source(ctx.schema, table)
        readable = source is not None and (source.via is None or source.via.name in ctx.filterable(source.table))
        if not readable and measure:
            column = measure_column(table)
            source = Source(column, table) if column is not None else _counted(ctx, table)
            readable = source is not None
        ctx.memo[key] = source if readable else None
    found: Source | None = ctx.memo[key]
    return found


def _counted(ctx: Context, table: Table) -> Source | None:
    """Where a table has neither money nor a measure, the records of another kind that reference it,
    counted (the comments on the tickets, the enrollments in the sections): the kind with the most
    rows, one without a status of its own first (a count of "its comments" then has one reading), and
    readable one record at a time."""
    found = [
        (bool(ctx.schema.status_columns(child)), -ctx.total(child, {}), child.name, fk.name, child, fk)
        for child, fk in ctx.children(table)
        if child.name != table.name and not fk.nullable and not fk.unique and fk.name in ctx.filterable(child)
    ]
    if not found:
        return None
    *_, child, fk = min(found, key=lambda f: f[:4])
    return Source(fk, child, fk, count=True)


def paid_on(
    ctx: Context, source: Source, row: dict[str, Any], strict: bool = True
) -> tuple[list[Decimal], list[ToolCall]]:
    """The amounts on one record, and the reads that show them (none for its own amount). Where the
    amounts' rows have a status, all must hold the table's usual one: "the total of the claim
    payments" read as every payment or as the cleared ones only then gives one number (a voided or
    a scheduled payment makes two readings, so such a record is not asked about; ``strict`` off for
    what a shortcut's answer comes to)."""
    if source.via is None:
        return [Decimal(str(row[source.column.name]))], []
    items, calls = ctx.fetch_all(source.table, {source.via.name: row["id"]})
    for column, usual in _usual_statuses(ctx, source.table).items() if strict else ():
        if any(r[column] != usual for r in items):
            raise Skip("amounts_in_several_statuses")
    if source.count:  # each one counts one
        return [Decimal(1) for _ in items], calls
    return [Decimal(str(r[source.column.name])) for r in items if r[source.column.name] is not None], calls


def _usual_statuses(ctx: Context, table: Table) -> dict[str, Any]:
    """Each status column of ``table`` (:meth:`Schema.status_columns`) with its most frequent value
    (memoised per build)."""
    key = ("case_usual", table.name)
    if key not in ctx.memo:
        usual = {}
        for column in ctx.schema.status_columns(table):
            found = ctx.conn.execute(
                f"SELECT {quote_ident(column.name)} FROM {quote_ident(table.name)} "
                f"GROUP BY 1 ORDER BY COUNT(*) DESC, 1 LIMIT 1"
            ).fetchone()
            if found is not None:
                usual[column.name] = found[0]
        ctx.memo[key] = usual
    found_usual: dict[str, Any] = ctx.memo[key]
    return found_usual


def comes_to(
    ctx: Context,
    op: TransitionTool,
    values: list[Decimal],
    waived: bool = False,
    row: dict[str, Any] | None = None,
) -> Decimal:
    """What a record with these amounts comes to (less the policy's fee where the operation refunds,
    the late line's larger one where it falls on ``row``, unless the policy's waiver gives this
    record back in full; ``row`` None: the late line missed)."""
    gross = sum(values, Decimal(0))
    fee = ctx.policy.fee(op.name)
    if fee is None:
        return gross
    return refund(gross, fee, waived, late_percent(ctx.policy.late(op.name), row, ctx.policy.clock))


def waived(ctx: Context, op: TransitionTool, row: dict[str, Any]) -> tuple[bool, Table | None]:
    """Whether the policy's waiver gives ``row`` back in full, and the owner's table where that is
    read on the owner's record (None where it is the record's own time, or there is no waiver)."""
    waiver = ctx.policy.waiver(op.name)
    if waiver is None:
        return False, None
    if waiver.via is None or waiver.child is None:
        return waives(waiver, row, ctx.policy.clock), None
    parent = ctx.schema.table(waiver.child)
    owner = None if row.get(waiver.via) is None else ctx.row(parent, row[waiver.via])
    return waives(waiver, row, ctx.policy.clock, owner), parent


@dataclass
class Tally:
    """What judging a request's records gives: the refusals, and what the ones that go through come to."""

    total: Decimal = Decimal(0)
    """What the records that go through come to (less the policy's fee where the operation refunds)."""
    every: Decimal = Decimal(0)
    """What every record asked about would come to (the literal reading)."""
    gross: Decimal = Decimal(0)
    """The amounts on the records that go through, the fee forgotten."""
    refused: list[dict[str, Any]] = field(default_factory=list)
    capped: list[Any] = field(default_factory=list)
    """Records the policy's cap on one request's refunds leaves for a manager, in the order taken."""
    waived: list[Any] = field(default_factory=list)
    """Records that go through and come back in full under the policy's waiver (where that changes
    what they come to: something was paid on them)."""
    history: list[Any] = field(default_factory=list)
    """Records a ``history`` staff rule refuses (the owner's earlier ones were set to the goal lately)."""
    today: list[Any] = field(default_factory=list)
    """Of those, the ones the rule refuses only because of records the same request set earlier (the
    state read before the request would let them through)."""
    unwaived: Decimal = Decimal(0)
    """What the records that go through come to with the fee kept on every one (the waiver missed)."""
    late: list[Any] = field(default_factory=list)
    """Records that go through with the late line's larger fee kept (made long before today)."""
    usual: Decimal = Decimal(0)
    """What the records that go through come to with the usual fee on every one (the late line missed)."""
    after_cap: bool = False
    """Whether a record went through after one the cap held back (stopping at the cap is wrong)."""


def settle(
    ctx: Context,
    op: TransitionTool,
    source: Source,
    rows: list[dict[str, Any]],
    decisions: list[tuple[str, Rule | None]],
    calls: list[ToolCall],
    deciding: list[int],
    rules: set[str],
    known: frozenset[tuple[str, Any]] = frozenset(),
    believe: bool = False,
) -> Tally:
    """Judge each record in turn as the reference does: the reads its staff rules need, then the
    operation and the reads of its amounts where it goes through, else its refusal (appended to
    ``calls``, ``deciding`` and ``rules``). Under the policy's cap on one request's refunds, a record
    whose refund would take the running total past it is refused by that rule, in the order ``rows``
    come (the most recent first). Under its waiver, a record that goes through may come back in full:
    where that is read on the owner's record, the owner is read once (unless ``known``: (table, id)
    pairs the reference has already read). Skips where the total is not computed: one amount copied
    would give it (or it is zero), a record holds more amounts than one page shows, or the cap's
    order is tied. With ``believe``, every record that goes through is taken as waived (what someone
    who believed the person's claim that the waiver covers them all would answer)."""
    tally, singles, summed = Tally(), set(), 0
    cap, waiver, seen = ctx.policy.cap(op.name), ctx.policy.waiver(op.name), set(known)
    late = ctx.policy.late(op.name)
    for row, (kind, rule) in zip(rows, decisions, strict=True):
        judge(ctx, op, row, kind, calls, deciding, rules)
        values, reads = paid_on(ctx, source, row, strict=kind == "allowed")
        if len(values) > MAX_ITEMS:
            raise Skip("too_many_amounts")
        free, owner = waived(ctx, op, row) if kind == "allowed" else (False, None)
        free = free or (believe and kind == "allowed")
        if kind == "allowed" and late is not None:
            rules.add(late.id)  # the record's age decides its fee
        if kind == "allowed" and waiver is not None:
            rules.add(waiver.id)
            if owner is not None and waiver.via is not None and (owner.name, row[waiver.via]) not in seen:
                seen.add((owner.name, row[waiver.via]))
                deciding.append(len(calls))  # the owner's standing decides the fee
                calls.append(ctx.read_call(owner, row[waiver.via]))
        back = comes_to(ctx, op, values, free, row)
        tally.every += back
        singles |= set(values)
        if kind == "allowed" and cap is not None:
            rules.add(cap.id)
            if tally.total + back > Decimal(str(cap.limit)):
                deciding += range(len(calls), len(calls) + len(reads))  # its refund decides it
                calls += reads
                tally.capped.append(row["id"])
                tally.refused.append({"cannot": "policy", "id": row["id"], "value": cap.id})
                continue
            tally.after_cap = tally.after_cap or bool(tally.capped)
        if kind == "allowed":
            # Under a cap the refund is read first: it decides whether the record goes through.
            calls += [*reads, op_call(op, row["id"])] if cap is not None else [op_call(op, row["id"]), *reads]
            tally.total += back
            kept = comes_to(ctx, op, values, row=row)
            tally.unwaived += kept
            if kept != back:  # waived, and something was paid on it
                tally.waived.append(row["id"])
            usual = comes_to(ctx, op, values, free)
            tally.usual += usual
            if usual != back:  # the late line's larger fee falls on it
                tally.late.append(row["id"])
            tally.gross += sum(values, Decimal(0))
            summed += len(values)
        elif (one := refusal(op, row, kind, rule)) is not None:
            tally.refused.append(one)
            if rule is not None and rule.kind == "history":
                tally.history.append(row["id"])
                if blocking_rule(ctx.policy, ctx.conn, op.table, str(op.to), row["id"], owners=ctx.owners) is None:
                    tally.today.append(row["id"])  # only the request's own earlier writes refuse it
    if believe:
        return tally  # what believing gives, whatever its shape
    if (summed < 2 and ctx.policy.fee(op.name) is None) or tally.total in singles or tally.total == 0:
        raise Skip("total_not_computed")  # one amount copied would be right
    if tally.capped and cap is not None and not _ranked(rows, decisions, str(cap.column)):
        raise Skip("cap_order_tied")  # "from the most recent down" has two readings
    if tally.capped and tally.today:
        # Decisions count every allowed record as done; one the cap holds back is not, so a later
        # record of its owner would be judged on a count one too high.
        raise Skip("cap_meets_history_today")
    return tally


def waiver_knobs(tally: Tally, expected: dict[str, Any]) -> dict[str, Any]:
    """The records the policy's waiver gives back in full, the answer of someone who kept the fee on
    every record (the waiver missed) where that differs, and the records a history rule refuses (all,
    and the ones only the request's own earlier writes refuse)."""
    knobs: dict[str, Any] = {"waived": tally.waived, "history_refused": tally.history, "history_today": tally.today}
    if tally.waived:
        knobs["unwaived_answer"] = json.dumps({**expected, "total": float(round(tally.unwaived, 2))})
    if tally.late:
        knobs["late"] = tally.late
        knobs["usual_fee_answer"] = json.dumps({**expected, "total": float(round(tally.usual, 2))})
    return knobs


def _ranked(rows: list[dict[str, Any]], decisions: list[tuple[str, Rule | None]], when: str) -> bool:
    """Whether the records a cap weighs (the ones the other rules let through) come in one order
    by recency: no two share a time, so "from the most recent down" has one reading."""
    times = [str(r[when]) for r, (kind, _) in zip(rows, decisions, strict=True) if kind == "allowed"]
    return len(set(times)) == len(times) and times == sorted(times, reverse=True)
