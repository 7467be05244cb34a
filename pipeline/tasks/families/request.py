"""Requests from a person in the world, judged against the world's policy.

"Hi, this is Dana Whitfield from Wrightview. Could you cancel my two most recent orders?" (an
operation customers do not ask for themselves arrives relayed by staff: "Dana Whitfield called
the front desk. Please check in their latest visits.") The agent must find the person (a shared
name is told apart by what they add), take their records by the policy's priority rule
("latest" = most recent by a stated time; a record may be theirs through another, a claim
through their policy), and apply the operation to each one the policy allows. Above level 0 a
staff rule or the record's status forbids it on some of them (an amount over a limit, a window
of days passed, a related record that blocks it), and for a staff rule the tools would carry it
out anyway: the right outcome is partial compliance, the allowed part done and one structured
refusal per record refused (``{"cannot": "policy", "id": ..., "value": "P5"}`` naming the rule,
or ``status`` where no legal path reaches the goal). A literal reading that does everything it
was asked scores 0, as does refusing everything. At the top levels the person adds a second wish
(a change to their own record), so the request touches several kinds of record and rules.

Knobs: ``records`` (how many of the person's records the request covers), ``partial`` (some of
them refused, some done), ``policy_rules`` (rules the reference relies on), ``candidates``
(people sharing the name plus records of theirs to choose from), ``extra_wish``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from types import MappingProxyType
from typing import Any

from pipeline.policy.check import Earlier, blocking_rule, count_write
from pipeline.policy.derive import ownership, priority_column
from pipeline.policy.model import Rule
from pipeline.runtime.task import ToolCall
from pipeline.runtime.verify import AnswerCheck
from pipeline.tasks.context import Context, Where
from pipeline.tasks.families._common import new_value, op_call, operations, settable, update_call
from pipeline.tasks.feasibility import refusal_is_sound
from pipeline.tasks.filters import Filter, merge
from pipeline.tasks.model import Candidate, Skip
from pipeline.tasks.phrasing import sentence
from pipeline.tasks.words import field_words, words
from pipeline.tools.specs import TransitionTool
from pipeline.world.schema import Column, Table

NAME = "request"
KNOBS = ("records", "partial", "policy_rules", "candidates", "extra_wish")
LEVELS: dict[int, dict[str, Any]] = {
    0: {"records": 1, "policy": 0, "extra": False},
    1: {"records": 2, "policy": 0, "extra": False},
    2: {"records": 2, "policy": 1, "extra": False},
    3: {"records": 3, "policy": 1, "extra": False},
    4: {"records": 3, "policy": 1, "extra": True},
}
"""``policy``: how many of the records at least a staff rule forbids (the judgment); with two or
more records at least one is always allowed (partial compliance), and a record whose status
forbids the operation is refused as well."""
CUSTOMER_VERBS = frozenset(
    {
        "cancel",
        "refund",
        "pause",
        "resume",
        "return",
        "renew",
        "activate",
        "reactivate",
        "close",
        "withdraw",
        "pay",
        "waive",
        "confirm",
        "reschedule",
        "redeem",
        "dispute",
        "extend",
        "book",
        "reserve",
        "upgrade",
    }
)
"""Operations a customer asks for in their own words; other operations reach staff as a relayed request."""
OWNERS = 200
"""People tried per table before the family gives up on a slot (a seeded sample, so the search is
bounded on a large world)."""
COUNTS = {2: "two", 3: "three", 4: "four"}


Path = tuple[Column, ...]
"""The references from a record to the person it belongs to (one, or two through a record of theirs)."""


MAX_MIDDLE = 5
"""At most this many records a person's records are listed through (their policies, to reach their
claims): one short page."""


def _subjects(ctx: Context) -> list[tuple[Table, Path, Column]]:
    """(table, how its records belong to a person, the time "latest" is counted by) for every table
    whose records a customer owns and an operation moves."""
    out = []
    for table in ctx.schema.tables:
        column = priority_column(ctx.schema, table)
        if column is None or not operations(ctx, table):
            continue
        paths = ownership(ctx.schema, table)
        for path in paths:
            if _two_ways(path, paths):
                continue
            owners = [table, *(ctx.parent_of(fk) for fk in path[:-1])]
            if all(fk.name in ctx.filterable(t) for fk, t in zip(path, owners, strict=True)):
                out.append((table, path, column))
    return out


def _two_ways(path: Path, paths: list[Path]) -> bool:
    """Whether a record belongs to a person two ways through the same kind of record (a transfer's
    sending and receiving account, a match's home and away team): "my transfers" then has two
    readings, so no request is built on it."""
    return any(
        other[0].name != path[0].name
        and other[0].references == path[0].references
        and other[-1].references == path[-1].references
        for other in paths
    )


def _owned(ctx: Context, table: Table, path: Path) -> Mapping[Any, Sequence[dict[str, Any]]]:
    """Each person's records of ``table`` (memoised: the state does not change during generation),
    as a read-only view: a copy per call cost more than the search it served in a large world."""
    key = ("request_owned", table.name, tuple(fk.name for fk in path))
    if key not in ctx.memo:
        rows = ctx.rows(table)
        keys: list[Any] = rows.column(path[0].name).values
        if len(path) == 2:
            middle = ctx.rows(ctx.parent_of(path[0]))
            owner_of = dict(zip(middle.column("id").values, middle.column(path[1].name).values, strict=True))
            keys = [owner_of.get(ref) for ref in keys]
        ctx.memo[key] = rows.grouped(keys)
    return MappingProxyType(ctx.memo[key])


def agrees(ctx: Context, table: Table, path: Path, owner: Any) -> bool:
    """Whether every way a record of ``table`` belongs to a person gives ``owner`` the same records
    (a fine that names its member and also the loan it is on, whose member may differ): where two
    ways disagree, "my fines" has two readings, so the person is not asked about."""
    mine = {r["id"] for r in _owned(ctx, table, path).get(owner, [])}
    others = [p for p in ownership(ctx.schema, table) if p != path and p[-1].references == path[-1].references]
    return all({r["id"] for r in _owned(ctx, table, other).get(owner, [])} == mine for other in others)


def _find_calls(
    ctx: Context, table: Table, path: Path, when: Column, owner: Any, chosen: list[dict[str, Any]]
) -> list[ToolCall] | None:
    """The reads that list a person's latest records: their own (sorted by time), or through each
    record of theirs that the records reference (None when there are too many to list). The
    reference reads only the intermediate records that hold a chosen one (the shortest solution;
    an agent reads the others too to know they hold nothing later)."""
    k = len(chosen)
    ranked = {"order_by": when.name, "descending": True}
    if len(path) == 1:
        return [ctx.list_call(table, {path[0].name: owner, **ranked, "limit": max(k, 5)})]
    middle = ctx.parent_of(path[0])
    mids = ctx.rows(middle, Where(path[1].name, "=", owner))
    if not 1 <= len(mids) <= MAX_MIDDLE:
        return None
    holding = {r[path[0].name] for r in chosen}
    calls = [ctx.list_call(middle, {path[1].name: owner})]
    return calls + [
        ctx.list_call(table, {path[0].name: m["id"], **ranked, "limit": k}) for m in mids if m["id"] in holding
    ]


def _identify(ctx: Context, rng: random.Random, person: Table, row: dict[str, Any]) -> tuple[str, dict[str, Any], int]:
    """How the person introduces themselves, the list filter that finds exactly them, and how many
    people share their name (the candidates the agent tells apart)."""
    name = row[person.label]
    by_name = {person.label: name}
    shared = ctx.total(person, by_name)
    if shared == 1:
        return str(name), by_name, 1
    for column in sorted(ctx.describers(person), key=lambda c: (c.semantic not in ("city", "email"), c.name)):
        if column.name == person.label or column.semantic not in ("city", "email", "phone", "word", "company"):
            continue
        f = Filter.matching(column, row[column.name])
        if f is None:
            continue
        args = merge([Filter(person.column(person.label), "eq", name), f])
        if ctx.total(person, args) == 1:
            key = {"city": "who_city", "email": "who_email"}.get(column.semantic, "who_other")
            who = ctx.phrases.render(rng, NAME, key, name=name, value=row[column.name], label=field_words(column))
            return who, args, shared
    raise Skip("person_not_unique")


def _decide(
    ctx: Context, op: TransitionTool, table: Table, row: dict[str, Any], earlier: Earlier | None = None
) -> tuple[str, Rule | None]:
    """'allowed', 'status' (the tools refuse it) or 'policy' (a staff rule forbids it) for ``op`` on ``row``
    (after the request's ``earlier`` writes, which a history rule counts)."""
    if row[str(op.status_column)] not in op.allowed_from:
        return "status", None
    rule = blocking_rule(ctx.policy, ctx.conn, table.name, str(op.to), row["id"], earlier, ctx.owners)
    return ("policy", rule) if rule is not None else ("allowed", None)


def decide_in_order(
    ctx: Context, op: TransitionTool, table: Table, rows: list[dict[str, Any]]
) -> list[tuple[str, Rule | None]]:
    """Each record's decision in the order ``rows`` come (the most recent first), every one allowed
    taken as done: a history rule counts the owner's records set earlier in the same request, so the
    third cancellation of a person allowed two may be refused because of the first two."""
    earlier: Earlier = {}
    out = []
    for row in rows:
        kind, rule = _decide(ctx, op, table, row, earlier)
        if kind == "allowed":
            count_write(ctx.policy, table.name, str(op.to), row, earlier)
        out.append((kind, rule))
    return out


def _fits(
    ctx: Context, op: TransitionTool, table: Table, chosen: list[dict[str, Any]], kinds: list[str], policy: int
) -> bool:
    """The level's shape: a staff rule refuses a record exactly when the level asks for one, at
    least one record is allowed, and a record its status refuses is unreachable by any legal path
    (else "do it" has a reading under which a refusal is wrong)."""
    if (policy and "policy" not in kinds) or (not policy and "policy" in kinds) or "allowed" not in kinds:
        return False
    return all(kind != "status" or _unreachable(ctx, op, table, row) for row, kind in zip(chosen, kinds, strict=True))


def base_rules(ctx: Context, op: TransitionTool, table: Table) -> set[str]:
    """The rules every request about ``op`` on ``table`` relies on: its lifecycle and "my latest"."""
    rules = {r.id for r in ctx.policy.rules if r.kind == "lifecycle" and r.operation == op.name}
    return rules | {r.id for r in ctx.policy.rules if r.kind == "priority" and r.table == table.name}


def judge(
    ctx: Context,
    op: TransitionTool,
    row: dict[str, Any],
    kind: str,
    calls: list[ToolCall],
    deciding: list[int],
    rules: set[str],
) -> None:
    """For a record its status does not already settle: the reads its staff rules need (appended to
    ``calls``, their places to ``deciding``) and the rules relied on."""
    if kind == "status":
        return
    # An owner's records read once. By key, not by comparing models: a history rule's reads can be
    # thousands of pages in a large world, and every record of a sweep asks again.
    have = _keys_of(ctx, calls)
    checks = [c for c, key in _checks_keyed(ctx, op, row) if key not in have]
    deciding += range(len(calls), len(calls) + len(checks))  # reads that settle a staff rule
    calls += checks
    rules |= {r.id for r in ctx.policy.staff_rules(op.name)}


def _keys_of(ctx: Context, calls: list[ToolCall]) -> set[str]:
    """The keys of ``calls``, kept up to date as the list grows: a request's calls are only ever
    appended to, so each is keyed once, not once per record judged (a sweep of twenty records over a
    history rule's thousand pages would key twenty thousand calls)."""
    held = ctx.memo.get(("call_keys",))
    if held is None or held[0] is not calls or held[1] > len(calls):
        held = ctx.memo[("call_keys",)] = [calls, 0, set()]
    held[2].update(c.key() for c in calls[held[1] :])
    held[1] = len(calls)
    keys: set[str] = held[2]
    return keys


def refusal(op: TransitionTool, row: dict[str, Any], kind: str, rule: Rule | None) -> dict[str, Any] | None:
    """The refusal object for a record the operation may not go through for (None where it may): the
    status that forbids it, or the staff rule."""
    if kind == "status":
        return {"cannot": "status", "id": row["id"], "value": row[str(op.status_column)]}
    if kind == "policy" and rule is not None:
        return {"cannot": "policy", "id": row["id"], "value": rule.id}
    return None


def _unreachable(ctx: Context, op: TransitionTool, table: Table, row: dict[str, Any]) -> bool:
    """No sequence of legal moves takes ``row`` to the status ``op`` sets."""
    column = str(op.status_column)
    return refusal_is_sound(ctx.schema, table.name, column, str(row[column]), str(op.to)) is None


def _checks(ctx: Context, op: TransitionTool, row: dict[str, Any], only: Rule | None = None) -> list[ToolCall]:
    """Reads the staff rules of ``op`` (or the one rule ``only``: the one that refuses ``row``) need
    beyond the record itself (a related record's value, or the owner's other records of the table:
    every page of them)."""
    return [call for call, _ in _checks_keyed(ctx, op, row, only)]


def _checks_keyed(
    ctx: Context, op: TransitionTool, row: dict[str, Any], only: Rule | None = None
) -> list[tuple[ToolCall, str]]:
    """:func:`_checks`, each with its key (:meth:`ToolCall.key`): a history rule's pages keyed once per
    build, not once per record judged."""
    calls: list[tuple[ToolCall, str]] = []
    for rule in ctx.policy.staff_rules(op.name) if only is None else [only]:
        if rule.kind == "related" and rule.child is not None and rule.via is not None:
            call = ctx.list_call(ctx.schema.table(rule.child), {rule.via: row["id"]})
            calls.append((call, call.key()))
        elif rule.kind == "history" and rule.via is not None and row.get(rule.via) is not None:
            calls += _recent_keyed(ctx, rule, row[rule.via])
    return calls


def _recent_keyed(ctx: Context, rule: Rule, owner: Any) -> tuple[tuple[ToolCall, str], ...]:
    """The reads a history rule needs: every record set to its goal within its days up to today
    (today included), all pages, the same for every record of a request (read once): which owners
    had some, and how many, show there. Where the tools cannot filter by that time, the owner's own
    records instead (one read per owner)."""
    table = ctx.schema.table(rule.table)
    by_owner = str(rule.column) not in ctx.filterable(table)
    key = ("recent_calls", rule.id, owner if by_owner else None)
    if key not in ctx.memo:
        if by_owner:
            args = {str(rule.via): owner}
        else:
            today = date.fromisoformat(ctx.policy.clock[:10])
            first, last = today - timedelta(days=int(rule.limit or 0)), today
            column = table.column(str(rule.column))
            args = merge([Filter(column, "from", first.isoformat()), Filter(column, "to", last.isoformat())])
        # ToolCall is frozen: shared safely; the rows a read returns are not needed here
        ctx.memo[key] = tuple((call, call.key()) for call in ctx.fetch_all(table, args)[1])
    found: tuple[tuple[ToolCall, str], ...] = ctx.memo[key]
    return found


Accept = Callable[[TransitionTool, Table, list[dict[str, Any]], list[str]], bool]
"""Whether an operation's outcome on a person's chosen records has the shape a level asks for."""


@dataclass(frozen=True)
class Subject:
    """A person, their latest records of one table, an operation and what the policy says of it on each."""

    table: Table
    owned: int
    finding: list[ToolCall]
    op: TransitionTool
    person: Table
    prow: dict[str, Any]
    chosen: list[dict[str, Any]]
    decisions: list[tuple[str, Rule | None]]
    mine: Sequence[dict[str, Any]]
    """Every record of the person in the table (the chosen ones are the latest of these)."""


def search(
    ctx: Context,
    rng: random.Random,
    k: int,
    accept: Accept,
    first_differs: bool = False,
    taken: set[tuple[str, Any, str]] | None = None,
) -> Subject:
    """A person with ``k`` latest records (one fewer in a small world above 3) of a table an
    operation moves, whose decisions ``accept`` takes (seeded: the same task for the same seed).
    With ``first_differs`` the person's first records as a plain listing returns them (by id) are
    not their latest ones, so taking the first candidates instead of the policy's choice is wrong.
    ``taken`` holds (table, person, operation) already asked about by earlier tasks: skipped, and the
    one found is added (one request per person and operation, not the same one reworded)."""
    subjects = _subjects(ctx)
    if not subjects:
        raise Skip("domain_lacks_owned_records")
    rng.shuffle(subjects)
    for table, path, when in subjects:
        ops = [o for o in operations(ctx, table) if ctx.policy.staff_rules(o.name)]
        if not ops:
            continue
        owned = _owned(ctx, table, path)
        size = k
        owners = sorted(o for o, rows in owned.items() if len(rows) >= k)
        if not owners and k > 3:  # a small world: the top level with one record fewer
            size = k - 1
            owners = sorted(o for o, rows in owned.items() if len(rows) >= size)
        person = ctx.parent_of(path[-1])
        for owner in rng.sample(owners, min(len(owners), OWNERS)):
            if not agrees(ctx, table, path, owner):
                continue
            mine = owned[owner]
            chosen = latest(mine, when.name, size, first_differs)
            if chosen is None:
                continue
            finding = _find_calls(ctx, table, path, when, owner, chosen)
            if finding is None:
                continue
            rng.shuffle(ops)
            for op in ops:
                if taken is not None and (table.name, owner, op.name) in taken:
                    continue
                decisions = decide_in_order(ctx, op, table, chosen)
                if accept(op, table, chosen, [d[0] for d in decisions]):
                    if taken is not None:
                        taken.add((table.name, owner, op.name))
                    prow = ctx.row(person, owner)
                    return Subject(table, len(mine), finding, op, person, prow, chosen, decisions, mine)
    raise Skip("no_request_subject")


def latest(
    rows: Sequence[dict[str, Any]], when: str, k: int, first_differs: bool = False
) -> list[dict[str, Any]] | None:
    """The ``k`` most recent of ``rows`` by ``when`` (ties broken by id), or None where "most recent"
    has two readings (a tie at the cut) or, with ``first_differs``, where they are simply the first
    ``k`` a plain listing returns (by id), so that taking the first records listed is not also right."""
    ranked = sorted(rows, key=lambda r: (str(r[when]), r["id"]), reverse=True)
    if len(ranked) > k and str(ranked[k][when]) == str(ranked[k - 1][when]):
        return None
    chosen = ranked[:k]
    if first_differs and {r["id"] for r in chosen} == {r["id"] for r in sorted(rows, key=_by_id)[:k]}:
        return None
    return chosen


def _by_id(row: dict[str, Any]) -> Any:
    return row["id"]


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    spec = LEVELS[level]
    policy = spec["policy"]
    found = search(
        ctx, rng, spec["records"], lambda op, table, chosen, kinds: _fits(ctx, op, table, chosen, kinds, policy)
    )
    return _build(ctx, rng, level, found, spec["extra"])


def _build(ctx: Context, rng: random.Random, level: int, found: Subject, extra: bool) -> Candidate:
    table, owned, finding, op, person = found.table, found.owned, found.finding, found.op, found.person
    prow, chosen, decisions = found.prow, found.chosen, found.decisions
    k = len(chosen)
    who, by, shared = _identify(ctx, rng, person, prow)
    calls: list[ToolCall] = [ctx.list_call(person, by), *finding]
    rules = base_rules(ctx, op, table)
    refusals: list[dict[str, Any]] = []
    deciding: list[int] = []
    for row, (kind, rule) in zip(chosen, decisions, strict=True):
        judge(ctx, op, row, kind, calls, deciding, rules)
        if kind == "allowed":
            calls.append(op_call(op, row["id"]))
        elif (refused := refusal(op, row, kind, rule)) is not None:
            refusals.append(refused)
    org = person.column(person.label).semantic == "company"
    # A customer asks for what customers ask (cancel, refund, pay...); anything else a member of staff
    # passes on for them ("Dana Whitfield called: please check in her latest visits").
    staff = op.name.split("_")[0] not in CUSTOMER_VERBS
    mine = "their" if staff else "our" if org else "my"
    subject = (
        ctx.phrases.render(rng, NAME, "one", noun=table.noun, my=mine)
        if k == 1
        else ctx.phrases.render(rng, NAME, "many", count=COUNTS[k], plural=table.plural, my=mine)
    )
    text = [
        ctx.phrases.render(rng, NAME, "relayed" if staff else "hello_org" if org else "hello", who=who),
        ctx.phrases.render(rng, NAME, "wish", action=_action(op, table, subject)),
    ]
    wish = extra_wish(ctx, rng, person, prow, by, staff, mine) if extra else None
    extra = wish is not None  # a person with nothing of their own to change asks for the records alone
    if wish is not None:
        calls.append(wish[0])
        text.append(wish[1])
    knobs = {
        "records": k,
        "partial": bool(refusals) and len(refusals) < k,
        "policy_rules": len(rules),
        "candidates": shared + owned,
        "extra_wish": bool(extra),
        "operation": op.name,
        "ids_given": False,
        "decides": deciding,
    }
    expected: Any = (refusals[0] if len(refusals) == 1 else refusals) if refusals else None
    check = AnswerCheck(kind="refuse", expected=expected) if refusals else None
    answer = json.dumps(expected) if refusals else None  # as an agent writes it
    grounding = [ctx.ground(person, by)]
    return Candidate(NAME, level, knobs, " ".join(sentence(t) for t in text), calls, answer, check, grounding=grounding)


def extra_wish(
    ctx: Context, rng: random.Random, person: Table, prow: dict[str, Any], by: dict[str, Any], staff: bool, mine: str
) -> tuple[ToolCall, str] | None:
    """A second wish in the same message: a change to the person's own record (a preference, a
    contact, where they live), as the update call and the sentence asking for it; None when the
    person has nothing of their own to change. Never a column a policy line reads (a waiver by the
    owner's standing): whether the change comes before or after the rest would give two answers."""
    ruled = {r.column for r in ctx.policy.rules if person.name in (r.table, r.child)}
    columns = [c for c in settable(ctx, person) if c.name not in by and c.name not in ruled and _personal(c)]
    if not columns:
        return None
    column = rng.choice(columns)
    value = new_value(ctx, person, column, {prow[column.name]}, rng)
    form = "also_relayed" if staff else "also"
    also = ctx.phrases.render(rng, NAME, form, column=field_words(column), value=ctx.show(column, value), my=mine)
    return update_call(ctx, person, prow["id"], {column.name: value}), also


def _personal(column: Column) -> bool:
    """A detail a person changes about themselves: a preference, a contact, where they live (never
    a loyalty tier: the business grants that, no customer picks it)."""
    if column.transitions or column.references or column.sql_type == "BOOLEAN":
        return False
    if "tier" in f"{column.name} {column.label}".lower():
        return False
    return bool(column.values) or column.semantic in ("phone", "email", "city", "address", "street_address")


def _action(op: TransitionTool, table: Table, subject: str) -> str:
    """``cancel_order`` + "my latest order" -> "cancel my latest order"; an operation not named for
    its table reads as the status it sets (never its name: an identifier a person would not use)."""
    head, _, tail = op.name.partition(f"_{table.entity}")
    if op.name.endswith(f"_{table.entity}") or (head == "mark" and tail.startswith("_")):
        return " ".join(p for p in (words(head), subject, words(tail.lstrip("_"))) if p)
    return f"have {subject} set to {words(str(op.to))}"
