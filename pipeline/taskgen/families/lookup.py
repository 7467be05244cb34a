"""Attribute lookup: read one field of one row the user names.

Difficulty comes only from how the row is named (the ``indirection`` knob): by id, by
its label, by two attributes that other rows share one of (distractors), through its
parent, as its parent's latest child, or through a grandparent.
"""

from __future__ import annotations

import random

from pipeline.taskgen.context import Context, column_words
from pipeline.taskgen.families._common import answer_for
from pipeline.taskgen.locate import find
from pipeline.taskgen.model import Candidate, Skip
from pipeline.taskgen.phrasing import sentence

NAME = "lookup"
KNOBS = ("ids_given", "indirection", "filters", "distractors")
LEVELS = {
    0: {"mode": "id"},
    1: {"mode": "label"},
    2: {"mode": "attrs"},
    3: {"mode": "parent"},
    4: {"mode": ("rank", "parent")},
    5: {"mode": ("grandparent", "parent")},
}
TRIES = 4


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    mode = LEVELS[level]["mode"]
    tables = [t for t in ctx.schema.tables if ctx.attributes(t)]
    for _ in range(TRIES):
        # The description may use up a row's attributes; then another row is described.
        found = find(ctx, rng, tables, mode)
        options = [c for c in ctx.attributes(found.table)
                   if found.row[c.name] is not None and c.name not in found.used and c.semantic != "timestamp"]
        if options:
            break
    else:
        raise Skip("no_attribute")
    column = rng.choice(options)
    value = found.row[column.name]
    check, suffix = answer_for(ctx, rng, column, value)
    question = ctx.phrases.render(rng, NAME, "question", attribute=column_words(column), subject=found.phrase)
    knobs = {**found.knobs, "hops": 0}
    return Candidate(NAME, level, knobs, sentence(question) + " " + suffix, found.read(ctx), value, check,
                     tuple(sorted(found.tables)), found.grounding)
