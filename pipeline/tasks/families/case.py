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

Where the person also owns records of another kind, the same message asks for an operation on
their latest one ("Also, please cancel my most recent reservation."), judged by the policy like the
rest (its refusal joins the list; it adds nothing to the total), as real messages bundle wishes.

Every shortcut a policy without judgment takes loses: doing all four (the tools let it) changes a
record the policy protects; taking the first records listed acts on the wrong ones; copying one
amount, or adding every record's, gives another total; refusing only does none of the allowed part.

Knobs: ``records`` (records the request covers), ``refused`` (those the operation may not go
through for), ``policy_rules`` (rules relied on), ``candidates`` (people sharing the name plus the
person's records), ``computed`` (a value no single tool returns: always 1), ``extra_wish``,
``second`` (the second request's operation and record, or null), ``waived`` (the records that go
through in full under the policy's waiver of the fee), ``claim`` ("true" or "false" where the
person claims the waiver covers them all: the agent checks it; null where they do not), ``claim_form``
("standing": their standing on their own record, or "recent": the records' dates), ``all_records``
(the request covers every record of that kind the person has: "both of my dues payments", asked
where nobody in a small world has more records than the request covers).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from pipeline.policy.fees import Source
from pipeline.policy.model import Rule
from pipeline.runtime.task import ToolCall
from pipeline.runtime.verify import AnswerCheck
from pipeline.tasks.context import Context
from pipeline.tasks.families._claims import claim
from pipeline.tasks.families._common import op_call, operations
from pipeline.tasks.families._settle import Tally, amounts, comes_to, paid_on, settle, waived, waiver_knobs
from pipeline.tasks.families.request import (
    COUNTS,
    CUSTOMER_VERBS,
    MAX_MIDDLE,
    Subject,
    _action,
    _decide,
    _find_calls,
    _identify,
    _owned,
    _subjects,
    _unreachable,
    agrees,
    base_rules,
    decide_in_order,
    extra_wish,
    judge,
    latest,
    refusal,
    search,
)
from pipeline.tasks.model import Candidate, Skip
from pipeline.tasks.phrasing import sentence
from pipeline.tasks.words import field_words
from pipeline.tools.specs import TransitionTool  # every op here is an operation's tool
from pipeline.world.schema import Table

NAME = "case"
KNOBS = ("records", "refused", "partial", "policy_rules", "candidates", "computed", "extra_wish")
LEVELS: dict[int, dict[str, Any]] = {5: {"records": (4, 3, 2), "allowed": 1, "policy": 1}}
"""The top level only: levels 0-4 of the other families are the ramp below it. ``records``: how
many of the person's latest records the request covers (tried in a seeded order); ``allowed``: at
least this many go through; ``policy``: at least this many are refused by a staff rule the tools
would not enforce (among the records where the person has such, else the second request is one).
Whatever the counts, the total is a sum no single record or listing shows."""


def _accept(ctx: Context, spec: dict[str, Any], policy: int) -> Any:
    def accept(op: TransitionTool, table: Table, chosen: list[dict[str, Any]], kinds: list[str]) -> bool:
        if amounts(ctx, table) is None:
            return False
        if kinds.count("allowed") < spec["allowed"] or kinds.count("policy") < policy:
            return False
        if not all(k != "status" or _unreachable(ctx, op, table, r) for r, k in zip(chosen, kinds, strict=True)):
            return False
        return _computed(ctx, op, table, chosen, kinds)

    return accept


def _computed(ctx: Context, op: TransitionTool, table: Table, chosen: list[dict[str, Any]], kinds: list[str]) -> bool:
    """Whether what the records that go through come to is a value no single amount shows (:func:`settle`
    on scratch lists), checked while searching, so a person whose total one amount would give is
    passed over, not the attempt lost."""
    source = amounts(ctx, table)
    if source is None:
        return False
    try:
        settle(ctx, op, source, chosen, [(k, None) for k in kinds], [], [], set())
    except Skip:
        return False
    return True


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
    known = frozenset({(person.name, found.prow["id"])})  # the person's record, read to find them
    tally = settle(ctx, op, source, chosen, found.decisions, calls, deciding, rules, known)
    total, every, gross, refused = tally.total, tally.every, tally.gross, tally.refused
    org = person.column(person.label).semantic == "company"
    staff = op.name.split("_")[0] not in CUSTOMER_VERBS
    # A staff rule must refuse something: one of the records, else the second request.
    ruled = any(kind == "policy" for kind, _ in found.decisions)
    second = second_request(ctx, rng, found, staff, fee is not None, None if ruled else "policy")
    if not ruled and second is None:
        raise Skip("no_policy_refusal")
    literal_refused = [r for r in refused if r["cannot"] != "policy"]
    ours = len(refused)  # the first part's refusals; the second request's follows
    if second is not None and (one := judge_second(ctx, second, calls, deciding, rules)) is not None:
        refused.append(one)
    mine = "their" if staff else "our" if org else "my"
    whole = len(chosen) == len(found.mine)  # all they have: "latest" would hint at others
    form = "many" if not whole else "both" if len(chosen) == 2 else "all"
    subject = ctx.phrases.render(rng, "request", form, count=COUNTS[len(chosen)], plural=table.plural, my=mine)
    text = [
        ctx.phrases.render(rng, "request", "relayed" if staff else "hello_org" if org else "hello", who=who),
        ctx.phrases.render(rng, "request", "wish", action=_action(op, table, subject)),
        _total_phrase(ctx, rng, source, staff, fee is not None),
    ]
    if second is not None:
        one_of = ctx.phrases.render(rng, "request", "one", noun=second.table.noun, my=mine)
        form = "second_relayed" if staff else "second"
        text.append(ctx.phrases.render(rng, NAME, form, action=_action(second.op, second.table, one_of)))
    wish = extra_wish(ctx, rng, person, found.prow, by, staff, mine)
    if wish is not None:
        calls.append(wish[0])
        text.append(wish[1])
    noun = table.noun if second is None else f"{table.noun} or {second.table.noun}"
    text.append(ctx.phrases.render(rng, NAME, "answer", noun=noun))
    expected = {"total": float(round(total, 2)), "refused": refused}
    said = _claim(ctx, rng, found, source, staff, tally, expected, ours) if fee is not None else {}
    if said:
        text.insert(3, said.pop("text"))  # after what they ask to get back
    # What doing everything asked gives (the literal reading: a staff rule's refusal of the second
    # record dropped too), and what the first records listed give (the second part done right).
    if second is not None and second.kind == "status":
        literal_refused.append(refused[-1])
    literal = {"total": float(round(every, 2)), "refused": literal_refused}
    first = _first_answer(ctx, found, source)
    if second is not None and second.kind != "allowed":
        first["refused"].append(refused[-1])
    knobs = {
        "records": len(chosen),
        "refused": len(refused),
        "partial": True,  # at least one record goes through and one is refused
        "policy_rules": len(rules),
        "rule_ids": sorted(rules, key=lambda r: int(r[1:])),
        "candidates": shared + found.owned + (second.owned if second is not None else 0),
        "computed": 1,
        "extra_wish": wish is not None,
        "all_records": whole,
        "capped": tally.capped,
        "after_cap": tally.after_cap,
        "operation": op.name,
        "second": None if second is None else {"operation": second.op.name, "id": second.row["id"]},
        "ids_given": False,
        "decides": deciding,
        "literal_answer": json.dumps(literal),
        "first_answer": json.dumps(first),
        # What forgetting the fee gives: the amounts paid on the records that went through.
        "gross_answer": json.dumps({**expected, "total": float(round(gross, 2))}),
        **waiver_knobs(tally, expected),
        "claim": said.get("claim"),
        "claim_form": said.get("claim_form"),
        **({"believed_answer": said["believed_answer"]} if "believed_answer" in said else {}),
    }
    check = AnswerCheck(kind="report", expected=expected)
    grounding = [ctx.ground(person, by)]
    instruction = " ".join(sentence(t) for t in text)
    return Candidate(NAME, level, knobs, instruction, calls, json.dumps(expected), check, grounding=grounding)


def _claim(
    ctx: Context,
    rng: random.Random,
    found: Subject,
    source: Source,
    staff: bool,
    tally: Tally,
    expected: dict[str, Any],
    ours: int,
) -> dict[str, Any]:
    """The person's claim that the fee's waiver covers all their records (:mod:`._claims`), where it
    matters: its sentence, whether it holds (``claim``: "true" or "false") and, where it does not,
    the answer of someone who believed it (every record that goes through given back in full; the
    cap then weighs full refunds). Empty where no claim fits or it would change nothing."""
    said = claim(ctx, rng, found.op, found.person, found.prow, found.chosen, staff)
    if said is None:
        return {}
    # The same records the reference's settle took without a skip: believing changes only the fee.
    believed = settle(ctx, found.op, source, found.chosen, found.decisions, [], [], set(), believe=True)
    answer = {"total": float(round(believed.total, 2)), "refused": believed.refused + expected["refused"][ours:]}
    if answer == expected:
        # True: it matters only where the waiver changes the total (never believing gives less).
        return {"text": said.text, "claim": "true", "claim_form": said.form} if tally.waived else {}
    return {"text": said.text, "claim": "false", "claim_form": said.form, "believed_answer": json.dumps(answer)}


@dataclass(frozen=True)
class Second:
    """A second request in the same message: an operation on the person's latest record of another table."""

    table: Table
    op: TransitionTool
    row: dict[str, Any]
    kind: str
    rule: Rule | None
    finding: list[ToolCall]
    owned: int


def second_request(
    ctx: Context, rng: random.Random, found: Subject, staff: bool, refunds: bool, want: str | None = None
) -> Second | None:
    """The person's latest record of another table they own and an operation on it the policy
    judges (allowed, refused by a staff rule, or refused by a status no legal path leaves), one a
    customer asks for where they write in themselves (staff relay anything), with no refund of its
    own where the first part asks what comes back (the total is about the first records alone);
    None where the person has none (or none with a decision of the kind ``want`` names)."""
    taken = ctx.memo.setdefault("case_taken", set())
    owner = found.prow["id"]
    subjects = [s for s in _subjects(ctx) if s[0].name != found.table.name and ctx.parent_of(s[1][-1]) == found.person]
    rng.shuffle(subjects)
    for table, path, when in subjects:
        if not agrees(ctx, table, path, owner):
            continue
        mine = _owned(ctx, table, path).get(owner, [])
        newest = latest(mine, when.name, 1)
        if not newest:
            continue  # none, or a tie gives "latest" two readings
        row = newest[0]
        if row["id"] in {r["id"] for r in found.chosen}:
            continue  # a refusal names a record by id alone: two records with one id would read alike
        ops = [
            o
            for o in operations(ctx, table)
            if ctx.policy.staff_rules(o.name)
            and not (refunds and ctx.policy.fee(o.name) is not None)
            and (staff or o.name.split("_")[0] in CUSTOMER_VERBS)  # staff pass on anything, a customer asks for theirs
            and (table.name, owner, o.name) not in taken
        ]
        rng.shuffle(ops)
        for op in ops:
            kind, rule = _decide(ctx, op, table, row)
            if (kind == "status" and not _unreachable(ctx, op, table, row)) or (want is not None and kind != want):
                continue
            finding = _find_calls(ctx, table, path, when, owner, [row])
            if finding is None:
                break
            taken.add((table.name, owner, op.name))
            return Second(table, op, row, kind, rule, finding, len(mine))
    return None


def judge_second(
    ctx: Context, second: Second, calls: list[ToolCall], deciding: list[int], rules: set[str]
) -> dict[str, Any] | None:
    """The reference's part for a second request: the reads that find the record (unless an earlier
    call already listed them), the reads its staff rules need, then the operation where the policy
    lets it through (appended to ``calls``, ``deciding`` and ``rules``); its refusal object, or None."""
    rules |= base_rules(ctx, second.op, second.table)
    calls += [c for c in second.finding if not _listed(c, calls)]
    judge(ctx, second.op, second.row, second.kind, calls, deciding, rules)
    if second.kind == "allowed":
        calls.append(op_call(second.op, second.row["id"]))
        return None
    return refusal(second.op, second.row, second.kind, second.rule)


def _listed(call: ToolCall, calls: list[ToolCall]) -> bool:
    """Whether an earlier call already listed every record ``call`` ranks (the person's records of a
    middle table, all on one page, when the first part went through them): no second read needed."""
    plain = {k: v for k, v in call.arguments.items() if k not in ("order_by", "descending", "limit")}
    return any(
        c.tool == call.tool
        and {k: v for k, v in c.arguments.items() if k != "limit"} == plain
        and int(c.arguments.get("limit", MAX_MIDDLE)) >= MAX_MIDDLE  # a first page that holds all of them
        for c in calls
    )


def _search(ctx: Context, rng: random.Random, sizes: list[int], spec: dict[str, Any]) -> Subject:
    """A person and records for the first size (in the seed's order) that has one; one task per
    person and operation in a bundle (``ctx.memo``), not the same request reworded."""
    taken = ctx.memo.setdefault("case_taken", set())
    # Last, where nobody's latest records differ from the first ones listed (a small world: most
    # people have few records), a person whose latest are also their first, or all they have.
    tries = [(size, spec["policy"], True) for size in sizes] + [(size, 0, True) for size in sizes]
    tries += [(size, spec["policy"], False) for size in sizes]
    for size, policy, differs in tries[:-1]:
        try:
            return search(ctx, rng, size, _accept(ctx, spec, policy), first_differs=differs, taken=taken)
        except Skip:
            continue
    size, policy, differs = tries[-1]
    return search(ctx, rng, size, _accept(ctx, spec, policy), first_differs=differs, taken=taken)


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
    for row, (kind, rule) in zip(first, decide_in_order(ctx, found.op, found.table, first), strict=True):
        if kind == "allowed":
            free = waived(ctx, found.op, row)[0]
            total += comes_to(ctx, found.op, paid_on(ctx, source, row, strict=False)[0], free, row)
        elif (one := refusal(found.op, row, kind, rule)) is not None:
            refused.append(one)
    return {"total": float(round(total, 2)), "refused": refused}
