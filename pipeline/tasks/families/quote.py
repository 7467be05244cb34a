"""A person asks what part of a request the policy would let through, and what it comes to.

"Hi, this is Dana Whitfield. If I asked you to cancel my three latest orders, what would the
totals of the ones you are allowed to cancel add up to? Please don't change anything yet."
The agent finds the person and their latest records (the policy's priority rule), decides for
each whether the operation would go through (its status, and every staff rule: an amount, a
window of days, a related record), and adds up the amounts of those that would. No tool
returns that sum: a policy that copies one amount, that ignores the rules and adds every
record, or that takes the person's first records instead of their latest gets another number.
Nothing may change: a write fails the task.

Knobs: ``records`` (records asked about), ``refused`` (those the operation would not go
through for), ``policy_rules`` (rules relied on), ``candidates`` (people sharing the name plus
the person's records), ``computed`` (a value no single tool returns: always 1).
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

from pipeline.policy.fees import money_column
from pipeline.runtime.verify import AnswerCheck
from pipeline.tasks.context import Context
from pipeline.tasks.families.request import (
    COUNTS,
    CUSTOMER_VERBS,
    Subject,
    _action,
    _identify,
    _unreachable,
    base_rules,
    decide_in_order,
    judge,
    search,
)
from pipeline.tasks.model import Candidate, Skip
from pipeline.tasks.phrasing import sentence
from pipeline.tasks.words import field_words
from pipeline.tools.specs import TransitionTool
from pipeline.world.schema import Table

NAME = "quote"
KNOBS = ("records", "refused", "policy_rules", "candidates", "computed")
LEVELS: dict[int, dict[str, Any]] = {
    0: {"records": 2, "refused": 0},
    1: {"records": 2, "refused": 1},
    2: {"records": 3, "refused": 1},
    3: {"records": 3, "refused": 2},
    4: {"records": 4, "refused": 1},
}
"""``refused``: at least this many of the records would not go through (by policy or status)."""


def _accept(ctx: Context, refused: int) -> Any:
    def accept(op: TransitionTool, table: Table, chosen: list[dict[str, Any]], kinds: list[str]) -> bool:
        if money_column(table) is None or "allowed" not in kinds or len(kinds) - kinds.count("allowed") < refused:
            return False
        return all(k != "status" or _unreachable(ctx, op, table, r) for r, k in zip(chosen, kinds, strict=True))

    return accept


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    spec = LEVELS[level]
    # Above level 0 the first records a plain listing shows are not the latest: choosing matters.
    found: Subject = search(ctx, rng, spec["records"], _accept(ctx, spec["refused"]), first_differs=level > 0)
    table, op, person, chosen = found.table, found.op, found.person, found.chosen
    amount = money_column(table)
    if amount is None:
        raise Skip("table_lacks_amount")
    who, by, shared = _identify(ctx, rng, person, found.prow)
    calls = [ctx.list_call(person, by), *found.finding]
    total = Decimal(0)
    rules = base_rules(ctx, op, table)
    deciding: list[int] = []
    for row, (kind, _) in zip(chosen, found.decisions, strict=True):
        judge(ctx, op, row, kind, calls, deciding, rules)
        if kind == "allowed":
            total += Decimal(str(row[amount.name]))
    org = person.column(person.label).semantic == "company"
    staff = op.name.split("_")[0] not in CUSTOMER_VERBS  # relayed, as the request family does
    mine = "their" if staff else "our" if org else "my"
    subject = ctx.phrases.render(rng, "request", "many", count=COUNTS[len(chosen)], plural=table.plural, my=mine)
    hello = "relayed" if staff else "hello_org" if org else "hello"
    text = [
        ctx.phrases.render(rng, "request", hello, who=who),
        ctx.phrases.render(
            rng, NAME, "ask_relayed" if staff else "ask", action=_action(op, table, subject), amount=field_words(amount)
        ),
        ctx.phrases.render(rng, NAME, "answer_relayed" if staff else "answer"),
    ]
    answer = float(round(total, 2))
    # What taking the person's first records as listed (by id) instead of their latest would answer.
    mine_by_id = sorted(found.mine, key=lambda r: r["id"])[: len(chosen)]
    first = sum(
        (
            Decimal(str(r[amount.name]))
            for r, (kind, _) in zip(mine_by_id, decide_in_order(ctx, op, table, mine_by_id), strict=True)
            if kind == "allowed"
        ),
        Decimal(0),
    )
    if level > 0 and first == total:
        raise Skip("first_records_same_total")  # taking the first records listed would answer right
    knobs = {
        "records": len(chosen),
        "refused": sum(1 for kind, _ in found.decisions if kind != "allowed"),
        "policy_rules": len(rules),
        "candidates": shared + found.owned,
        "computed": 1,
        "operation": op.name,
        "ids_given": False,
        "decides": deciding,
        # What ignoring the policy would answer (every record's amount): the literal-compliance policy's number.
        "literal_answer": float(round(sum((Decimal(str(r[amount.name])) for r in chosen), Decimal(0)), 2)),
        "first_answer": float(round(first, 2)),
    }
    check = AnswerCheck(kind="number", expected=answer)
    return Candidate(
        NAME,
        level,
        knobs,
        " ".join(sentence(t) for t in text),
        calls,
        f"{answer:.2f}",
        check,
        grounding=[ctx.ground(person, by)],
    )
