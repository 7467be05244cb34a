"""Update by condition: change one row the user describes.

Knobs: how the row is named (``indirection``: id, label, attributes with distractors,
through its parent, as its parent's latest child) and the kind of change: set a field,
run a guarded business operation, or a relative change the agent must compute from
the current value ("lower its price by 10.00").
"""

from __future__ import annotations

import random
from typing import Any

from pipeline.tasks.context import Context
from pipeline.tasks.families._common import (
    change_phrase,
    editable,
    new_value,
    op_call,
    op_path,
    op_phrase,
    operations,
    path_phrase,
    relative_change,
    set_phrase,
    settable,
    update_call,
)
from pipeline.tasks.locate import find
from pipeline.tasks.model import Candidate, Skip
from pipeline.tasks.phrasing import sentence

NAME = "update"
KNOBS = ("ids_given", "indirection", "filters", "distractors", "change")
LEVELS: dict[int, dict[str, Any]] = {
    0: {"mode": "id", "change": "set"},
    1: {"mode": "label", "change": "set"},
    2: {"mode": "label", "change": "operation"},
    3: {"mode": "attrs", "change": "relative"},
    4: {"mode": ("partial_rank", "rank", "parent"), "change": "path"},
}


def _allowed(ctx: Context, table: Any, row: dict[str, Any]) -> bool:
    return any(row.get(str(op.status_column)) in op.allowed_from for op in operations(ctx, table))


def _relative_ok(ctx: Context, table: Any, row: dict[str, Any]) -> bool:
    return any(
        relative_change(random.Random(0), c, row[c.name])
        for c in settable(ctx, table)
        if c.semantic in ("money", "quantity", "integer", "percent", "decimal")
    )


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    spec = LEVELS[level]
    if spec["change"] == "path":
        try:
            return _generate(ctx, rng, level, spec, "path")
        except Skip:
            # A domain whose lifecycles have no detour gets the former top level: an operation or a change.
            pass
    change = spec["change"] if spec["change"] != "path" else "operation_or_relative"
    if change == "operation_or_relative":
        change = rng.choice(("operation", "relative"))
    return _generate(ctx, rng, level, spec, change)


def _generate(ctx: Context, rng: random.Random, level: int, spec: dict[str, Any], change: str) -> Candidate:
    if change == "path":
        tables = [t for t in ctx.schema.tables if operations(ctx, t)]
        accept: Any = lambda t, r: op_path(ctx, t, r, random.Random(0)) is not None  # noqa: E731
    elif change == "operation":
        tables = [t for t in ctx.schema.tables if operations(ctx, t)]
        accept = lambda t, r: _allowed(ctx, t, r)  # noqa: E731
    elif change == "relative":
        tables = [t for t in ctx.schema.tables if settable(ctx, t)]
        accept = lambda t, r: editable(ctx, t, r) and _relative_ok(ctx, t, r)  # noqa: E731
    else:
        tables = [t for t in ctx.schema.tables if settable(ctx, t)]
        accept = lambda t, r: editable(ctx, t, r)  # noqa: E731
    if not tables:
        raise Skip("domain_lacks_writes")
    found = find(ctx, rng, tables, spec["mode"], accept)
    table, row = found.table, found.row
    calls = list(found.locate)
    recoveries = 0
    if change == "path":
        path = op_path(ctx, table, row, rng) or []
        calls += [op_call(op, row["id"]) for op in path]
        goal = path_phrase(ctx, rng, table, path[-1])
        text = ctx.phrases.render(rng, NAME, "change", subject=found.phrase, action=goal)
        recoveries = 1
    elif change == "operation":
        op = rng.choice([o for o in operations(ctx, table) if row[str(o.status_column)] in o.allowed_from])
        calls.append(op_call(op, row["id"]))
        text = ctx.phrases.render(rng, NAME, "operation", action=op_phrase(ctx, rng, op, table, found.phrase))
    else:
        columns = settable(ctx, table, exclude=found.used) or settable(ctx, table)
        if change == "relative":
            # Changing a number the description used is fine ("the one with 4 in stock: add 2").
            options = [(c, relative_change(rng, c, row[c.name])) for c in settable(ctx, table)]
            picked = [(c, d) for c, d in options if d is not None]
            if not picked:
                raise Skip("no_fresh_value")
            column, (delta, value) = rng.choice(picked)
            action = change_phrase(ctx, rng, column, delta)
        else:
            if not columns:
                raise Skip("domain_lacks_writes")
            column = rng.choice(columns)
            value = new_value(ctx, table, column, {row[column.name]}, rng)
            action = set_phrase(ctx, rng, column, value)
        calls.append(update_call(ctx, table, row["id"], {column.name: value}))
        text = ctx.phrases.render(rng, NAME, "change", subject=found.phrase, action=action)
    knobs = {**found.knobs, "change": change, "recoveries": recoveries}
    return Candidate(NAME, level, knobs, sentence(text), calls, grounding=found.grounding)
