"""Bulk update: apply the same change to every row matching some conditions.

Knobs: ``writes`` (how many rows match, exactly), the number of filters, whether the
rows hang off a named parent, and the change (set a field, or run an operation, which
is only allowed from some statuses). Rows that nearly match (all but one condition)
are the distractors an agent must leave alone.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from pipeline.runtime.task import Grounding, ToolCall
from pipeline.tasks.context import Context
from pipeline.tasks.families._common import (
    editable,
    new_value,
    op_call,
    op_phrase,
    operations,
    settable,
    update_call,
)
from pipeline.tasks.filters import Filter, merge
from pipeline.tasks.locate import named_parent
from pipeline.tasks.model import Candidate, Skip
from pipeline.tasks.phrasing import sentence
from pipeline.tasks.words import field_words, plural_words, relation_words

NAME = "bulk_update"
KNOBS = ("writes", "filters", "parent", "change", "distractors")
LEVELS: dict[int, dict[str, Any]] = {
    0: {"writes": 2, "filters": 1, "change": "set"},
    1: {"writes": 3, "filters": 1, "change": "set"},
    2: {"writes": 4, "filters": 2, "change": "set"},
    3: {"writes": 4, "filters": 1, "change": "set", "parent": True},
    4: {"writes": 5, "filters": 2, "change": "operation"},
}
TRIES = 25


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    spec = LEVELS[level]
    writes = spec["writes"]
    change = spec["change"]
    tables = [
        t
        for t in ctx.schema.tables
        if (operations(ctx, t) if change == "operation" else settable(ctx, t))
        and (not spec.get("parent") or t.foreign_keys)
        and ctx.total(t, {}) >= writes
    ]
    if not tables:
        raise Skip("domain_lacks_writes")
    for _ in range(TRIES):
        table = rng.choice(tables)
        base: dict[str, Any] = {}
        clauses: list[str] = []
        locate: list[ToolCall] = []
        grounding: list[Grounding] = []
        rows: Sequence[dict[str, Any]] = ctx.rows(table)
        try:
            if spec.get("parent"):
                fk, parent, rows = named_parent(ctx, rng, table, writes, tries=8)
                base = {fk.name: parent.row["id"]}
                clauses.append(
                    ctx.phrases.render(
                        rng,
                        "count",
                        "parent_condition",
                        relation=relation_words(fk),
                        parent=parent.short or parent.phrase,
                    )
                )
                locate, grounding = parent.locate, parent.grounding
            filters: list[Filter] = []
            op = None
            if change == "operation":
                op = rng.choice(operations(ctx, table))
                status = table.column(str(op.status_column))
                filters.append(Filter(status, "eq", rng.choice(op.allowed_from)))
                rows = [r for r in rows if filters[0].holds(r)]
            extra = spec["filters"] - len(filters)
            if extra > 0:
                filters += ctx.pick_filters(
                    rng,
                    table,
                    extra,
                    rows,
                    low=writes,
                    high=writes,
                    tries=6,
                    exclude=frozenset(f.column.name for f in filters),
                )
        except Skip:
            continue
        args = {**base, **merge(filters)}
        matched, reads = ctx.fetch_all(table, args)
        if len(matched) != writes or (change != "operation" and not all(editable(ctx, table, r) for r in matched)):
            continue
        near = (
            max(
                (ctx.total(table, {**base, **merge([f for f in filters if f is not g])}) for g in filters),
                default=writes,
            )
            - writes
        )
        clauses += [ctx.condition(rng, f) for f in filters]
        conditions = ", ".join(clauses[:-1]) + " and " + clauses[-1] if len(clauses) > 1 else clauses[0]
        calls = locate + reads
        if op is not None:
            calls += [op_call(op, r["id"]) for r in matched]
            text = ctx.phrases.render(
                rng,
                NAME,
                "operation_all",
                entity=ctx.noun(table),
                plural=plural_words(table),
                conditions=conditions,
                action=op_phrase(ctx, rng, op, table, "each of them"),
            )
        else:
            columns = settable(ctx, table, exclude={f.column.name for f in filters})
            if not columns:
                continue
            column = rng.choice(columns)
            try:
                value = new_value(ctx, table, column, {r[column.name] for r in matched}, rng)
            except Skip:
                continue
            calls += [update_call(ctx, table, r["id"], {column.name: value}) for r in matched]
            action = ctx.phrases.render(
                rng, "writes", "set_column_plural", column=field_words(column), value=ctx.show(column, value)
            )
            text = ctx.phrases.render(
                rng,
                NAME,
                "set_all",
                entity=ctx.noun(table),
                plural=plural_words(table),
                conditions=conditions,
                action=action,
            )
        knobs = {
            "writes": writes,
            "filters": len(filters) + bool(base),
            "parent": bool(base),
            "change": "operation" if op is not None else "set",
            "distractors": near,
        }
        return Candidate(
            NAME,
            level,
            knobs,
            sentence(text),
            calls,
            grounding=[*grounding, Grounding(tool=ctx.need_tool("list", table), arguments=args, total=writes)],
        )
    raise Skip("no_matching_filters")
