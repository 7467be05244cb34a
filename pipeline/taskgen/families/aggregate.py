"""Aggregation: max/min, sum or average of a numeric column, optionally grouped.

Knobs: aggregation kind, filters, whether rows hang off a named parent, grouping (which
parent has the highest total), and ``pages``: how many list pages of at most 50 rows a
solution reads when it does not use the ``aggregate`` tool. The reference uses that
tool when the toolset has one and pages through the list tool otherwise; the expected
answer is always computed from the rows themselves, and the two must agree.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from typing import Any

from pipeline.schema import Column, Table
from pipeline.taskgen.context import Context, Filter, merge, relation_words, words
from pipeline.taskgen.families._common import AMOUNT_TOLERANCE
from pipeline.taskgen.locate import named_parent
from pipeline.taskgen.model import Candidate, Grounding, Skip, ToolCall
from pipeline.taskgen.phrasing import sentence
from pipeline.tools import MAX_PAGE_SIZE
from pipeline.verify import AnswerCheck

NAME = "aggregate"
KNOBS = ("aggregation", "filters", "parent", "pages", "grouped")
LEVELS: dict[int, dict[str, Any]] = {
    0: {"aggregation": "extreme", "filters": 0},
    1: {"aggregation": "sum", "filters": 1, "pages": 1},
    2: {"aggregation": "avg", "filters": 2, "pages": 1},
    3: {"aggregation": "sum_or_avg", "filters": 1, "pages": 2},
    4: {"aggregation": "sum", "filters": 0, "parent": True, "pages": 1},
    5: {"aggregation": "grouped_sum", "filters": 0},
}
AGG_WORDS = {"sum": "total", "avg": "average"}
SUMMABLE = frozenset({"money", "quantity", "decimal"})
"""Sums of ratings, percentages or years mean nothing to a user; those get averages."""
TRIES = 4


def _numeric(ctx: Context, table: Table) -> list[Column]:
    ok = ctx.filterable(table)
    return [c for c in ctx.numeric(table) if c.name in ok]


def _aggregate(ctx: Context, table: Table, metric: str, column: Column | None, where: dict[str, Any],
               **extra: Any) -> tuple[ToolCall, Any] | None:
    """The aggregate-tool call for this question and its result, or None without that tool."""
    tool = next((t.name for t in ctx.toolset.tools if t.kind == "aggregate"), None)
    if tool is None:
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
    values = [r[column.name] for r in ctx.rows(table) if r[column.name] is not None]
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
    text = ctx.phrases.render(rng, NAME, "extreme", extreme=extreme, column=words(column.name),
                              entity=ctx.noun(table), plural=words(table.name))
    check = AnswerCheck(kind="number", expected=value, tolerance=0.005 if column.sql_type == "REAL" else 0.0)
    knobs = {"aggregation": "max" if descending else "min", "filters": 0, "parent": False, "pages": 1,
             "grouped": False}
    return Candidate(NAME, level, knobs, sentence(text) + " " + ctx.phrases.render(rng, "common", "answer_number"),
                     [call], value, check, (table.name,))


def _grouped(ctx: Context, rng: random.Random, level: int) -> Candidate:
    """Which parent (by name) has the highest total of a child's amount (a lowest total
    would tie among every parent without children, so it is never asked)."""
    pairs = [(t, fk) for t in ctx.schema.tables for fk in t.foreign_keys
             if fk.name in ctx.filterable(t) and ctx.nameable(ctx.parent_of(fk)) and ctx.parent_of(fk).name != t.name
             and [c for c in _numeric(ctx, t) if c.semantic in SUMMABLE]]
    if not pairs:
        raise Skip("domain_lacks_numbers")
    table, fk = rng.choice(pairs)
    column = rng.choice([c for c in _numeric(ctx, table) if c.semantic in SUMMABLE])
    parent = ctx.parent_of(fk)
    rows, pages = ctx.fetch_all(table, {})
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
    via = _aggregate(ctx, table, "sum", column, {}, group_by=fk.name, descending=True, limit=MAX_PAGE_SIZE)
    if via is not None and via[1]["total_groups"] <= MAX_PAGE_SIZE:
        call, result = via
        keys = [g["key"] for g in result["groups"] if g["key"] is not None]
        if not keys or keys[0] != winner["id"]:
            raise Skip("aggregate_mismatch")
        calls = [call]
    else:
        calls = pages
    calls.append(ToolCall(tool=ctx.need_tool("get", parent), arguments={"id": winner["id"]}))
    text = ctx.phrases.render(rng, NAME, "grouped", group=relation_words(fk),
                              column=words(column.name), plural=words(table.name))
    suffix = ctx.phrases.render(rng, "common", "answer_name", label=words(parent.label))
    knobs = {"aggregation": "grouped_sum", "filters": 0, "parent": False, "pages": len(pages) + 1, "grouped": True}
    return Candidate(NAME, level, knobs, sentence(text) + " " + suffix, calls, label,
                     AnswerCheck(kind="text", expected=label), (table.name, parent.name),
                     [Grounding(tool=ctx.need_tool("list", parent), arguments={parent.label: label}, total=1)])


def _value(column: Column, values: list[float], agg: str) -> tuple[float | int, float]:
    """The aggregate, rounded as a user would read it, and its tolerance."""
    if agg == "sum":
        total = sum(values)
        return (round(total, 2), AMOUNT_TOLERANCE) if column.sql_type == "REAL" else (int(total), 0.0)
    return round(sum(values) / len(values), 2), AMOUNT_TOLERANCE


def _total(ctx: Context, rng: random.Random, level: int, spec: dict[str, Any]) -> Candidate:
    agg = spec["aggregation"] if spec["aggregation"] != "sum_or_avg" else rng.choice(("sum", "avg"))
    pages = spec["pages"]
    low, high = MAX_PAGE_SIZE * (pages - 1) + 1, MAX_PAGE_SIZE * pages
    tables = [t for t in ctx.schema.tables if _numeric(ctx, t) and len(ctx.filter_columns(t)) > spec["filters"]
              and (not spec.get("parent") or t.foreign_keys) and ctx.total(t, {}) >= low]
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
    watch = {table.name}
    rows = ctx.rows(table)
    if spec.get("parent"):
        fk, parent, rows = named_parent(ctx, rng, table, 2, MAX_PAGE_SIZE)
        base = {fk.name: parent.row["id"]}
        clauses.append(ctx.phrases.render(rng, "count", "parent_condition", relation=relation_words(fk),
                                          parent=parent.short or parent.phrase))
        locate, grounding, watch = parent.locate, parent.grounding, watch | parent.tables
    rows = [r for r in rows if r[column.name] is not None]
    filters: list[Filter] = ctx.pick_filters(rng, table, spec["filters"], rows, low=max(2, low), high=high,
                                             exclude=frozenset({column.name})) if spec["filters"] else []
    args = {**base, **merge(filters)}
    items, reads = ctx.fetch_all(table, args)
    values = [float(r[column.name]) for r in items if r[column.name] is not None]
    if len(values) < 2 or len(reads) != pages:
        raise Skip("no_matching_filters")
    if agg == "avg" and len(values) != len(items):
        raise Skip("nulls_in_column")
    value, tolerance = _value(column, values, agg)
    via = _aggregate(ctx, table, agg, column, args)
    if via is not None:
        if not _agrees(via[1]["groups"][0]["value"], value, tolerance):
            raise Skip("aggregate_mismatch")
        reads = [via[0]]
    clauses += [ctx.condition(rng, f) for f in filters]
    conditions = ", ".join(clauses[:-1]) + " and " + clauses[-1] if len(clauses) > 1 else "".join(clauses)
    text = ctx.phrases.render(rng, NAME, "total", agg=AGG_WORDS[agg], column=words(column.name),
                              plural=words(table.name), conditions=conditions)
    form = "answer_amount" if tolerance else "answer_number"
    knobs = {"aggregation": agg, "filters": len(filters) + bool(base), "parent": bool(base), "pages": pages,
             "grouped": False}
    return Candidate(NAME, level, knobs, sentence(text) + " " + ctx.phrases.render(rng, "common", form),
                     locate + reads, value, AnswerCheck(kind="number", expected=value, tolerance=tolerance),
                     tuple(sorted(watch)), grounding)


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    spec = LEVELS[level]
    last = Skip("no_subject")
    for _ in range(TRIES):
        try:
            if spec["aggregation"] == "extreme":
                return _extreme(ctx, rng, level)
            if spec["aggregation"] == "grouped_sum":
                return _grouped(ctx, rng, level)
            return _total(ctx, rng, level, spec)
        except Skip as skip:
            last = skip
            if skip.reason.startswith("domain_lacks"):
                break
    raise last
