"""The top level: a person asks for one of their records, chosen by what it comes to under the policy.

"Hi, this is Dana Whitfield. I want to cancel one of my orders: of the ones you're allowed to
cancel, whichever gets me the most back. Then tell me how much that is." No tool ranks the
candidates: the agent finds the person, lists their records, drops the ones whose status the
operation cannot leave and the ones a staff rule keeps from it (an amount over a limit, a window
passed, a related record, the owner's history), works out for each of the rest what the person
would get back (what was paid on it, less the policy's fee unless its waiver gives the record back
in full; one whose refund alone passes the cap on one request is left for a manager), carries the
operation out on the one record that comes to the most, and answers ``{"total": 41.92}``.

The reference holds no read an agent could skip: a candidate that cannot win is ruled out by the
fewest reads that show it (its amounts, or the one staff rule that keeps it back), not judged in full.

A candidate is built only where the shortcuts pick another record: the one that would come to the
most if the staff rules were ignored (``policy``), the one with the most paid on it with the fee kept
on every record (``waiver``: the waiver ranks a lower payment first), the one first listed
(``first``), the latest one (``latest``), or one the cap holds back (``cap``); at least two of them
differ from the choice, always the first listed and one of the policy's three, and no two candidates
that may go through come to the same amount.

Knobs: ``records`` (the person's records the operation's status allows: the candidates weighed),
``refused`` (those a staff rule or the cap keeps back), ``policy_rules`` (rules relied on),
``candidates`` (people sharing the name plus the person's records), ``computed`` (always 1: a
refund per candidate, none shown by a tool), ``preference`` ("most_back"), ``traps`` (which
shortcut picks another record), ``wrong_picks`` (the record each shortcut picks), ``extra_wish``,
``claim`` ("true" or "false" where the person claims the fee's waiver covers their records, as in
``case``: believing a false one gives every candidate back in full, which changes the total and may
change the pick, recorded as the shortcut ``claim``; ``believed_answer`` is that answer).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from pipeline.policy.model import Rule
from pipeline.runtime.task import ToolCall
from pipeline.runtime.verify import AnswerCheck
from pipeline.tasks.context import Context
from pipeline.tasks.families._claims import claim
from pipeline.tasks.families._common import op_call, operations
from pipeline.tasks.families._settle import MAX_ITEMS, amounts, comes_to, paid_on, waived
from pipeline.tasks.families.case import judge_second, second_request
from pipeline.tasks.families.request import (
    OWNERS,
    Path,
    Subject,
    _action,
    _checks,
    _decide,
    _identify,
    _owned,
    _subjects,
    agrees,
    base_rules,
    extra_wish,
)
from pipeline.tasks.model import Candidate, Skip
from pipeline.tasks.phrasing import sentence
from pipeline.tools.specs import TransitionTool
from pipeline.world.schema import Column, Table

NAME = "choice"
KNOBS = ("records", "refused", "policy_rules", "candidates", "computed", "preference", "traps", "extra_wish")
LEVELS: dict[int, dict[str, Any]] = {5: {"records": 2, "traps": 2}}
"""The top level only. ``records``: at least this many of the person's records the operation's status
allows (the candidates weighed); ``traps``: at least this many shortcuts pick another record: always
the first one listed (taking the first candidate is wrong) and one of the policy's (a staff rule, the
waiver or the cap decides the choice)."""
MAX_RECORDS = 6
"""At most this many candidates: each costs the reads that judge it and show what was paid on it."""
JUDGED = ("policy", "waiver", "late", "cap")
"""Shortcuts whose wrong pick shows the policy deciding the choice (one must pick another record)."""


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    spec = LEVELS[level]
    subjects = [s for s in _subjects(ctx) if len(s[1]) == 1]  # the person's own records, listed directly
    if not subjects:
        raise Skip("domain_lacks_owned_records")
    rng.shuffle(subjects)
    taken = ctx.memo.setdefault("choice_taken", set())
    for table, path, when in subjects:
        ops = [
            o for o in operations(ctx, table) if ctx.policy.fee(o.name) is not None and ctx.policy.staff_rules(o.name)
        ]
        if not ops or amounts(ctx, table) is None:
            continue
        owned = _owned(ctx, table, path)
        owners = sorted(o for o, rows in owned.items() if len(rows) >= spec["records"])
        for owner in rng.sample(owners, min(len(owners), OWNERS)):
            if not agrees(ctx, table, path, owner):
                continue
            for op in sorted(ops, key=lambda o: o.name):
                if (table.name, owner, op.name) in taken:
                    continue
                try:
                    candidate = _build(ctx, rng, level, spec, table, path, when, op, owner, owned[owner])
                except Skip:
                    continue
                taken.add((table.name, owner, op.name))
                return candidate
    raise Skip("no_choice_subject")


def _build(
    ctx: Context,
    rng: random.Random,
    level: int,
    spec: dict[str, Any],
    table: Table,
    path: Path,
    when: Column,
    op: TransitionTool,
    owner: Any,
    mine: Sequence[dict[str, Any]],
) -> Candidate:
    """One person's request, or :class:`Skip` where their records give no single right choice the
    shortcuts miss."""
    source = amounts(ctx, table)
    if source is None:
        raise Skip("table_lacks_amount")
    column = str(op.status_column)
    pool = sorted((r for r in mine if r[column] in op.allowed_from), key=lambda r: r["id"])
    if not spec["records"] <= len(pool) <= MAX_RECORDS:
        raise Skip("too_few_candidates" if len(pool) < spec["records"] else "too_many_candidates")
    person = ctx.parent_of(path[0])
    prow = ctx.row(person, owner)
    who, by, shared = _identify(ctx, rng, person, prow)
    _, listing = ctx.fetch_all(table, {path[0].name: owner})
    rules = base_rules(ctx, op, table)
    fee, waiver, cap = ctx.policy.fee(op.name), ctx.policy.waiver(op.name), ctx.policy.cap(op.name)
    rules |= {r.id for r in (fee, waiver, cap) if r is not None}
    limit = None if cap is None else Decimal(str(cap.limit))
    facts: dict[Any, _Facts] = {}
    back: dict[Any, Decimal] = {}  # what each record that may go through comes to
    capped: set[Any] = set()  # records the staff rules let through and the cap holds back
    for row in pool:
        kind, rule = _decide(ctx, op, table, row)
        try:
            values, reads = paid_on(ctx, source, row)
            clear = True
        except Skip:
            if kind == "allowed":
                raise  # what it comes to has two readings
            values, reads = paid_on(ctx, source, row, strict=False)
            clear = False  # only its staff rule can rule it out
        if len(values) > MAX_ITEMS:
            raise Skip("too_many_amounts")
        free, held = waived(ctx, op, row)
        via = None if waiver is None or waiver.via is None else row[waiver.via]
        # The owner's standing decides the fee: read on their record (the person's own was read to find them).
        owner_read = (
            None
            if held is None or via is None or (held.name, via) == (person.name, owner)
            else ctx.read_call(held, via)
        )
        fact = _Facts(
            row,
            rule,
            clear,
            values,
            reads,
            owner_read,
            comes_to(ctx, op, values, free, row),
            comes_to(ctx, op, values, row=row),
            comes_to(ctx, op, values, free),
        )
        facts[row["id"]] = fact
        if kind != "allowed":
            continue
        if limit is not None and fact.back > limit:
            capped.add(row["id"])
            continue
        back[row["id"]] = fact.back
    chosen = _unique_best(back)
    if chosen is None or back[chosen] == 0:
        raise Skip("no_single_best")
    best = facts[chosen]
    if best.back in set(best.values):
        raise Skip("total_not_computed")  # an amount a tool shows is the answer: copying it would do
    first = [ctx.list_call(person, by), *listing]
    calls, deciding = _reference(ctx, op, table, path, first, facts, chosen, limit, rules)
    blind = {i: f.back for i, f in facts.items()}
    kept = {i: f.kept for i, f in facts.items()}
    paid = {i: f.paid for i, f in facts.items()}
    refused = len(pool) - len(back)
    allowed_ids = set(back)
    picks = {
        "policy": _unique_best(blind),
        "waiver": _unique_best({i: kept[i] for i in allowed_ids}),
        "late": _unique_best({i: facts[i].usual for i in allowed_ids}),
        "first": pool[0]["id"],
        "latest": max(pool, key=lambda r: (str(r[when.name]), r["id"]))["id"],
        "cap": _unique_best({i: blind[i] for i in capped}),
    }
    wrong = {k: v for k, v in picks.items() if v is not None and v != chosen}
    if len(wrong) < spec["traps"] or "first" not in wrong or not any(k in wrong for k in JUDGED):
        raise Skip("shortcuts_agree")
    calls.append(op_call(op, chosen))
    staff = False  # every operation with a fee line is one a customer asks for (cancel, refund, return, ...)
    org = person.column(person.label).semantic == "company"
    mine_word = "our" if org else "my"
    one_of = ctx.phrases.render(rng, NAME, "one_of", plural=table.plural, my=mine_word)
    me = "us" if org else "me"
    text = [
        ctx.phrases.render(rng, "request", "hello_org" if org else "hello", who=who),
        ctx.phrases.render(rng, NAME, "wish", action=_action(op, table, one_of), verb=_verb(op, table), me=me),
    ]
    # The person's claim that the waiver covers them (:mod:`._claims`), checked against their records.
    said = claim(ctx, rng, op, person, prow, pool, staff)
    # A second wish about a record of another kind (:func:`case.second_request`), judged by the policy too.
    row = next(r for r in pool if r["id"] == chosen)
    found = Subject(table, len(mine), listing, op, person, prow, [row], [("allowed", None)], mine)
    second = second_request(ctx, rng, found, staff, True)
    refusals: list[dict[str, Any]] = []
    if second is not None:
        if (one := judge_second(ctx, second, calls, deciding, rules)) is not None:
            refusals.append(one)
        latest_one = ctx.phrases.render(rng, "request", "one", noun=second.table.noun, my=mine_word)
        text.append(ctx.phrases.render(rng, "case", "second", action=_action(second.op, second.table, latest_one)))
    wish = extra_wish(ctx, rng, person, prow, by, staff, mine_word)
    if wish is not None:
        calls.append(wish[0])
        text.append(wish[1])
    if second is None:
        text.append(ctx.phrases.render(rng, NAME, "answer"))
    else:
        text.append(ctx.phrases.render(rng, NAME, "refund", me=me))
        # Only the second record can be refused: the records not chosen were not asked for.
        text.append(ctx.phrases.render(rng, "case", "answer", noun=second.table.noun))
    expected: dict[str, Any] = {"total": float(round(back[chosen], 2))}
    if second is not None:
        expected["refused"] = refusals
    believed = None if said is None else _believed(facts, back, capped, limit, chosen)
    if believed is not None and said is not None:
        text.insert(2, said.text)  # after what they ask for
        if believed.pick != chosen:
            wrong["claim"] = believed.pick
    knobs = {
        "records": len(pool),
        "refused": refused,
        "policy_rules": len(rules),
        "rule_ids": sorted(rules, key=lambda r: int(r[1:])),
        "candidates": shared + len(mine),
        "computed": 1,
        "preference": "most_back",
        "traps": sorted(wrong),
        "wrong_picks": {k: wrong[k] for k in sorted(wrong)},
        "wrong_records": len(set(wrong.values())),
        "extra_wish": wish is not None,
        "second": None if second is None else {"operation": second.op.name, "id": second.row["id"]},
        "operation": op.name,
        "chosen": chosen,
        "ids_given": False,
        "decides": deciding,
        # What the shortcut that ranks by what was paid (the fee and waiver forgotten) answers.
        "gross_answer": json.dumps({**expected, "total": float(round(paid[chosen], 2))}),
        "claim": None if believed is None else believed.holds,
        "claim_form": None if believed is None or said is None else said.form,
    }
    if kept[chosen] != back[chosen]:  # the waiver gives the chosen record back in full: the fee kept on it
        knobs["unwaived_answer"] = json.dumps({**expected, "total": float(round(kept[chosen], 2))})
    if best.usual != back[chosen]:  # the late line's larger fee falls on the chosen record
        knobs["usual_fee_answer"] = json.dumps({**expected, "total": float(round(best.usual, 2))})
    if believed is not None and believed.holds == "false":
        knobs["believed_answer"] = json.dumps({**expected, "total": float(round(believed.total, 2))})
    # A report: the records not chosen are no refusals (the person asked for one); with no second wish
    # the answer asked for is the total alone (an empty "refused" list is accepted too).
    check = AnswerCheck(kind="report", expected={"refused": [], **expected})
    grounding = [ctx.ground(person, by)]
    instruction = " ".join(sentence(t) for t in text)
    return Candidate(NAME, level, knobs, instruction, calls, json.dumps(expected), check, grounding=grounding)


@dataclass(frozen=True)
class _Belief:
    """What someone who believed the person's claim that the waiver covers every record would do."""

    pick: Any
    total: Decimal
    holds: str
    """"true" where believing gives the policy's answer, else "false"."""


