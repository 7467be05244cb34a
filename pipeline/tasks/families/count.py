"""Filtered count or list: how many rows (or which ones) meet some conditions.

Knobs: the number of filter constraints, whether the rows hang off a parent the user
names, whether the answer is a count or the set of names, and at the top level a
fan-out count (children of each child of a named parent: one search per middle row).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from pipeline.runtime.task import Grounding, ToolCall
from pipeline.runtime.verify import AnswerCheck
from pipeline.tasks.context import Context, Where
from pipeline.tasks.families._common import fanout_anchor, fanout_chains
from pipeline.tasks.filters import Filter, merge
from pipeline.tasks.locate import named_parent
from pipeline.tasks.model import Candidate, Skip
from pipeline.tasks.phrasing import sentence
from pipeline.tasks.words import field_words, plural_words, relation_words

NAME = "count"
KNOBS = ("filters", "parent", "answer", "fanout")
LEVELS: dict[int, dict[str, Any]] = {
    0: {"filters": 1, "parent": False, "answer": "count"},
    1: {"filters": 2, "parent": False, "answer": "count"},
    2: {"filters": 2, "parent": False, "answer": "set"},
    3: {"filters": 1, "parent": True, "answer": "count"},
    4: {"filters": 1, "parent": True, "answer": "count", "fanout": True},
}
MAX_LISTED = 8
TRIES = 30


def _fanout(ctx: Context, rng: random.Random, level: int) -> Candidate:
    """Children of every child of a named parent: A -> B (3-6 rows) -> C, counted."""
    chains = fanout_chains(ctx)
    if not chains:
        raise Skip("domain_lacks_hops")
    for _ in range(TRIES):
        anchor = fanout_anchor(ctx, rng, chains)
        if anchor is None:
            continue
        (c, fk_c, b, fk_b), a_row, middles, parent = anchor
        pool = [r for m in middles for r in ctx.rows(c, Where(fk_c.name, "=", m["id"]))]
        filters = ctx.pick_filters(rng, c, 1, pool) if pool and rng.random() < 0.7 else []
        middle_rows, calls = ctx.fetch_all(b, {fk_b.name: a_row["id"]})
        total = 0
        for m in middle_rows:
            args = {fk_c.name: m["id"], **merge(filters), "limit": 1}
            total += int(ctx.call(ctx.need_tool("list", c), args)["total"])
            calls.append(ctx.list_call(c, args))
        if total == 0:
            continue
        slots = {"plural": plural_words(c), "middle_plural": plural_words(b), "parent": parent.phrase}
        if filters:
            text = ctx.phrases.render(rng, NAME, "fanout", conditions=ctx.conditions(rng, filters), **slots)
        else:
            text = ctx.phrases.render(rng, NAME, "fanout_any", **slots)
        text = sentence(text) + " " + ctx.phrases.render(rng, "common", "answer_number")
        knobs = {
            "filters": len(filters),
            "parent": True,
            "answer": "count",
            "fanout": len(middle_rows),
            "hops": 2,
            "pages": 0,
            "disambiguations": parent.knobs.get("disambiguations", 0),
        }
        return Candidate(
            NAME,
            level,
            knobs,
            text,
            parent.locate + calls,
            total,
            AnswerCheck(kind="number", expected=total),
            grounding=[*parent.grounding, ctx.ground(b, {fk_b.name: a_row["id"]})],
        )
    raise Skip("no_subject_fanout")


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    spec = LEVELS[level]
    if spec.get("fanout"):
        return _fanout(ctx, rng, level)
    want_set = spec["answer"] == "set"
    tables = [
        t
        for t in ctx.schema.tables
        if len(ctx.filter_columns(t)) >= spec["filters"]
        and (not spec["parent"] or t.foreign_keys)
        and (not want_set or ctx.nameable(t))
    ]
    if not tables:
        raise Skip("domain_lacks_filters")
    table = rng.choice(tables)
    base: dict[str, Any] = {}
    grounding: list[Grounding] = []
    locate: list[ToolCall] = []
    parent_clause = ""
    rows: Sequence[dict[str, Any]] = ctx.rows(table)
    if spec["parent"]:
        fk, parent, rows = named_parent(ctx, rng, table, 3)
        base = {fk.name: parent.row["id"]}
        grounding, locate = parent.grounding, parent.locate
        parent_clause = ctx.phrases.render(
            rng, NAME, "parent_condition", relation=relation_words(fk), parent=parent.short or parent.phrase
        )
    high = MAX_LISTED if want_set else 10**9
    filters: list[Filter] = ctx.pick_filters(rng, table, spec["filters"], rows, low=2 if want_set else 1, high=high)
    args = {**base, **merge(filters)}
    clauses = ([parent_clause] if parent_clause else []) + [ctx.condition(rng, f) for f in filters]
    conditions = ", ".join(clauses[:-1]) + " and " + clauses[-1] if len(clauses) > 1 else clauses[0]
    if want_set:
        items, calls = ctx.fetch_all(table, args)
        labels = [r[table.label] for r in items]
        if len(set(labels)) != len(labels) or not 2 <= len(labels) <= MAX_LISTED:
            raise Skip("ambiguous_names")
        answer: Any = sorted(labels)
        check = AnswerCheck(kind="set", expected=answer)
        text = ctx.phrases.render(
            rng, NAME, "list", plural=plural_words(table), entity=ctx.noun(table), conditions=conditions
        )
        suffix = ctx.phrases.render(rng, "common", "answer_names", label=field_words(table.column(table.label)))
    else:
        answer = ctx.total(table, args)
        calls = [ctx.list_call(table, {**args, "limit": 1})]
        check = AnswerCheck(kind="number", expected=answer)
        text = ctx.phrases.render(rng, NAME, "count", plural=plural_words(table), conditions=conditions)
        suffix = ctx.phrases.render(rng, "common", "answer_number")
    knobs = {
        "filters": len(filters) + bool(base),
        "parent": bool(base),
        "answer": spec["answer"],
        "fanout": 0,
        "hops": 1 if base else 0,
        "pages": len(calls) if want_set else 0,
    }
    return Candidate(
        NAME,
        level,
        knobs,
        sentence(text) + " " + suffix,
        locate + calls,
        answer,
        check,
        grounding=grounding,
    )
