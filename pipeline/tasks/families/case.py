"""The top level: one message from a person that needs the whole policy, a choice and a sum.

"Hi, this is Dana Whitfield. Please cancel my four latest orders, and tell me what the payments
on the ones that went through come to. Also, please change my loyalty tier to gold." The agent
finds the person (a shared name told apart by what they add), takes their records by the
policy's priority rule (their latest, which a plain listing does not put first), decides for
each whether the operation may go through (its status, and every staff rule: an amount over a
limit, a window of days, a related record), carries it out where allowed, refuses the rest one
record at a time naming the rule or status, reads what was paid (or owed) on each record that
went through and adds it up, and makes the second change. The answer is one object:
``{"total": 312.40, "refused": [{"cannot": "policy", "id": 7, "value": "P5"}]}``.

Every shortcut a policy without judgment takes loses: doing all four (the tools let it) changes a
record the policy protects; taking the first records listed acts on the wrong ones; copying one
amount, or adding every record's, gives another total; refusing only does none of the allowed part.

Knobs: ``records`` (records the request covers), ``refused`` (those the operation may not go
through for), ``policy_rules`` (rules relied on), ``candidates`` (people sharing the name plus the
person's records), ``computed`` (a value no single tool returns: always 1), ``extra_wish``.
"""

from __future__ import annotations

import json
import random
from decimal import Decimal
from typing import Any

from pipeline.policy.fees import Source, amount_source, refund
from pipeline.runtime.task import ToolCall
from pipeline.runtime.verify import AnswerCheck
from pipeline.tasks.context import Context
from pipeline.tasks.families._common import op_call
from pipeline.tasks.families.request import (
    COUNTS,
    CUSTOMER_VERBS,
    Subject,
    _action,
    _decide,
    _identify,
    _unreachable,
    base_rules,
    extra_wish,
    judge,
    refusal,
    search,
)
from pipeline.tasks.model import Candidate, Skip
from pipeline.tasks.phrasing import sentence
from pipeline.tasks.words import field_words
from pipeline.tools.specs import ToolSpec
from pipeline.world.schema import Table

NAME = "case"
KNOBS = ("records", "refused", "partial", "policy_rules", "candidates", "computed", "extra_wish")
LEVELS: dict[int, dict[str, Any]] = {5: {"records": (4, 3, 2), "allowed": 1, "policy": 1}}
"""The top level only: levels 0-4 of the other families are the ramp below it. ``records``: how
many of the person's latest records the request covers (tried in a seeded order); ``allowed``: at
least this many go through; ``policy``: at least this many are refused by a staff rule the tools
would not enforce. Whatever the counts, the total is a sum no single record or listing shows."""
MAX_ITEMS = 20
"""At most this many amounts per record that went through (one page of a listing)."""


def amounts(ctx: Context, table: Table) -> Source | None:
    """Where the person's "what it comes to" is read (:func:`pipeline.policy.fees.amount_source`), if
    the tools can read it one record at a time (once per table: the search asks for every candidate)."""
    key = ("case_amounts", table.name)
    if key not in ctx.memo:
        source = amount_source(ctx.schema, table)
        readable = source is not None and (source.via is None or source.via.name in ctx.filterable(source.table))
        ctx.memo[key] = source if readable else None
    found: Source | None = ctx.memo[key]
    return found


def _paid(ctx: Context, source: Source, row: dict[str, Any]) -> tuple[list[Decimal], list[ToolCall]]:
    """The amounts on one record, and the reads that show them (none for its own amount)."""
    if source.via is None:
        return [Decimal(str(row[source.column.name]))], []
    items, calls = ctx.fetch_all(source.table, {source.via.name: row["id"]})
    return [Decimal(str(r[source.column.name])) for r in items if r[source.column.name] is not None], calls


def _comes_to(ctx: Context, op: ToolSpec, values: list[Decimal]) -> Decimal:
    """What a record with these amounts comes to (less the policy's fee where the operation refunds)."""
    gross = sum(values, Decimal(0))
    fee = ctx.policy.fee(op.name)
    return refund(gross, fee) if fee is not None else gross


