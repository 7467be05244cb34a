"""Conditional task: check a fact, then take one of two courses of action.

("If the item is in stock, reserve it; otherwise put the customer on the waitlist.")
Both courses are possible on the row, so only reading the fact tells which is right,
and the verifier fails the wrong course as an unexpected change. Knobs: where the fact
lives (``condition``: the row itself, its parent, or how many children it has), how
the row is named, writes per branch, and which branch the state makes true.

Nothing but the fact tells the branches apart. Over a build the branches alternate (the
branch wanted next is the one taken less often so far, ties settled by a stable hash of
seed and level), and the condition is then built so the state makes that branch true: a
policy that always takes "then" (or always "else") wins about half, never more. Which
branch holds the operation, and which is the longer one, does not depend on the branch
taken either. The course not taken is recorded (``other_branch``) so the exploit library
can try it (:mod:`pipeline.tasks.exploits.branches`).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any

from pipeline.data.columns import column_seed
from pipeline.policy.check import breaking_call
from pipeline.runtime.task import ToolCall
from pipeline.tasks.context import Context
from pipeline.tasks.families._common import (
    editable,
    new_value,
    op_call,
    op_phrase,
    operations,
    set_phrase,
    settable,
    update_call,
)
from pipeline.tasks.locate import find
from pipeline.tasks.model import Candidate, Skip
from pipeline.tasks.phrasing import sentence
from pipeline.tasks.words import NUMERIC, column_words, plural_words, relation_words, words
from pipeline.world.schema import Column, Table

NAME = "conditional"
KNOBS = ("condition", "branch", "writes", "ids_given", "indirection")
"""``writes`` counts the writes of the branch the state selects. The "then" branch does the level's
writes; the "else" branch as many where the row offers enough distinct writes, else one."""
LEVELS: dict[int, dict[str, Any]] = {
    0: {"mode": "id", "condition": "self", "writes": 1},
    1: {"mode": "label", "condition": "self", "writes": 1},
    2: {"mode": "label", "condition": "parent", "writes": 1},
    3: {"mode": "label", "condition": "children", "writes": 1},
    4: {"mode": "label", "condition": "parent", "writes": 2},
}


def _fact_columns(table: Table, row: dict[str, Any], with_label: bool = False) -> list[Column]:
    return [
        c
        for c in table.columns
        if row[c.name] is not None
        and not c.primary_key
        and not c.references
        and (c.semantic in NUMERIC or c.values or (with_label and c.name == table.label))
    ]


def _condition(
    ctx: Context, rng: random.Random, table: Table, column: Column, value: Any, truth: bool
) -> tuple[str, dict[str, Any]]:
    """Wording slots for "<column> is at least X" or "<column> is V" that is ``truth`` for ``value``
    and neither always true nor always false over the table's rows (some row meets it, some does not:
    otherwise the condition needs no reading)."""
    values = ctx.values(table, column.name)
    if column.values:
        held = {v for v in values if v is not None}
        options = [value] if truth else [v for v in column.values if v != value and v in held]
        if not options or (truth and held == {value} and None not in values):
            raise Skip("no_condition")
        return "equals", {"column": column_words(column), "value": words(str(rng.choice(options)))}
    if column.semantic not in NUMERIC:
        others = sorted(set(ctx.values(table, column.name)) - {value, None}, key=str)
        if not others:
            raise Skip("no_condition")
        shown = (
            ctx.label_text(table, {column.name: value if truth else rng.choice(others)})
            if column.name == table.label
            else str(value if truth else rng.choice(others))
        )
        return "equals", {"column": column_words(column), "value": shown}

    def splits(threshold: float) -> bool:
        return any(x is None or float(x) < threshold for x in values) and any(
            x is not None and float(x) >= threshold for x in values
        )

    # Thresholds come from values other rows really have, so they read naturally.
    v = float(value)
    population = sorted({float(x) for x in values if x is not None})
    if truth:
        thresholds = [t for t in sorted({math.floor(p) for p in population if p <= v}) if splits(t)][-3:]
    else:
        thresholds = [t for t in (math.ceil(p) for p in population if p > v) if splits(t)][:3]
    if not thresholds:
        raise Skip("no_condition")
    threshold = rng.choice(thresholds)
    if (v >= threshold) != truth:
        raise Skip("no_condition")
    return "number", {"column": column_words(column), "value": str(threshold)}


def _actions(
    ctx: Context, rng: random.Random, table: Table, row: dict[str, Any], n: int, used: set[str]
) -> tuple[list[tuple[str, ToolCall]], list[tuple[str, ToolCall]]]:
    """The two courses of action on ``row``: ``n`` single writes for "then", ``n`` (or one, where the
    row offers fewer) for "else", drawn from its allowed operations and field changes. Neither the
    operation nor the length says which branch the state selects: the operation lands in either
    branch, and the longer branch is always "then"."""
    pool: list[tuple[str, ToolCall]] = []
    for op in operations(ctx, table):
        if row[str(op.status_column)] in op.allowed_from:
            pool.append((op_phrase(ctx, rng, op, table, "it"), op_call(op, row["id"])))
    rng.shuffle(pool)
    pool = pool[:1]
    for column in settable(ctx, table, exclude=used):
        try:
            value = new_value(ctx, table, column, {row[column.name]}, rng)
        except Skip:
            continue
        pool.append((set_phrase(ctx, rng, column, value), update_call(ctx, table, row["id"], {column.name: value})))
    # A course of action a staff rule forbids is no course to offer, taken or not.
    pool = [a for a in pool if breaking_call(ctx.policy, ctx.specs, ctx.conn, [a[1]], ctx.owners) is None]
    if len(pool) < n + 1:
        raise Skip("domain_lacks_writes")
    n_else = n if len(pool) >= 2 * n else 1
    first, rest = pool[:1], pool[1:]
    rng.shuffle(rest)
    chosen = first + rest[: n + n_else - 1]
    rng.shuffle(chosen)
    then, other = chosen[:n], chosen[n:]
    return _fields_first(ctx, then), _fields_first(ctx, other)


def _fields_first(ctx: Context, actions: list[tuple[str, ToolCall]]) -> list[tuple[str, ToolCall]]:
    """Field changes before the operation: an operation may leave the record in a final status."""
    return sorted(actions, key=lambda a: ctx.executor.spec(a[1].tool).kind == "transition")


def _wanted_branch(ctx: Context, level: int) -> bool:
    """True for "then": the branch taken less often so far in this build, ties by a stable hash.

    Counts are of candidates returned. The generator asks for the family's levels in turn, so a
    call at the level of the candidate returned just before is a retry of that slot: that candidate
    was dropped after its return (its proof failed), and no longer counts."""
    memo = ctx.memo.setdefault((NAME, "branches"), {"counts": {True: 0, False: 0}, "last": None})
    counts, last = memo["counts"], memo["last"]
    if last is not None and last[0] == level and len(LEVELS) > 1:
        counts[last[1]] -= 1
    memo["last"] = None
    if counts[True] != counts[False]:
        return bool(counts[True] < counts[False])
    return column_seed(ctx.seed, NAME, f"branch/{level}") % 2 == 0


def _taken(ctx: Context, level: int, truth: bool) -> None:
    """Count a returned candidate's branch (see :func:`_wanted_branch`)."""
    memo = ctx.memo[(NAME, "branches")]
    memo["counts"][truth] += 1
    memo["last"] = (level, truth)


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    spec = LEVELS[level]
    writes, kind = spec["writes"], spec["condition"]
    truth = _wanted_branch(ctx, level)
    tables = [
        t
        for t in ctx.schema.tables
        if len(settable(ctx, t)) + bool(operations(ctx, t)) >= writes + 1
        and (kind != "parent" or t.foreign_keys)
        and (kind != "children" or ctx.children(t))
    ]
    if not tables:
        raise Skip("domain_lacks_writes")

    def counted(t: Table, r: dict[str, Any]) -> list[tuple[Table, Column]]:
        """The child relations a count condition may read; for "then", those the row has children in
        (the state must make "at least one" true)."""
        options = [(c, f) for c, f in ctx.children(t) if f.name in ctx.filterable(c)]
        return [(c, f) for c, f in options if not truth or ctx.total(c, {f.name: r["id"]}) > 0]

    def enough(t: Table, r: dict[str, Any]) -> bool:
        allowed = any(r[str(op.status_column)] in op.allowed_from for op in operations(ctx, t))
        if not (editable(ctx, t, r) and allowed + len(settable(ctx, t)) >= writes + 1 + (kind == "self")):
            return False
        return kind != "children" or bool(counted(t, r))

    found = find(ctx, rng, tables, spec["mode"], enough)
    table, row = found.table, found.row
    calls = found.read(ctx)
    if kind == "self":
        columns = [c for c in _fact_columns(table, row) if c.name not in found.used]
        if not columns:
            raise Skip("no_condition")
        column = rng.choice(columns)
        form, slots = _condition(ctx, rng, table, column, row[column.name], truth)
        condition = ctx.phrases.render(rng, NAME, f"self_{form}", **slots)
        used = {column.name}
        decides: int | None = None
    elif kind == "parent":
        fks = [fk for fk in table.foreign_keys if row[fk.name] is not None and fk.references != table.name]
        if not fks:
            raise Skip("no_condition")
        fk = rng.choice(fks)
        parent = ctx.parent_of(fk)
        prow = ctx.row(parent, row[fk.name])
        columns = _fact_columns(parent, prow, with_label=True)
        if not columns:
            raise Skip("no_condition")
        column = rng.choice(columns)
        form, slots = _condition(ctx, rng, parent, column, prow[column.name], truth)
        condition = ctx.phrases.render(rng, NAME, f"parent_{form}", relation=relation_words(fk), **slots)
        decides = len(calls)
        calls.append(ctx.read_call(parent, prow["id"]))
        used = set()
    else:
        child, fk = rng.choice(counted(table, row))
        n = ctx.total(child, {fk.name: row["id"]})
        threshold = n if truth else n + 1
        per_row = Counter(ctx.values(child, fk.name))
        counts = [per_row.get(i, 0) for i in ctx.values(table, "id")]
        if (truth and n == 0) or not min(counts) < threshold <= max(counts):
            raise Skip("no_condition")  # "at least n" that every row meets, or none
        condition = ctx.phrases.render(rng, NAME, "children", value=threshold, plural=plural_words(child))
        decides = len(calls)
        calls.append(ctx.list_call(child, {fk.name: row["id"], "limit": 1}))
        used = set()
    then_actions, else_actions = _actions(ctx, rng, table, row, writes, used)
    taken, other = (then_actions, else_actions) if truth else (else_actions, then_actions)
    calls += [call for _, call in taken]
    text = ctx.phrases.render(
        rng,
        NAME,
        "conditional",
        subject=found.phrase,
        condition=condition,
        then_action=" and ".join(p for p, _ in then_actions),
        else_action=" and ".join(p for p, _ in else_actions),
    )
    knobs = {
        **found.knobs,
        "condition": kind,
        "branch": "then" if truth else "else",
        "writes": len(taken),
        "other_branch": [call.model_dump() for _, call in other],
    }
    if decides is not None:
        knobs["decides"] = decides  # the call whose result settles the branch
    _taken(ctx, level, truth)
    return Candidate(NAME, level, knobs, sentence(text), calls, grounding=found.grounding)
