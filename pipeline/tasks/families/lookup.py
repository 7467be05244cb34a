"""Attribute lookup: read one field of one row the user names.

Difficulty comes from how the row is named (the ``indirection`` knob): by id, by its
label, by two attributes that other rows share one of (distractors), through its
parent, as its parent's latest child, or through a grandparent; at the top level two
rows, each reached through its own chain, are compared (``subjects``) and the answer is
the name of the one with the larger value.
"""

from __future__ import annotations

import random
from typing import Any

from pipeline.runtime.task import Grounding
from pipeline.runtime.verify import AnswerCheck
from pipeline.tasks.context import Context
from pipeline.tasks.families._common import answer_for
from pipeline.tasks.locate import find
from pipeline.tasks.model import Candidate, Skip
from pipeline.tasks.phrasing import sentence
from pipeline.tasks.words import column_words
from pipeline.world.schema import Table

NAME = "lookup"
KNOBS = ("ids_given", "indirection", "filters", "distractors")
LEVELS: dict[int, dict[str, Any]] = {
    0: {"mode": "id"},
    1: {"mode": "label"},
    2: {"mode": "attrs"},
    3: {"mode": "parent"},
    4: {"mode": ("partial_rank", "rank", "parent")},
}
TRIES = 4


def _compare(ctx: Context, rng: random.Random, level: int, mode: Any) -> Candidate:
    """Two rows, each reached through its own chain of relations: which has the larger value?
    Both chains must be walked (the answer is a name neither description gives)."""
    tables = [t for t in ctx.schema.tables if ctx.nameable(t) and [c for c in ctx.numeric(t) if c.name != t.label]]
    if not tables:
        raise Skip("domain_lacks_numbers")
    first = find(ctx, rng, tables, mode)
    table = first.table
    columns = [c for c in ctx.numeric(table) if first.row[c.name] is not None and c.name not in first.used]
    if not columns:
        raise Skip("no_attribute")
    column = rng.choice(columns)

    def other(t: Table, r: dict[str, Any]) -> bool:
        # Its own chain: no parent in common with the first row, so neither walk answers for the other.
        return (
            r["id"] != first.row["id"]
            and r[column.name] is not None
            and r[column.name] != first.row[column.name]
            and all(r[fk.name] != first.row[fk.name] for fk in table.foreign_keys)
        )

    second = find(ctx, rng, [table], mode, other)
    if second.phrase == first.phrase:
        raise Skip("duplicate_instruction")
    winner = max((first, second), key=lambda f: f.row[column.name]).row
    label = winner[table.label]
    if label is None or ctx.total(table, {table.label: label}) != 1:
        raise Skip("ambiguous_names")
    question = ctx.phrases.render(
        rng, NAME, "compare", attribute=column_words(column), first=first.phrase, second=second.phrase
    )
    suffix = ctx.phrases.render(rng, "common", "answer_name", label=column_words(table.column(table.label)))
    knobs = {
        **first.knobs,
        "hops": 0,
        "subjects": 2,
        "disambiguations": first.knobs.get("disambiguations", 0) + second.knobs.get("disambiguations", 0),
    }
    return Candidate(
        NAME,
        level,
        knobs,
        sentence(question) + " " + suffix,
        [*first.read(ctx), *second.read(ctx)],
        label,
        AnswerCheck(kind="text", expected=label),
        grounding=[
            *first.grounding,
            *second.grounding,
            Grounding(tool=ctx.need_tool("list", table), arguments={table.label: label}, total=1),
        ],
    )


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    mode = LEVELS[level]["mode"]
    if LEVELS[level].get("compare"):
        for _ in range(TRIES):
            try:
                return _compare(ctx, rng, level, mode)
            except Skip as skip:
                if skip.reason.startswith("domain_lacks"):
                    break
        # No two comparable rows: one row through its chain, as the level below.
    return _single(ctx, rng, level, mode)


def _single(ctx: Context, rng: random.Random, level: int, mode: Any) -> Candidate:
    tables = [t for t in ctx.schema.tables if ctx.attributes(t)]
    for _ in range(TRIES):
        # The description may use up a row's attributes; then another row is described.
        found = find(ctx, rng, tables, mode)
        calls = found.read(ctx)
        shown = _shown_before(ctx, calls)
        options = [
            c
            for c in ctx.attributes(found.table)
            if found.row[c.name] is not None
            and c.name not in found.used
            and c.semantic != "timestamp"
            and found.row[c.name] not in shown
        ]
        if options:
            break
    else:
        raise Skip("no_attribute")
    column = rng.choice(options)
    value = found.row[column.name]
    check, suffix = answer_for(ctx, rng, column, value)
    question = ctx.phrases.render(rng, NAME, "question", attribute=column_words(column), subject=found.phrase)
    knobs = {**found.knobs, "hops": 0}
    return Candidate(
        NAME,
        level,
        knobs,
        sentence(question) + " " + suffix,
        calls,
        value,
        check,
        grounding=found.grounding,
    )


def _shown_before(ctx: Context, calls: list[Any]) -> set[Any]:
    """Every value the reads before the last one show: an answer among them makes the last read a
    shortcut (a reservation's one payment equals the reservation's total, shown by the first read)."""
    seen: set[Any] = set()
    for call in calls[:-1]:
        result = ctx.call(call.tool, dict(call.arguments))
        rows = result.get("items", [result]) if isinstance(result, dict) else []
        for row in rows:
            if isinstance(row, dict):
                seen.update(v for v in row.values() if isinstance(v, str | int | float) and not isinstance(v, bool))
    return seen
