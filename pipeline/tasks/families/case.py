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
through in full under the policy's waiver of the fee).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from pipeline.policy.fees import Source, amount_source, refund
from pipeline.policy.model import Rule, waives
from pipeline.runtime.task import ToolCall
from pipeline.runtime.verify import AnswerCheck
from pipeline.tasks.context import Context
from pipeline.tasks.families._common import op_call, operations
from pipeline.tasks.families.request import (
    COUNTS,
    CUSTOMER_VERBS,
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
from pipeline.world.sqlnames import quote_ident

NAME = "case"
KNOBS = ("records", "refused", "partial", "policy_rules", "candidates", "computed", "extra_wish")
LEVELS: dict[int, dict[str, Any]] = {5: {"records": (4, 3, 2), "allowed": 1, "policy": 1}}
"""The top level only: levels 0-4 of the other families are the ramp below it. ``records``: how
many of the person's latest records the request covers (tried in a seeded order); ``allowed``: at
least this many go through; ``policy``: at least this many are refused by a staff rule the tools
would not enforce (among the records where the person has such, else the second request is one).
Whatever the counts, the total is a sum no single record or listing shows."""
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


def _paid(
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


def _comes_to(ctx: Context, op: TransitionTool, values: list[Decimal], waived: bool = False) -> Decimal:
    """What a record with these amounts comes to (less the policy's fee where the operation refunds,
    unless the policy's waiver gives this record back in full)."""
    gross = sum(values, Decimal(0))
    fee = ctx.policy.fee(op.name)
    return refund(gross, fee, waived) if fee is not None else gross


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
    unwaived: Decimal = Decimal(0)
    """What the records that go through come to with the fee kept on every one (the waiver missed)."""
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
) -> Tally:
    """Judge each record in turn as the reference does: the reads its staff rules need, then the
    operation and the reads of its amounts where it goes through, else its refusal (appended to
    ``calls``, ``deciding`` and ``rules``). Under the policy's cap on one request's refunds, a record
    whose refund would take the running total past it is refused by that rule, in the order ``rows``
    come (the most recent first). Under its waiver, a record that goes through may come back in full:
    where that is read on the owner's record, the owner is read once (unless ``known``: (table, id)
    pairs the reference has already read). Skips where the total is not computed: one amount copied
    would give it (or it is zero), a record holds more amounts than one page shows, or the cap's
    order is tied."""
    tally, singles, summed = Tally(), set(), 0
    cap, waiver, seen = ctx.policy.cap(op.name), ctx.policy.waiver(op.name), set(known)
    for row, (kind, rule) in zip(rows, decisions, strict=True):
        judge(ctx, op, row, kind, calls, deciding, rules)
        values, reads = _paid(ctx, source, row, strict=kind == "allowed")
        if len(values) > MAX_ITEMS:
            raise Skip("too_many_amounts")
        free, owner = waived(ctx, op, row) if kind == "allowed" else (False, None)
        if kind == "allowed" and waiver is not None:
            rules.add(waiver.id)
            if owner is not None and waiver.via is not None and (owner.name, row[waiver.via]) not in seen:
                seen.add((owner.name, row[waiver.via]))
                deciding.append(len(calls))  # the owner's standing decides the fee
                calls.append(ctx.read_call(owner, row[waiver.via]))
        comes_to = _comes_to(ctx, op, values, free)
        tally.every += comes_to
        singles |= set(values)
        if kind == "allowed" and cap is not None:
            rules.add(cap.id)
            if tally.total + comes_to > Decimal(str(cap.limit)):
                deciding += range(len(calls), len(calls) + len(reads))  # its refund decides it
                calls += reads
                tally.capped.append(row["id"])
                tally.refused.append({"cannot": "policy", "id": row["id"], "value": cap.id})
                continue
            tally.after_cap = tally.after_cap or bool(tally.capped)
        if kind == "allowed":
            # Under a cap the refund is read first: it decides whether the record goes through.
            calls += [*reads, op_call(op, row["id"])] if cap is not None else [op_call(op, row["id"]), *reads]
            tally.total += comes_to
            kept = _comes_to(ctx, op, values)
            tally.unwaived += kept
            if kept != comes_to:  # waived, and something was paid on it
                tally.waived.append(row["id"])
            tally.gross += sum(values, Decimal(0))
            summed += len(values)
        elif (one := refusal(op, row, kind, rule)) is not None:
            tally.refused.append(one)
            if rule is not None and rule.kind == "history":
                tally.history.append(row["id"])
    if (summed < 2 and ctx.policy.fee(op.name) is None) or tally.total in singles or tally.total == 0:
        raise Skip("total_not_computed")  # one amount copied would be right
    if tally.capped and cap is not None and not _ranked(rows, decisions, str(cap.column)):
        raise Skip("cap_order_tied")  # "from the most recent down" has two readings
    return tally


def waiver_knobs(tally: Tally, expected: dict[str, Any]) -> dict[str, Any]:
    """The records the policy's waiver gives back in full, the answer of someone who kept the fee on
    every record (the waiver missed) where that differs, and the records a history rule refuses."""
    knobs: dict[str, Any] = {"waived": tally.waived, "history_refused": tally.history}
    if tally.waived:
        knobs["unwaived_answer"] = json.dumps({**expected, "total": float(round(tally.unwaived, 2))})
    return knobs


def _ranked(rows: list[dict[str, Any]], decisions: list[tuple[str, Rule | None]], when: str) -> bool:
    """Whether the records a cap weighs (the ones the other rules let through) come in one order
    by recency: no two share a time, so "from the most recent down" has one reading."""
    times = [str(r[when]) for r, (kind, _) in zip(rows, decisions, strict=True) if kind == "allowed"]
    return len(set(times)) == len(times) and times == sorted(times, reverse=True)


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
    second = _second(ctx, rng, found, staff, fee is not None, None if ruled else "policy")
    if not ruled and second is None:
        raise Skip("no_policy_refusal")
    literal_refused = [r for r in refused if r["cannot"] != "policy"]
    if second is not None:
        rules |= base_rules(ctx, second.op, second.table)
        calls += [c for c in second.finding if not _listed(c, calls)]
        judge(ctx, second.op, second.row, second.kind, calls, deciding, rules)
        if second.kind == "allowed":
            calls.append(op_call(second.op, second.row["id"]))
        elif (one := refusal(second.op, second.row, second.kind, second.rule)) is not None:
            refused.append(one)
    mine = "their" if staff else "our" if org else "my"
    subject = ctx.phrases.render(rng, "request", "many", count=COUNTS[len(chosen)], plural=table.plural, my=mine)
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
    }
    check = AnswerCheck(kind="report", expected=expected)
    grounding = [ctx.ground(person, by)]
    instruction = " ".join(sentence(t) for t in text)
    return Candidate(NAME, level, knobs, instruction, calls, json.dumps(expected), check, grounding=grounding)


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


