"""Top-k ranking: the row(s) with the highest or lowest value, by name.

Knobs: k (1 or 3), filters, whether the rows hang off a named parent, and at the top
level ``grouped``: rank parents by how many children they have, which means reading
every child row (several pages) and every parent's name. A ranking whose k-th and
(k+1)-th values tie has no single correct answer and is never asked. The top k are
asked for in order ("highest first", checked as an ordered list) when their values are
all different, and as a set (any order) when two of them tie.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from pipeline.runtime.task import Grounding, ToolCall
from pipeline.runtime.verify import AnswerCheck
from pipeline.tasks.context import Context
from pipeline.tasks.filters import keep, merge
from pipeline.tasks.locate import named_parent
from pipeline.tasks.model import Candidate, Skip
from pipeline.tasks.phrasing import sentence
from pipeline.tasks.words import NUMERIC, TIMES, field_words, plural_words, relation_words
from pipeline.tools.specs import MAX_PAGE_SIZE
from pipeline.world.schema import Table

NAME = "topk"
KNOBS = ("k", "filters", "parent", "grouped", "pages", "ordered")
LEVELS: dict[int, dict[str, Any]] = {
    0: {"k": 1, "filters": 0},
    1: {"k": 3, "filters": 0},
    2: {"k": 3, "filters": 1},
    3: {"k": 1, "filters": 0, "parent": True},
    4: {"k": 3, "grouped": True},
}


TRIES = 6


def _grouped(ctx: Context, rng: random.Random, level: int, want: int) -> Candidate:
    pairs = [
        (c, fk)
        for c in ctx.schema.tables
        for fk in c.foreign_keys
        if fk.name in ctx.filterable(c) and ctx.parent_of(fk).name != c.name and ctx.nameable(ctx.parent_of(fk))
    ]
    rng.shuffle(pairs)
    for child, fk in pairs[:8]:
        k = want
        parent = ctx.parent_of(fk)
        # A date or threshold condition no report takes: counting needs every page of the list.
        finer = frozenset(c.name for c in ctx.filter_columns(child) if c.semantic in TIMES or c.semantic in NUMERIC)
        try:
            filters = ctx.pick_filters(
                rng,
                child,
                1,
                ctx.rows(child),
                low=MAX_PAGE_SIZE + 1,
                exclude=frozenset(c.name for c in child.columns) - finer,
            )
        except Skip:
            filters = []
        where = merge(filters)
        rows, calls = ctx.fetch_all(child, where)
        counts = Counter(r[fk.name] for r in rows if r[fk.name] is not None)
        ranked = counts.most_common()
        fits = [n for n in (k, 2) if len(ranked) > n and ranked[n - 1][1] != ranked[n][1]]
        if not fits:
            continue
        k = fits[0]
        top_ids = [pid for pid, _ in ranked[:k]]
        parents, parent_calls = ctx.fetch_all(parent, {})
        labels = [p[parent.label] for p in parents if p["id"] in top_ids]
        if len(set(labels)) != k:
            continue
        via = _aggregate_count(ctx, child, fk, k) if not filters else None
        if via is not None and set(via[1]) == set(top_ids):
            calls = [via[0]]
            parent_calls = [ctx.read_call(parent, pid) for pid in via[1]]
        else:
            # The counts give the winners' ids; their names take one read each.
            parent_calls = [ctx.read_call(parent, pid) for pid in top_ids]
        text = ctx.phrases.render(
            rng,
            NAME,
            "grouped_filtered" if filters else "grouped",
            k=k,
            plural=plural_words(child),
            group=relation_words(fk),
            group_plural=plural_words(parent),
            **({"conditions": ctx.conditions(rng, filters)} if filters else {}),
        )
        label_of = {p["id"]: p[parent.label] for p in parents if p["id"] in top_ids}
        answer, check, suffix = _answer(
            ctx,
            rng,
            [label_of[pid] for pid in top_ids],
            [n for _, n in ranked[:k]],
            "most",
            field_words(parent.column(parent.label)),
        )
        pages = len(calls)
        knobs = {"k": k, "filters": len(filters), "parent": False, "grouped": True, "pages": pages}
        knobs["ordered"] = check.kind == "list"
        return Candidate(
            NAME,
            level,
            knobs,
            sentence(text) + " " + suffix,
            calls + parent_calls,
            answer,
            check,
        )
    raise Skip("tied_answer")


def _answer(
    ctx: Context, rng: random.Random, ranked: list[Any], values: list[Any], order: str, label: str
) -> tuple[list[Any], AnswerCheck, str]:
    """Labels in rank order with their ranking values: an ordered list when no two values tie
    (the instruction then says "<order> first"), else a set (any order); and the sentence asking."""
    if len(set(values)) == len(values):
        suffix = ctx.phrases.render(rng, "common", "answer_names_ordered", label=label, order=order)
        return list(ranked), AnswerCheck(kind="list", expected=list(ranked)), suffix
    suffix = ctx.phrases.render(rng, "common", "answer_names", label=label)
    return sorted(ranked), AnswerCheck(kind="set", expected=sorted(ranked)), suffix


def _aggregate_count(ctx: Context, child: Table, fk: Any, k: int) -> tuple[ToolCall, list[Any]] | None:
    """Top ``k`` parents by number of children through the aggregate tool, when there is one."""
    tool = ctx.stats_tool(child, {}, fk.name)
    if tool is None:
        return None
    # One spare group: rows without a parent form a group of their own, which is skipped.
    args = {"table": child.name, "metric": "count", "group_by": fk.name, "descending": True, "limit": k + 1}
    groups = ctx.call(tool, args)["groups"]
    return ToolCall(tool=tool, arguments=args), [g["key"] for g in groups if g["key"] is not None][:k]


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    spec = LEVELS[level]
    k = spec["k"]
    if spec.get("grouped"):
        return _grouped(ctx, rng, level, k)
    last = Skip("tied_answer")
    for _ in range(TRIES):
        try:
            return _ranking(ctx, rng, level, spec, k)
        except Skip as skip:
            last = skip
            if skip.reason.startswith("domain_lacks"):
                break
    raise last


def _ranking(ctx: Context, rng: random.Random, level: int, spec: dict[str, Any], k: int) -> Candidate:
    tables = [
        t
        for t in ctx.schema.tables
        if ctx.nameable(t)
        and [c for c in ctx.numeric(t) if c.name in ctx.filterable(t)]
        and len(ctx.filter_columns(t)) >= spec["filters"] + 1
        and (not spec.get("parent") or t.foreign_keys)
    ]
    if not tables:
        raise Skip("domain_lacks_numbers")
    table: Table = rng.choice(tables)
    column = rng.choice([c for c in ctx.numeric(table) if c.name in ctx.filterable(table)])
    base: dict[str, Any] = {}
    clauses: list[str] = []
    locate: list[ToolCall] = []
    grounding: list[Grounding] = []
    rows: Sequence[dict[str, Any]] = ctx.rows(table)
    if spec.get("parent"):
        fk, parent, rows = named_parent(ctx, rng, table, k + 1, 50)
        base = {fk.name: parent.row["id"]}
        clauses.append(
            ctx.phrases.render(
                rng, "count", "parent_condition", relation=relation_words(fk), parent=parent.short or parent.phrase
            )
        )
        locate, grounding = parent.locate, parent.grounding
    filters = (
        ctx.pick_filters(rng, table, spec["filters"], rows, low=k + 1, exclude=frozenset({column.name}))
        if spec["filters"]
        else []
    )
    descending = rng.random() < 0.65
    bound = {**base, **merge(filters)}
    matching = keep(rows, filters)
    if not descending and any(r[column.name] is None for r in matching):
        # Empty values sort first ascending: skip them with the column's lower bound.
        if column.min is None:
            raise Skip("nulls_in_column")
        bound[f"{column.name}_min"] = column.min if column.sql_type == "REAL" else int(column.min)
    result = ctx.call(
        ctx.need_tool("list", table), {**bound, "order_by": column.name, "descending": descending, "limit": k + 1}
    )
    items = result["items"]
    if len(items) <= k or items[k - 1][column.name] is None or items[k - 1][column.name] == items[k][column.name]:
        raise Skip("tied_answer")
    labels = [r[table.label] for r in items[:k]]
    if len(set(labels)) != k:
        raise Skip("ambiguous_names")
    edge = items[k - 1][column.name]
    grounding = [
        *grounding,
        ctx.ground(table, {**bound, f"{column.name}_min" if descending else f"{column.name}_max": edge}),
    ]
    if grounding[-1].total != k:
        raise Skip("tied_answer")
    call = ctx.list_call(table, {**bound, "order_by": column.name, "descending": descending, "limit": k})
    clauses += [ctx.condition(rng, f) for f in filters]
    if not clauses:
        clauses = [ctx.phrases.render(rng, NAME, "everything")]
    conditions = ", ".join(clauses[:-1]) + " and " + clauses[-1] if len(clauses) > 1 else clauses[0]
    extreme = "highest" if descending else "lowest"
    slots = {
        "entity": ctx.noun(table),
        "plural": plural_words(table),
        "conditions": conditions,
        "extreme": extreme,
        "column": field_words(column),
    }
    if k == 1:
        text = ctx.phrases.render(rng, NAME, "argmax", **slots)
        suffix = ctx.phrases.render(rng, "common", "answer_name", label=field_words(table.column(table.label)))
        answer: Any = labels[0]
        check = AnswerCheck(kind="text", expected=labels[0])
    else:
        text = ctx.phrases.render(rng, NAME, "topk", k=k, **slots)
        answer, check, suffix = _answer(
            ctx, rng, labels, [r[column.name] for r in items[:k]], extreme, field_words(table.column(table.label))
        )
    knobs = {
        "k": k,
        "filters": len(filters) + bool(base),
        "parent": bool(base),
        "grouped": False,
        "pages": 1,
        "ordered": check.kind == "list",
    }
    return Candidate(
        NAME,
        level,
        knobs,
        sentence(text) + " " + suffix,
        [*locate, call],
        answer,
        check,
        grounding=grounding,
    )