def _accept(ctx: Context, spec: dict[str, Any]) -> Any:
    def accept(op: ToolSpec, table: Table, chosen: list[dict[str, Any]], kinds: list[str]) -> bool:
        if amounts(ctx, table) is None:
            return False
        if kinds.count("allowed") < spec["allowed"] or kinds.count("policy") < spec["policy"]:
            return False
        return all(k != "status" or _unreachable(ctx, op, table, r) for r, k in zip(chosen, kinds, strict=True))

    return accept


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    spec = LEVELS[level]
    sizes = list(spec["records"])
    rng.shuffle(sizes)
    found = _search(ctx, rng, sizes, spec)
    table, op, person, chosen = found.table, found.op, found.person, found.chosen
    source = amounts(ctx, table)
    if source is None:
        raise Skip("table_lacks_amount")
    who, by, shared = _identify(ctx, rng, person, found.prow)
    calls: list[ToolCall] = [ctx.list_call(person, by), *found.finding]
    rules = base_rules(ctx, op, table)
    fee = ctx.policy.fee(op.name)
    if fee is not None:
        rules.add(fee.id)
    deciding: list[int] = []
    refused: list[dict[str, Any]] = []
    total, every, gross, singles, summed = Decimal(0), Decimal(0), Decimal(0), set(), []
    for row, (kind, rule) in zip(chosen, found.decisions, strict=True):
        judge(ctx, op, row, kind, calls, deciding, rules)
        values, reads = _paid(ctx, source, row)
        comes_to = _comes_to(ctx, op, values)
        if len(values) > MAX_ITEMS:
            raise Skip("too_many_amounts")
        every += comes_to
        singles |= set(values)
        if kind == "allowed":
            calls.append(op_call(op, row["id"]))
            calls += reads
            total += comes_to
            gross += sum(values, Decimal(0))
            summed += values
        elif (one := refusal(op, row, kind, rule)) is not None:
            refused.append(one)
    if (len(summed) < 2 and fee is None) or total in singles or total == 0:
        raise Skip("total_not_computed")  # one amount copied would be right
    org = person.column(person.label).semantic == "company"
    staff = op.name.split("_")[0] not in CUSTOMER_VERBS
    mine = "their" if staff else "our" if org else "my"
    subject = ctx.phrases.render(rng, "request", "many", count=COUNTS[len(chosen)], plural=table.plural, my=mine)
    text = [
        ctx.phrases.render(rng, "request", "relayed" if staff else "hello_org" if org else "hello", who=who),
        ctx.phrases.render(rng, "request", "wish", action=_action(op, table, subject)),
        _total_phrase(ctx, rng, source, staff, fee is not None),
    ]
    wish = extra_wish(ctx, rng, person, found.prow, by, staff, mine)
    if wish is not None:
        calls.append(wish[0])
        text.append(wish[1])
    text.append(ctx.phrases.render(rng, NAME, "answer", noun=table.noun))
    expected = {"total": float(round(total, 2)), "refused": refused}
    # What doing everything asked gives (the literal reading), and what the first records listed give.
    literal = {"total": float(round(every, 2)), "refused": [r for r in refused if r["cannot"] != "policy"]}
    knobs = {
        "records": len(chosen),
        "refused": len(refused),
        "partial": True,  # at least one record goes through and one is refused
        "policy_rules": len(rules),
        "rule_ids": sorted(rules, key=lambda r: int(r[1:])),
        "candidates": shared + found.owned,
        "computed": 1,
        "extra_wish": wish is not None,
        "operation": op.name,
        "ids_given": False,
        "decides": deciding,
        "literal_answer": json.dumps(literal),
        "first_answer": json.dumps(_first_answer(ctx, found, source)),
        # What forgetting the fee gives: the amounts paid on the records that went through.
        "gross_answer": json.dumps({**expected, "total": float(round(gross, 2))}),
    }
    check = AnswerCheck(kind="report", expected=expected)
    grounding = [ctx.ground(person, by)]
    instruction = " ".join(sentence(t) for t in text)
    return Candidate(NAME, level, knobs, instruction, calls, json.dumps(expected), check, grounding=grounding)


def _search(ctx: Context, rng: random.Random, sizes: list[int], spec: dict[str, Any]) -> Subject:
    """A person and records for the first size (in the seed's order) that has one; one task per
    person and operation in a bundle (``ctx.memo``), not the same request reworded."""
    taken = ctx.memo.setdefault("case_taken", set())
    for size in sizes[:-1]:
        try:
            return search(ctx, rng, size, _accept(ctx, spec), first_differs=True, taken=taken)
        except Skip:
            continue
    return search(ctx, rng, sizes[-1], _accept(ctx, spec), first_differs=True, taken=taken)


def _total_phrase(ctx: Context, rng: random.Random, source: Source, staff: bool, refunds: bool) -> str:
    if refunds:
        return ctx.phrases.render(rng, NAME, "refund_relayed" if staff else "refund")
    amount = field_words(source.column)
    if source.via is None:
        return ctx.phrases.render(rng, NAME, "total_own_relayed" if staff else "total_own", amount=amount)
    form = "total_items_relayed" if staff else "total_items"
    return ctx.phrases.render(rng, NAME, form, amount=amount, items=source.table.plural)


def _first_answer(ctx: Context, found: Subject, source: Source) -> dict[str, Any]:
    """The answer of someone who took the person's first records as listed (by id), not their latest."""
    first = sorted(found.mine, key=lambda r: r["id"])[: len(found.chosen)]
    total, refused = Decimal(0), []
    for row in first:
        kind, rule = _decide(ctx, found.op, found.table, row)
        if kind == "allowed":
            total += _comes_to(ctx, found.op, _paid(ctx, source, row)[0])
        elif (one := refusal(found.op, row, kind, rule)) is not None:
            refused.append(one)
    return {"total": float(round(total, 2)), "refused": refused}