def _believed(
    facts: dict[Any, _Facts],
    back: dict[Any, Decimal],
    capped: set[Any],
    limit: Decimal | None,
    chosen: Any,
) -> _Belief | None:
    """The claim's weight in the choice, or None where it is left out: believing it, every candidate
    the staff rules let through comes back in full (the cap then weighs full refunds), which may pick
    another record. A claim is made only where it matters: false (believing gives another total),
    or true while the waiver is what gives the chosen record back in full. None too where believing
    ties two records (it would have two readings) or gives the right total on another record."""
    full = {i: facts[i].paid for i in (*back, *capped)}
    allowed = {i: v for i, v in full.items() if limit is None or v <= limit}
    pick = _unique_best(allowed)
    if pick is None:
        return None
    total = allowed[pick]
    if (pick, total) == (chosen, back[chosen]):
        waived_here = facts[chosen].kept != back[chosen]
        return _Belief(pick, total, "true") if waived_here else None
    if total == back[chosen]:
        return None  # the right total on the wrong record: the answer alone would not tell them apart
    return _Belief(pick, total, "false")


@dataclass(frozen=True)
class _Facts:
    """What one candidate comes to, and the reads that show it."""

    row: dict[str, Any]
    rule: Rule | None
    """The staff rule that keeps the operation from it (None: the staff rules let it through)."""
    clear: bool
    """Whether what was paid on it has one reading (its amounts all in their usual status)."""
    values: list[Decimal]
    reads: list[ToolCall]
    """The reads that show its amounts (none where the record carries its own)."""
    owner_read: ToolCall | None
    """The read of the owner's record its waiver is decided on (None: nothing beyond the listing)."""
    back: Decimal
    """What it comes to under the fee and its waiver."""
    kept: Decimal
    """What it would come to with the fee kept (the waiver missed)."""
    usual: Decimal
    """What it would come to with the usual fee, where the late line keeps a larger one (the line missed)."""

    @property
    def paid(self) -> Decimal:
        return sum(self.values, Decimal(0))


