"""Conditional task: check a fact, then take one of two courses of action.

("If the item is in stock, reserve it; otherwise put the customer on the waitlist.")
Both courses are possible on the row, so only reading the fact tells which is right,
and the verifier fails the wrong course as an unexpected change. Knobs: where the fact
lives (``condition``: the row itself, its parent, or how many children it has), how
the row is named, writes per branch, and which branch the state makes true.
"""

from __future__ import annotations

import math
import random
from typing import Any

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
"""``writes`` counts the writes of the branch the state selects; the other branch is a single write."""
LEVELS: dict[int, dict[str, Any]] = {
    0: {"mode": "id", "condition": "self", "writes": 1},
    1: {"mode": "label", "condition": "self", "writes": 1},
    2: {"mode": "label", "condition": "parent", "writes": 1},
    3: {"mode": "label", "condition": "children", "writes": 1},
    4: {"mode": "label", "condition": "parent", "writes": 2},
    5: {"mode": ("partial_rank", "rank", "partial", "attrs"), "condition": "parent", "writes": 2},
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
    """Wording slots for "<column> is at least X" or "<column> is V" that is ``truth`` for ``value``."""
    if column.values:
        shown = value if truth else rng.choice([v for v in column.values if v != value])
        return "equals", {"column": column_words(column), "value": words(str(shown))}
    if column.semantic not in NUMERIC:
        others = sorted({r[column.name] for r in ctx.rows(table)} - {value, None}, key=str)
        if not others:
            raise Skip("no_condition")
        shown = (
            ctx.label_text(table, {column.name: value if truth else rng.choice(others)})
            if column.name == table.label
            else str(value if truth else rng.choice(others))
        )
        return "equals", {"column": column_words(column), "value": shown}
    # Thresholds come from values other rows really have, so they read naturally.
    v = float(value)
    population = sorted({float(r[column.name]) for r in ctx.rows(table) if r[column.name] is not None})
    if truth:
        near = [p for p in population if p <= v][-3:]
        threshold = math.floor(rng.choice(near))
    else:
        near = [p for p in population if p > v][:3]
        threshold = math.ceil(rng.choice(near)) if near else math.floor(v) + 1
    if (v >= threshold) != truth:
        raise Skip("no_condition")
    return "number", {"column": column_words(column), "value": str(threshold)}


def _actions(
    ctx: Context, rng: random.Random, table: Table, row: dict[str, Any], n: int, used: set[str]
) -> list[tuple[str, ToolCall]]:
    """Single-write actions possible on ``row``: its allowed operations and field changes."""
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
    if len(pool) < n + 1:
        raise Skip("domain_lacks_writes")
    first, rest = pool[:1], pool[1:]
    rng.shuffle(rest)
    return first + rest[:n]


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    spec = LEVELS[level]
    writes, kind = spec["writes"], spec["condition"]
    truth = rng.random() < 0.5
    tables = [
        t
        for t in ctx.schema.tables
        if len(settable(ctx, t)) + bool(operations(ctx, t)) >= writes + 1
        and (kind != "parent" or t.foreign_keys)
        and (kind != "children" or ctx.children(t))
    ]
    if not tables:
        raise Skip("domain_lacks_writes")

    def enough(t: Table, r: dict[str, Any]) -> bool:
        allowed = any(r[str(op.status_column)] in op.allowed_from for op in operations(ctx, t))
        return editable(ctx, t, r) and allowed + len(settable(ctx, t)) >= writes + 1 + (kind == "self")

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
        child, fk = rng.choice([(c, f) for c, f in ctx.children(table) if f.name in ctx.filterable(c)])
        n = ctx.total(child, {fk.name: row["id"]})
        if truth and n == 0:
            raise Skip("no_condition")
        threshold = n if truth else n + 1
        condition = ctx.phrases.render(rng, NAME, "children", value=threshold, plural=plural_words(child))
        decides = len(calls)
        calls.append(ctx.list_call(child, {fk.name: row["id"], "limit": 1}))
        used = set()
    actions = _actions(ctx, rng, table, row, writes, used)
    # The branch the state selects does ``writes`` things, the other one: "A and B, otherwise C".
    taken, other = actions[:writes], actions[writes:]
    then_actions, else_actions = (taken, other) if truth else (other, taken)
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
    knobs = {**found.knobs, "condition": kind, "branch": "then" if truth else "else", "writes": writes}
    if decides is not None:
        knobs["decides"] = decides  # the call whose result settles the branch
    return Candidate(NAME, level, knobs, sentence(text), calls, grounding=found.grounding)
