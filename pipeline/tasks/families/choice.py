"""The top level: a person asks for one of their records, chosen by what it comes to under the policy.

"Hi, this is Dana Whitfield. I want to cancel one of my orders: of the ones you're allowed to
cancel, whichever gets me the most back. Then tell me how much that is." No tool ranks the
candidates: the agent finds the person, lists their records, drops the ones whose status the
operation cannot leave and the ones a staff rule keeps from it (an amount over a limit, a window
passed, a related record, the owner's history), works out for each of the rest what the person
would get back (what was paid on it, less the policy's fee unless its waiver gives the record back
in full; one whose refund alone passes the cap on one request is left for a manager), carries the
operation out on the one record that comes to the most, and answers ``{"total": 41.92}``.

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
shortcut picks another record), ``wrong_picks`` (the record each shortcut picks), ``extra_wish``.
"""

from __future__ import annotations

import json
import random
from decimal import Decimal
from typing import Any

from pipeline.runtime.task import ToolCall
from pipeline.runtime.verify import AnswerCheck
from pipeline.tasks.context import Context
from pipeline.tasks.families._common import op_call, operations
from pipeline.tasks.families._settle import MAX_ITEMS, amounts, comes_to, paid_on, waived
from pipeline.tasks.families.case import judge_second, second_request
from pipeline.tasks.families.request import (
    OWNERS,
    Path,
    Subject,
    _action,
    _decide,
    _identify,
    _owned,
    _subjects,
    agrees,
    base_rules,
    extra_wish,
    judge,
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
JUDGED = ("policy", "waiver", "cap")
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
    mine: list[dict[str, Any]],
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
    calls: list[ToolCall] = [ctx.list_call(person, by), *listing]
    rules = base_rules(ctx, op, table)
    fee, waiver, cap = ctx.policy.fee(op.name), ctx.policy.waiver(op.name), ctx.policy.cap(op.name)
    rules |= {r.id for r in (fee, waiver, cap) if r is not None}
    deciding: list[int] = list(range(1, len(calls)))  # the listing shows which records are candidates
    seen = {(person.name, owner)}  # the person's own record, read to find them
    back: dict[Any, Decimal] = {}  # what each record that may go through comes to
    blind: dict[Any, Decimal] = {}  # what each candidate would come to, the staff rules ignored
    kept: dict[Any, Decimal] = {}  # with the fee kept on every record (the waiver missed)
    shown: dict[Any, set[Decimal]] = {}  # the amounts a tool shows on each record
    paid: dict[Any, Decimal] = {}  # what was paid on each record, the fee forgotten
    capped: set[Any] = set()  # records the staff rules let through and the cap holds back
    refused = 0
    for row in pool:
        kind, _ = _decide(ctx, op, table, row)
        judge(ctx, op, row, kind, calls, deciding, rules)
        values, reads = paid_on(ctx, source, row, strict=kind == "allowed")
        if len(values) > MAX_ITEMS:
            raise Skip("too_many_amounts")
        free, held = waived(ctx, op, row)
        blind[row["id"]] = comes_to(ctx, op, values, free)
        shown[row["id"]] = set(values)
        paid[row["id"]] = sum(values, Decimal(0))
        kept[row["id"]] = comes_to(ctx, op, values)
        if kind != "allowed":
            refused += 1
            continue
        deciding += range(len(calls), len(calls) + len(reads))  # what was paid decides the choice
        calls += reads
        if held is not None and waiver is not None and waiver.via is not None:
            key = (held.name, row[waiver.via])
            if key not in seen:
                seen.add(key)
                deciding.append(len(calls))  # the owner's standing decides the fee
                calls.append(ctx.read_call(held, row[waiver.via]))
        if cap is not None and blind[row["id"]] > Decimal(str(cap.limit)):
            refused += 1
            capped.add(row["id"])
            continue
        back[row["id"]] = blind[row["id"]]
    chosen = _unique_best(back)
    if chosen is None or back[chosen] == 0:
        raise Skip("no_single_best")
    if back[chosen] in shown[chosen]:
        raise Skip("total_not_computed")  # an amount a tool shows is the answer: copying it would do
    allowed_ids = set(back)
    picks = {
        "policy": _unique_best(blind),
        "waiver": _unique_best({i: kept[i] for i in allowed_ids}),
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
    }
    # A report: the records not chosen are no refusals (the person asked for one); with no second wish
    # the answer asked for is the total alone (an empty "refused" list is accepted too).
    check = AnswerCheck(kind="report", expected={"refused": [], **expected})
    grounding = [ctx.ground(person, by)]
    instruction = " ".join(sentence(t) for t in text)
    return Candidate(NAME, level, knobs, instruction, calls, json.dumps(expected), check, grounding=grounding)


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