def _reference(
    ctx: Context,
    op: TransitionTool,
    table: Table,
    path: Path,
    first: list[ToolCall],
    facts: dict[Any, _Facts],
    chosen: Any,
    limit: Decimal | None,
    rules: set[str],
) -> tuple[list[ToolCall], list[int]]:
    """The reads that settle the choice, none of which an agent could leave out, after ``first`` (the
    person found and their records listed): for the chosen record, every staff rule's reads, its
    amounts and (where the fee applies) what decides its waiver; for each other candidate the fewest
    reads that rule it out, whichever way does it: the one staff rule that keeps it back, or its
    amounts showing it comes to less than the chosen one or passes the cap alone (with its waiver
    read only where that decides it). A history rule over the person's own records of this kind is
    settled by their listing, which shows every one of them. Returns the calls and the places of
    the ones that decide something (every read after finding the person)."""
    calls = list(first)
    deciding = list(range(1, len(calls)))
    covered = [
        c
        for r in ctx.policy.staff_rules(op.name)
        if r.kind == "history" and r.table == table.name and r.via == path[0].name
        for c in _checks(ctx, op, facts[chosen].row, r)
    ]

    # By key, not by comparing models one by one: a history rule's reads can run to many pages.
    have = {c.key() for c in (*calls, *covered)}

    def fresh(new: list[ToolCall]) -> list[ToolCall]:
        out: list[ToolCall] = []
        mine: set[str] = set()
        for call in new:
            if (key := call.key()) not in have and key not in mine:
                mine.add(key)
                out.append(call)
        return out

    def add(new: list[ToolCall]) -> None:
        for call in fresh(new):
            deciding.append(len(calls))
            calls.append(call)
            have.add(call.key())

    best = facts[chosen]
    rules |= {r.id for r in ctx.policy.staff_rules(op.name)}
    add(_checks(ctx, op, best.row))
    add(best.reads)
    if best.owner_read is not None and best.kept != best.paid:
        add([best.owner_read])
    for key, one in facts.items():
        if key == chosen:
            continue
        ways: list[list[ToolCall]] = []
        if one.clear:
            waiver = [] if one.owner_read is None else [one.owner_read]
            if one.paid < best.back or (limit is not None and one.kept > limit):
                ways.append(one.reads)  # its amounts alone rule it out
            elif one.back < best.back or (limit is not None and one.back > limit):
                ways.append([*one.reads, *waiver])  # with its waiver decided
        if one.rule is not None:
            ways.append(_checks(ctx, op, one.row, one.rule))
        if not ways:
            raise Skip("candidate_not_ruled_out")
        add(min(ways, key=lambda w: len(fresh(w))))  # the first of the cheapest: amounts before a rule
    return calls, deciding


def _unique_best(values: dict[Any, Decimal]) -> Any | None:
    """The key with the largest value, or None where there is none or two share it ("the one that
    gets me the most back" then has two readings)."""
    if not values:
        return None
    ranked = sorted(values.items(), key=lambda kv: kv[1], reverse=True)
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None
    return ranked[0][0]


def _verb(op: TransitionTool, table: Table) -> str:
    """What the person asks done, as a bare verb phrase for "the ones you're allowed to ...": the
    operation's verb where it is named for its table, else "set to" its status."""
    head, _, _ = op.name.partition(f"_{table.entity}")
    if op.name.endswith(f"_{table.entity}") and "_" not in head:
        return head
    return f"set to {str(op.to).replace('_', ' ')}"
