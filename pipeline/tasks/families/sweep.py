"""The top level for staff: one operation over every record matching conditions, under the policy.

"Find all orders whose status is pending and that were placed before March 3 and cancel each of
them. Then tell me what the payments on the ones that went through come to in all." The agent
lists the records (every page), decides for each whether a staff rule forbids the operation (an
amount over a limit, a window of days, a related record it must read), carries it out on the
others, refuses the forbidden ones one record at a time naming the rule, reads what was paid (or
owed) on each record that went through and adds it up. The answer is one object:
``{"total": 812.40, "refused": [{"cannot": "policy", "id": 7, "value": "P5"}]}``.

Every record matched is in a status the operation leaves, so the tools let every one through: only
the policy separates them. Doing all of them (the literal reading) changes records the policy
protects; refusing all does none of the allowed part; copying one amount or adding every record's
gives another total. Many records go through, so the reference is long and none of its calls can
be dropped: each write is asked for, each read decides a record or gives one of the amounts.

Most requests also leave some of those records alone, named by a related record the way staff
think of them: "Leave out the orders of customers with loyalty tier gold: those stay as they are."
Which records that spares shows only on the related records (a third kind read), so the agent
reads who those customers are and skips their orders; they are neither done nor refused. Doing
them anyway (``exception_ignored``) changes records nobody asked to change.

Knobs: ``records`` (records the request covers), ``candidates`` (records matching its conditions),
``refused`` (those a staff rule forbids), ``filters``, ``policy_rules`` (rules relied on),
``computed`` (always 1), ``excepted`` (ids of the records the exception spares, [] without one),
``capped`` (ids the policy's cap on one request's refunds holds back, in the order taken),
``after_cap`` (whether a record still goes through after one the cap held back), ``measure`` (the
column added up where the world keeps no money on the records: a parcel's weight, a work order's
quantity; null for money), ``unpaid`` (nothing is paid yet on any record the operation may go
through for, so the total is of their own amount: checked-in visits' total charge), ``counted``
(where there is no measure either, the kind of record that references them whose rows are counted:
the comments on the tickets that went through) and ``waived`` (ids that go through in full under the
policy's waiver of the fee: preferred some and not all, so one rate kept on every record, or none,
gives another total).

Where the policy caps what one request refunds, the records are taken from the most recent down and
one whose refund would take the running total past the cap is refused by that rule while the next is
still looked at: the sweep keeps a running sum of computed refunds. Sweeps the cap holds back, with a
record going through after that, are preferred: cancelling everything the other rules allow
(``cap_ignored``) or stopping at the first record held back (``cap_stopped``) then scores 0.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from pipeline.policy.derive import recency_column, time_words
from pipeline.policy.fees import Source, money_column
from pipeline.runtime.task import Grounding, ToolCall
from pipeline.runtime.verify import AnswerCheck
from pipeline.tasks.context import Context
from pipeline.tasks.families._common import op_phrase, operations
from pipeline.tasks.families._settle import amounts, paid_on, settle, waiver_knobs
from pipeline.tasks.families.request import base_rules, decide_in_order, latest
from pipeline.tasks.filters import Filter, merge
from pipeline.tasks.model import MAX_REFERENCE_CALLS, Candidate, Skip
from pipeline.tasks.phrasing import sentence
from pipeline.tasks.words import field_words, plural_words
from pipeline.tools.specs import TransitionTool
from pipeline.world.schema import Column, Table

NAME = "sweep"
KNOBS = ("records", "candidates", "refused", "filters", "policy_rules", "computed", "excepted")
LEVELS: dict[int, dict[str, Any]] = {
    5: {
        "records": (7, 14),
        "allowed": 5,
        "policy": 1,
        "filters": 1,
        "except": 0.9,
        "kept": 4,
        "kinds": 3,
        "min_kinds": 3,
        "calls": 12,
    }
}
"""The top level only. ``records``: how many of the most recent matching records the request covers
(the matches are at least two more, all on one page); ``allowed``: at least this many go through;
``policy``: at least this many a staff rule refuses; ``filters``: conditions besides the status the
operation leaves (at most this many, fewest first); ``except``: how often the request also leaves
out the records of some related people or things ("leave out the orders of customers with loyalty
tier gold"), where such an exception exists; ``kept``: records that still go through after it;
``kinds`` and ``calls``: kinds of record the reference reads or writes and its calls, preferred (a
sweep short of them is kept only when none that meets both is found, and never one with under
``min_kinds``: a sweep over its records and their amounts alone, with no related record read, is a
loop, not a judgment)."""
TRIES = 30
COUNTS = {
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "eleven",
    12: "twelve",
    13: "thirteen",
    14: "fourteen",
}
PAGE = 50
"""Rows one list call returns: the matches fit on one page, so a ranked listing shows the covered ones."""


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    spec = LEVELS[level]
    low, high = spec["records"]
    pairs = [
        (table, op, when)
        for table in ctx.schema.tables
        if amounts(ctx, table, measure=True) is not None and (when := recency_column(ctx.schema, table)) is not None
        for op in operations(ctx, table)
        if ctx.policy.staff_rules(op.name)
    ]
    if not pairs:
        raise Skip("domain_lacks_ruled_operations")
    # Refunds under a cap are drawn three times as often: a running sum is judgment the others lack.
    pairs += [p for p in pairs if ctx.policy.cap(p[1].name) is not None] * 2
    taken: set[tuple[str, str, str, str]] = ctx.memo.setdefault("sweep_taken", set())
    fallback: tuple[int, Candidate, set[tuple[str, str, str, str]]] | None = None
    for _ in range(TRIES):
        table, op, when = rng.choice(pairs)
        k = rng.randint(low, high)
        status = table.column(str(op.status_column))
        state = Filter(status, "eq", rng.choice(op.allowed_from))
        rows = ctx.rows(table).where(state)
        if len(rows) < k + 2:
            continue
        filters = [state]
        for extra in range(spec["filters"] + 1):
            if extra:
                try:
                    filters = [
                        state,
                        *ctx.pick_filters(
                            rng, table, extra, rows, low=k + 2, high=PAGE, tries=6, exclude=frozenset({status.name})
                        ),
                    ]
                except Skip:
                    continue
            matched = rows.where(*filters)
            if k + 2 <= len(matched) <= PAGE:
                break
        else:
            continue
        chosen = latest(matched, when.name, k, first_differs=True)
        if chosen is None:
            continue
        # The same sweep reworded is not a new task: other conditions over the same records, or the
        # same conditions with another count (the six latest pending orders, then the seven latest).
        keys = {
            (table.name, op.name, "records", json.dumps(sorted(r["id"] for r in chosen))),
            (table.name, op.name, "conditions", json.dumps(merge(filters), sort_keys=True, default=str)),
        }
        if keys & taken:
            continue
        found = _judged(ctx, spec, op, table, chosen)
        if found is None:
            continue
        try:
            candidate = _build(ctx, rng, level, op, table, when, filters, len(matched), chosen, found)
        except Skip:
            continue  # this sweep's total is one amount (or has two readings): try another
        if len(candidate.solution) > MAX_REFERENCE_CALLS:
            continue  # longer than an agent's step budget allows
        kinds = len({ctx.specs[c.tool].table for c in candidate.solution})
        if kinds < spec["min_kinds"]:
            continue
        # Breadth and length first; then, where the fee is waived for some records, a sweep with waived
        # and unwaived records going through (the rarer); then, where refunds are capped, a sweep the
        # cap trims with a later record still going through.
        trimmed = bool(candidate.knobs["capped"]) and bool(candidate.knobs["after_cap"])
        merit = (
            4 * ((kinds >= spec["kinds"]) + (len(candidate.solution) >= spec["calls"]))
            + 2 * _mixed(ctx, op, candidate)
            + (trimmed or ctx.policy.cap(op.name) is None)
        )
        if merit == 11:
            taken |= keys
            return candidate
        if fallback is None or merit > fallback[0]:
            fallback = (merit, candidate, keys)
    if fallback is None:
        raise Skip("no_sweep_subject")
    taken |= fallback[2]
    return fallback[1]


def _mixed(ctx: Context, op: TransitionTool, candidate: Candidate) -> bool:
    """Whether the records that go through come back at more than one rate, where the policy has a
    waiver of the fee or a late line's larger one: some in full, some less the fee, some less the
    larger fee. One rate for every record then gives another total."""
    if ctx.policy.waiver(op.name) is None and ctx.policy.late(op.name) is None:
        return True
    through = candidate.knobs["records"] - candidate.knobs["refused"] - len(candidate.knobs["excepted"])
    full, late = len(candidate.knobs["waived"]), len(candidate.knobs.get("late", []))
    return sum(n > 0 for n in (full, late, through - full - late)) >= 2


def _judged(
    ctx: Context, spec: dict[str, Any], op: TransitionTool, table: Table, matched: list[dict[str, Any]]
) -> list[tuple[str, Any]] | None:
    """Each record's decision, when enough go through and enough a staff rule refuses."""
    decisions = decide_in_order(ctx, op, table, matched)  # the most recent first: a history rule counts earlier ones
    kinds = [k for k, _ in decisions]
    if kinds.count("allowed") < spec["allowed"] or kinds.count("policy") < spec["policy"] or "status" in kinds:
        return None
    return decisions


def _build(
    ctx: Context,
    rng: random.Random,
    level: int,
    op: TransitionTool,
    table: Table,
    when: Column,
    filters: list[Filter],
    pool: int,
    matched: list[dict[str, Any]],
    decisions: list[tuple[str, Any]],
) -> Candidate:
    source = amounts(ctx, table, measure=True)
    if source is None:
        raise Skip("table_lacks_amount")
    paid = source
    allowed = [r for r, (kind, _) in zip(matched, decisions, strict=True) if kind == "allowed"]
    source = _before_payment(ctx, op, table, source, allowed)
    args = merge(filters)
    calls: list[ToolCall] = [
        ctx.list_call(table, {**args, "order_by": when.name, "descending": True, "limit": len(matched)})
    ]
    spared = _exception(ctx, rng, LEVELS[level], table, source, matched, decisions)
    kept = [(r, d) for r, d in zip(matched, decisions, strict=True) if spared is None or r["id"] not in spared.records]
    if spared is not None:
        calls += spared.calls
    rules = base_rules(ctx, op, table)
    fee = ctx.policy.fee(op.name)
    if fee is not None:
        rules.add(fee.id)
    deciding: list[int] = []
    tally = settle(ctx, op, source, [r for r, _ in kept], [d for _, d in kept], calls, deciding, rules)
    total, refused = tally.total, tally.refused
    through = sum(kind == "allowed" for _, (kind, _) in kept) - len(tally.capped)
    if tally.capped and (through < 3 or len(tally.capped) > through):
        raise Skip("cap_holds_back_most")  # a sweep is mostly done, the cap trims it
    conditions = ctx.conditions(rng, filters, relative=False)
    money = source.column.semantic == "money"  # else a measure the batch adds up (a weight, a count)
    text = [
        ctx.phrases.render(
            rng,
            NAME,
            NAME,
            count=COUNTS[len(matched)],
            plural=plural_words(table),
            conditions=conditions,
            time=time_words(when),
            action=op_phrase(ctx, rng, op, table, "each of them"),
        ),
        *([] if spared is None else [spared.words(ctx, rng, table, COUNTS[len(matched)])]),
        _total_phrase(ctx, rng, source, fee is not None),
        ctx.phrases.render(rng, "case", _answer_form(source), noun=table.noun),
    ]
    expected = {"total": float(round(total, 2)), "refused": refused}
    knobs = {
        "records": len(matched),
        "candidates": pool,
        "refused": len(refused),
        "partial": True,  # some records go through and at least one is refused
        "filters": len(filters),
        "policy_rules": len(rules),
        "rule_ids": sorted(rules, key=lambda r: int(r[1:])),
        "computed": 1,
        "measure": None if money or source.count else source.column.name,
        "counted": source.table.name if source.count else None,
        "unpaid": source is not paid,  # nothing paid yet on any of them: their own amount instead
        "excepted": [] if spared is None else sorted(spared.records),
        "capped": tally.capped,
        "after_cap": tally.after_cap,
        "operation": op.name,
        "ids_given": False,
        "decides": deciding,
        # What doing everything asked gives (the literal reading), and the total before the fee.
        "literal_answer": json.dumps({"total": float(round(tally.every, 2)), "refused": []}),
        "gross_answer": json.dumps({**expected, "total": float(round(tally.gross, 2))}),
        **waiver_knobs(tally, expected),
    }
    check = AnswerCheck(kind="report", expected=expected)
    grounding = [Grounding(tool=ctx.need_tool("list", table), arguments=args, total=pool)]
    instruction = " ".join(sentence(t) for t in text)
    return Candidate(NAME, level, knobs, instruction, calls, json.dumps(expected), check, grounding=grounding)


@dataclass(frozen=True)
class Spared:
    """The records a sweep's request leaves alone, named by a related record ("the orders of customers
    with loyalty tier gold", "the payments of owners in Springfield" two references away), and the
    reads that show which those are."""

    parent: Table
    filter: Filter
    records: frozenset[int]
    calls: tuple[ToolCall, ...]

    def words(self, ctx: Context, rng: random.Random, table: Table, count: str) -> str:
        return ctx.phrases.render(
            rng,
            NAME,
            "except",
            count=count,
            plural=plural_words(table),
            parents=plural_words(self.parent),
            conditions=ctx.condition(rng, self.filter, relative=False),
        )


Path_ = tuple[Column, ...]
"""References from the swept table to the table an exception names: one (an order's customer) or two
(a payment's visit, then the visit's owner)."""
FAR = 4
"""At most this many records named two references away: the reference lists the middle records of
each (one call apiece), as an agent would."""


def _paths(ctx: Context, table: Table, depth: int = 3) -> dict[str, list[Path_]]:
    """Every path of up to ``depth`` references from ``table`` (never back through it), by the table
    it ends at: an exception is named only where they all agree, and read along one of two at most."""
    found: dict[str, list[Path_]] = {}
    frontier: list[Path_] = [(fk,) for fk in table.foreign_keys]
    while frontier:
        path = frontier.pop(0)
        end = ctx.parent_of(path[-1])
        found.setdefault(end.name, []).append(path)
        if len(path) < depth and end.name != table.name:
            frontier += [(*path, fk) for fk in end.foreign_keys if str(fk.references) != table.name]
    return found


def _reach(ctx: Context, row: dict[str, Any], path: Path_) -> Any:
    """The id ``path`` leads to from ``row`` (None where a reference is empty)."""
    at: Any = row
    for i, fk in enumerate(path):
        value = at[fk.name]
        if value is None or i == len(path) - 1:
            return value
        at = ctx.row(ctx.parent_of(fk), value)
    return None


def _exception(
    ctx: Context,
    rng: random.Random,
    spec: dict[str, Any],
    table: Table,
    source: Source,
    matched: list[dict[str, Any]],
    decisions: list[tuple[str, Any]],
) -> Spared | None:
    """An exception the request may carry (``spec["except"]`` of the time, where one exists): a
    condition on a related table that spares at least one record the policy would let through and
    leaves ``spec["kept"]`` going through and a staff refusal among the rest. The related table is
    one with a single reading: every path to it from each record leads to the same row (a fine's
    member and its loan's member may differ, so "the fines of members ..." is not asked)."""
    if rng.random() >= spec["except"]:
        return None
    options = []
    for target, paths in _paths(ctx, table).items():
        parent = ctx.schema.table(target)
        if target in (table.name, source.table.name) or ctx.tool("list", parent) is None:
            continue
        if not ctx.filter_columns(parent):
            continue
        path = min(paths, key=len)
        if len(path) > 2 or (len(path) == 2 and path[1].name not in ctx.filterable(ctx.parent_of(path[0]))):
            continue
        # Where each matched record leads by every path (one row per record: its targets by path).
        reached = [[_reach(ctx, r, p) for p in paths] for r in matched]
        if any(len(set(ends) - {None}) > 1 for ends in reached):
            continue  # two readings
        options.append((parent, path, [ends[paths.index(path)] for ends in reached]))
    for _ in range(6 if options else 0):
        parent, path, targets = rng.choice(options)
        far = len(path) == 2
        rows = ctx.rows(parent)
        try:
            (condition,) = ctx.pick_filters(rng, parent, 1, rows, high=FAR if far else PAGE, tries=4)
        except Skip:
            continue
        ids = {r["id"] for r in rows.where(condition)}
        judged = list(zip(matched, decisions, targets, strict=True))
        spared = [(r, kind) for r, (kind, _), end in judged if end in ids]
        kinds = [kind for _, (kind, _), end in judged if end not in ids]
        if (
            not 1 <= len(spared) <= len(matched) // 3
            or all(kind != "allowed" for _, kind in spared)
            or kinds.count("allowed") < spec["kept"]
            or kinds.count("policy") < spec["policy"]
        ):
            continue
        named, calls = ctx.fetch_all(parent, merge([condition]))
        if far:  # the middle records of each one named: which swept records hang under them
            middle = ctx.parent_of(path[0])
            for one in named:
                calls += ctx.fetch_all(middle, {path[1].name: one["id"]})[1]
        return Spared(parent, condition, frozenset(r["id"] for r, _ in spared), tuple(calls))
    return None


def _before_payment(
    ctx: Context, op: TransitionTool, table: Table, source: Source, allowed: list[dict[str, Any]]
) -> Source:
    """The record's own amount where nothing has been paid yet on any record the operation may go
    through for (visits checked in before they are paid: staff ask for their total charge), unless
    the operation refunds (nothing paid is nothing to give back); else ``source`` as it is."""
    own = money_column(table)
    if source.via is None or own is None or ctx.policy.fee(op.name) is not None or not allowed:
        return source
    if any(value for row in allowed for value in paid_on(ctx, source, row, strict=False)[0]):
        return source
    return Source(own, table)


def _answer_form(source: Source) -> str:
    """The answer's wording: an amount to the cent, a count, or a measure's sum."""
    return "answer_count" if source.count else "answer" if source.column.semantic == "money" else "answer_measure"


def _total_phrase(ctx: Context, rng: random.Random, source: Source, refunds: bool) -> str:
    if refunds:
        return ctx.phrases.render(rng, NAME, "refund")
    amount = field_words(source.column)
    if source.count:
        return ctx.phrases.render(rng, NAME, "total_count", items=source.table.plural)
    if source.via is None:
        return ctx.phrases.render(rng, NAME, "total_own", amount=amount)
    return ctx.phrases.render(rng, NAME, "total_items", amount=amount, items=source.table.plural)
