"""Aggregation: max/min, sum or average of a numeric column, optionally grouped.

Knobs: aggregation kind, filters, whether rows hang off a named parent, grouping (which
parent has the highest total, over a condition no report takes), a fan-out total at the
top level (the children of every child of a named parent), and ``pages``: how many list pages of at most 50 rows a
solution reads when the table's statistics tool cannot answer (it takes only a status,
category, flag or related record). The reference uses that tool when it can and pages
through the list tool otherwise; the expected
answer is always computed from the rows themselves, and the two must agree.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from pipeline.runtime.task import Grounding, ToolCall
from pipeline.runtime.verify import AnswerCheck
from pipeline.tasks.context import Context
from pipeline.tasks.families._common import AMOUNT_TOLERANCE, fanout_anchor, fanout_chains
from pipeline.tasks.filters import Filter, merge
from pipeline.tasks.locate import named_parent
from pipeline.tasks.model import Candidate, Skip
from pipeline.tasks.phrasing import sentence
from pipeline.tasks.words import NUMERIC, TIMES, field_words, plural_words, relation_words
from pipeline.tools.specs import MAX_PAGE_SIZE
from pipeline.world.schema import Column, Table

NAME = "aggregate"
KNOBS = ("aggregation", "filters", "parent", "pages", "grouped")
LEVELS: dict[int, dict[str, Any]] = {
    0: {"aggregation": "extreme", "filters": 0},
    1: {"aggregation": "sum", "filters": 1, "pages": 1},
    2: {"aggregation": "avg", "filters": 2, "pages": 1},
    3: {"aggregation": "sum_or_avg", "filters": 1, "pages": 1, "finer": True},
    4: {"aggregation": "fanout_or_grouped", "filters": 0},
}
AGG_WORDS = {"sum": "total", "avg": "average"}
SUMMABLE = frozenset({"money", "quantity", "decimal"})
"""Sums of ratings, percentages or years mean nothing to a user; those get averages."""
TRIES = 4


def _numeric(ctx: Context, table: Table) -> list[Column]:
    ok = ctx.filterable(table)
    return [c for c in ctx.numeric(table) if c.name in ok]


def _aggregate(
    ctx: Context, table: Table, metric: str, column: Column | None, where: dict[str, Any], **extra: Any
) -> tuple[ToolCall, Any] | None:
    """The aggregate-tool call for this question and its result, or None without that tool."""
    tool = ctx.stats_tool(table, where, extra.get("group_by"))
    if tool is None:
        return None
    if column is not None and column.name not in ctx.toolset.get(tool).parameters["properties"]["column"]["enum"]:
        return None
    args: dict[str, Any] = {"table": table.name, "metric": metric, **extra}
    if column is not None:
        args["column"] = column.name
    if where:
        args["where"] = where
    return ToolCall(tool=tool, arguments=args), ctx.call(tool, args)


def _agrees(got: Any, want: float, tolerance: float) -> bool:
    return got is not None and math.isclose(float(got), float(want), abs_tol=max(tolerance, 1e-6))


def _extreme(ctx: Context, rng: random.Random, level: int) -> Candidate:
    tables = [t for t in ctx.schema.tables if _numeric(ctx, t)]
    if not tables:
        raise Skip("domain_lacks_numbers")
    table = rng.choice(tables)
    column = rng.choice(_numeric(ctx, table))
    descending = rng.random() < 0.6
    values = [v for v in ctx.values(table, column.name) if v is not None]
    if not values:
        raise Skip("no_subject")
    value = max(values) if descending else min(values)
    via = _aggregate(ctx, table, "max" if descending else "min", column, {})
    if via is not None:
        call, result = via
        if not _agrees(result["groups"][0]["value"], value, 0.0):
            raise Skip("aggregate_mismatch")
    else:
        args: dict[str, Any] = {"order_by": column.name, "descending": descending, "limit": 1}
        if not descending and len(values) < ctx.total(table, {}):
            if column.min is None:
                raise Skip("nulls_in_column")
            args[f"{column.name}_min"] = column.min if column.sql_type == "REAL" else int(column.min)
        call = ctx.list_call(table, args)
    extreme = "highest" if descending else "lowest"
    text = ctx.phrases.render(
        rng,
        NAME,
        "extreme",
        extreme=extreme,
        column=field_words(column),
        entity=ctx.noun(table),
        plural=plural_words(table),
    )
    check = AnswerCheck(kind="number", expected=value)
    knobs = {"aggregation": "max" if descending else "min", "filters": 0, "parent": False, "pages": 1, "grouped": False}
    return Candidate(
        NAME,
        level,
        knobs,
        sentence(text) + " " + ctx.phrases.render(rng, "common", "answer_number"),
        [call],
        value,
        check,
    )


def _grouped(ctx: Context, rng: random.Random, level: int) -> Candidate:
    """Which parent (by name) has the highest total of a child's amount (a lowest total
    would tie among every parent without children, so it is never asked)."""
    pairs = [
        (t, fk)
        for t in ctx.schema.tables
        for fk in t.foreign_keys
        if fk.name in ctx.filterable(t)
        and ctx.nameable(ctx.parent_of(fk))
        and ctx.parent_of(fk).name != t.name
        and [c for c in _numeric(ctx, t) if c.semantic in SUMMABLE]
    ]
    if not pairs:
        raise Skip("domain_lacks_numbers")
    table, fk = rng.choice(pairs)
    column = rng.choice([c for c in _numeric(ctx, table) if c.semantic in SUMMABLE])
    parent = ctx.parent_of(fk)
    # A date or threshold condition no report takes, over more rows than one page holds: the
    # answer needs every page of the list (the ``pages`` knob), then the winner's name.
    finer = frozenset(c.name for c in ctx.filter_columns(table) if c.semantic in TIMES or c.semantic in NUMERIC)
    all_rows = ctx.rows(table).having(column.name)
    try:
        filters = ctx.pick_filters(
            rng, table, 1, all_rows, low=MAX_PAGE_SIZE + 1, exclude=frozenset(c.name for c in table.columns) - finer
        )
    except Skip:
        filters = []
    where = merge(filters)
    rows, pages = ctx.fetch_all(table, where)
    sums: dict[int, float] = defaultdict(float)
    for r in rows:
        if r[column.name] is not None and r[fk.name] is not None:
            sums[r[fk.name]] += float(r[column.name])
    ranked = sorted(sums.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    if len(ranked) < 2 or abs(ranked[0][1] - ranked[1][1]) < 0.5:
        raise Skip("tied_answer")
    winner = ctx.row(parent, ranked[0][0])
    label = winner[parent.label]
    if ctx.total(parent, {parent.label: label}) != 1:
        raise Skip("ambiguous_names")
    via = _aggregate(ctx, table, "sum", column, where, group_by=fk.name, descending=True, limit=MAX_PAGE_SIZE)
    if via is not None and via[1]["total_groups"] <= MAX_PAGE_SIZE:
        call, result = via
        keys = [g["key"] for g in result["groups"] if g["key"] is not None]
        if not keys or keys[0] != winner["id"]:
            raise Skip("aggregate_mismatch")
        calls = [call]
    else:
        calls = pages
    calls.append(ctx.read_call(parent, winner["id"]))
    if filters:
        text = ctx.phrases.render(
            rng,
            NAME,
            "grouped_filtered",
            group=relation_words(fk),
            column=field_words(column),
            plural=plural_words(table),
            conditions=ctx.conditions(rng, filters),
        )
    else:
        text = ctx.phrases.render(
            rng, NAME, "grouped", group=relation_words(fk), column=field_words(column), plural=plural_words(table)
        )
    suffix = ctx.phrases.render(rng, "common", "answer_name", label=field_words(parent.column(parent.label)))
    knobs = {
        "aggregation": "grouped_sum",
        "filters": len(filters),
        "parent": False,
        "pages": len(pages) + 1,
        "grouped": True,
    }
    return Candidate(
        NAME,
        level,
        knobs,
        sentence(text) + " " + suffix,
        calls,
        label,
        AnswerCheck(kind="text", expected=label),
        grounding=[Grounding(tool=ctx.need_tool("list", parent), arguments={parent.label: label}, total=1)],
    )


def _fanout_sum(ctx: Context, rng: random.Random, level: int) -> Candidate:
    """A total over the children of every child of a named parent (A -> B, 3-6 rows -> C): one
    read of A, one of its B rows, then one per B row (the report where it has one, else the list)."""
    chains = [chain for chain in fanout_chains(ctx) if [n for n in _numeric(ctx, chain[0]) if n.semantic in SUMMABLE]]
    if not chains:
        raise Skip("domain_lacks_hops")
    for _ in range(12):
        anchor = fanout_anchor(ctx, rng, chains)
        if anchor is None:
            continue
        (c, fk_c, b, fk_b), a_row, _middles, parent = anchor
        column = rng.choice([n for n in _numeric(ctx, c) if n.semantic in SUMMABLE])
        middle_rows, calls = ctx.fetch_all(b, {fk_b.name: a_row["id"]})
        values: list[float] = []
        for m in middle_rows:
            via = _aggregate(ctx, c, "sum", column, {fk_c.name: m["id"]})
            items, reads = ctx.fetch_all(c, {fk_c.name: m["id"]})
            got = [float(r[column.name]) for r in items if r[column.name] is not None]
            values += got
            if via is not None and _agrees(via[1]["groups"][0]["value"] or 0.0, sum(got), AMOUNT_TOLERANCE):
                reads = [via[0]]
            calls += reads
        if len(values) < 2:
            continue
        try:
            value, rounded = _value(column, values, "sum")
        except Skip:
            continue
        text = ctx.phrases.render(
            rng,
            NAME,
            "fanout",
            column=field_words(column),
            plural=plural_words(c),
            middle_plural=plural_words(b),
            parent=parent.phrase,
        )
        form = "answer_amount" if rounded else "answer_number"
        knobs = {
            "aggregation": "fanout_sum",
            "filters": 0,
            "parent": True,
            "pages": sum(1 for call in calls if call.tool == ctx.tool("list", c)),
            "grouped": False,
            "fanout": len(middle_rows),
            "disambiguations": parent.knobs.get("disambiguations", 0),
        }
        return Candidate(
            NAME,
            level,
            knobs,
            sentence(text) + " " + ctx.phrases.render(rng, "common", form),
            [*parent.locate, *calls],
            value,
            AnswerCheck(kind="number", expected=value),
            grounding=[*parent.grounding, ctx.ground(b, {fk_b.name: a_row["id"]})],
        )
    raise Skip("no_subject_fanout")


def _value(column: Column, values: list[float], agg: str) -> tuple[float | int, bool]:
    """The aggregate rounded as the instruction asks (two decimals, half up, from the exact
    decimal values), and whether it was rounded; a value on a rounding boundary (x.xx5) has
    two defensible answers and is never asked."""
    exact = sum((Decimal(repr(float(v))) for v in values), Decimal(0))
    if agg == "sum" and column.sql_type != "REAL":
        return int(exact), False
    if agg == "avg":
        exact = exact / len(values)
    if abs((exact * 100) % 1 - Decimal("0.5")) < Decimal("1e-6"):
        raise Skip("rounding_tie")
    return float(exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)), True


def _total(ctx: Context, rng: random.Random, level: int, spec: dict[str, Any]) -> Candidate:
    agg = spec["aggregation"] if spec["aggregation"] != "sum_or_avg" else rng.choice(("sum", "avg"))
    pages = spec["pages"]
    low, high = MAX_PAGE_SIZE * (pages - 1) + 1, MAX_PAGE_SIZE * pages
    tables = [
        t
        for t in ctx.schema.tables
        if _numeric(ctx, t)
        and len(ctx.filter_columns(t)) > spec["filters"]
        and (not spec.get("parent") or t.foreign_keys)
        and ctx.total(t, {}) >= low
    ]
    if not tables:
        raise Skip("domain_lacks_pages" if pages > 1 else "domain_lacks_numbers")
    table = rng.choice(tables)
    numbers = _numeric(ctx, table)
    if agg == "sum":
        numbers = [c for c in numbers if c.semantic in SUMMABLE] or numbers
        if numbers[0].semantic not in SUMMABLE:
            agg = "avg"
    column = rng.choice(numbers)
    base: dict[str, Any] = {}
    clauses: list[str] = []
    locate: list[ToolCall] = []
    grounding: list[Grounding] = []
    rows = ctx.rows(table)
    if spec.get("parent"):
        fk, parent, rows = named_parent(ctx, rng, table, 2, MAX_PAGE_SIZE)
        base = {fk.name: parent.row["id"]}
        clauses.append(
            ctx.phrases.render(
                rng, "count", "parent_condition", relation=relation_words(fk), parent=parent.short or parent.phrase
            )
        )
        locate, grounding = parent.locate, parent.grounding
    # The held rows keep their columns, so the filter picking below reads them as masks.
    rows = rows.having(column.name)
    # A condition no report takes (a date or a threshold): the rows themselves must be read.
    coarse = frozenset(
        c.name
        for c in table.columns
        if (pages > 1 or spec.get("finer")) and c.semantic not in TIMES and c.semantic not in NUMERIC
    )
    filters: list[Filter] = (
        ctx.pick_filters(
            rng, table, spec["filters"], rows, low=max(2, low), high=high, exclude=frozenset({column.name}) | coarse
        )
        if spec["filters"]
        else []
    )
    args = {**base, **merge(filters)}
    items, reads = ctx.fetch_all(table, args)
    values = [float(r[column.name]) for r in items if r[column.name] is not None]
    if len(values) < 2 or len(reads) != pages:
        raise Skip("no_matching_filters")
    if agg == "avg" and len(values) != len(items):
        raise Skip("nulls_in_column")
    value, rounded = _value(column, values, agg)
    via = _aggregate(ctx, table, agg, column, args)
    if via is not None:
        if not _agrees(via[1]["groups"][0]["value"], value, AMOUNT_TOLERANCE if rounded else 0.0):
            raise Skip("aggregate_mismatch")
        reads = [via[0]]
    clauses += [ctx.condition(rng, f) for f in filters]
    conditions = ", ".join(clauses[:-1]) + " and " + clauses[-1] if len(clauses) > 1 else "".join(clauses)
    text = ctx.phrases.render(
        rng,
        NAME,
        "total",
        agg=AGG_WORDS[agg],
        column=field_words(column),
        plural=plural_words(table),
        conditions=conditions,
    )
    form = "answer_amount" if rounded else "answer_number"
    knobs = {
        "aggregation": agg,
        "filters": len(filters) + bool(base),
        "parent": bool(base),
        "pages": pages,
        "grouped": False,
    }
    return Candidate(
        NAME,
        level,
        knobs,
        sentence(text) + " " + ctx.phrases.render(rng, "common", form),
        locate + reads,
        value,
        AnswerCheck(kind="number", expected=value),
        grounding=grounding,
    )


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    spec = LEVELS[level]
    last = Skip("no_subject")
    for _ in range(TRIES):
        try:
            if spec["aggregation"] == "extreme":
                return _extreme(ctx, rng, level)
            if spec["aggregation"] == "fanout_or_grouped":
                try:
                    return _fanout_sum(ctx, rng, level)
                except Skip:
                    return _grouped(ctx, rng, level)
            if spec["aggregation"] == "grouped_sum":
                return _grouped(ctx, rng, level)
            return _total(ctx, rng, level, spec)
        except Skip as skip:
            last = skip
            if skip.reason.startswith("domain_lacks"):
                break
    raise last