def _second(
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


def _listed(call: ToolCall, calls: list[ToolCall]) -> bool:
    """Whether an earlier call already listed every record ``call`` ranks (the person's records of a
    middle table, all on one page, when the first part went through them): no second read needed."""
    plain = {k: v for k, v in call.arguments.items() if k not in ("order_by", "descending", "limit")}
    return any(c.tool == call.tool and dict(c.arguments) == plain for c in calls)


def _search(ctx: Context, rng: random.Random, sizes: list[int], spec: dict[str, Any]) -> Subject:
    """A person and records for the first size (in the seed's order) that has one; one task per
    person and operation in a bundle (``ctx.memo``), not the same request reworded."""
    taken = ctx.memo.setdefault("case_taken", set())
    tries = [(size, spec["policy"]) for size in sizes] + [(size, 0) for size in sizes]
    for size, policy in tries[:-1]:
        try:
            return search(ctx, rng, size, _accept(ctx, spec, policy), first_differs=True, taken=taken)
        except Skip:
            continue
    size, policy = tries[-1]
    return search(ctx, rng, size, _accept(ctx, spec, policy), first_differs=True, taken=taken)


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
            free = waived(ctx, found.op, row)[0]
            total += _comes_to(ctx, found.op, _paid(ctx, source, row, strict=False)[0], free)
        elif (one := refusal(found.op, row, kind, rule)) is not None:
            refused.append(one)
    return {"total": float(round(total, 2)), "refused": refused}
