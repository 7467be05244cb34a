"""Multi-hop question: follow foreign keys from a named row to an ancestor, read a field.

Knobs: ``hops`` (1-3; a domain whose longest chain is shorter uses its longest, and
the task records the hops it really has) and how the starting row is named.
"""

from __future__ import annotations

import random
from typing import Any

from pipeline.tasks.context import Context
from pipeline.tasks.families._common import answer_for
from pipeline.tasks.locate import find
from pipeline.tasks.model import Candidate, Skip
from pipeline.tasks.phrasing import sentence
from pipeline.tasks.words import column_words, relation_words
from pipeline.world.schema import Column, Schema, Table

NAME = "multihop"
KNOBS = ("hops", "ids_given", "indirection", "filters", "distractors")
LEVELS: dict[int, dict[str, Any]] = {
    0: {"hops": 1, "mode": "id"},
    1: {"hops": 1, "mode": "label"},
    2: {"hops": 2, "mode": "label"},
    3: {"hops": 2, "mode": "attrs"},
    4: {"hops": 3, "mode": "label"},
}


def _up(table: Table) -> list[Column]:
    return [fk for fk in table.foreign_keys if fk.references != table.name]


def _depth(schema: Schema, name: str, seen: frozenset[str] = frozenset()) -> int:
    """Length of the longest foreign-key chain upward from table ``name`` (schemas are small)."""
    table = schema.table(name)
    return max(
        (1 + _depth(schema, str(fk.references), seen | {name}) for fk in _up(table) if fk.references not in seen),
        default=0,
    )


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    spec = LEVELS[level]
    longest = max(_depth(ctx.schema, t.name) for t in ctx.schema.tables)
    hops = min(spec["hops"], longest)
    if hops == 0:
        raise Skip("domain_lacks_relation")
    tables = [t for t in ctx.schema.tables if _depth(ctx.schema, t.name) >= hops]
    found = find(ctx, rng, tables, spec["mode"])
    table, row = found.table, found.row
    calls = found.read(ctx)
    relations: list[str] = []
    tables_seen = set(found.tables)
    for step in range(hops):
        remaining = hops - step - 1
        fks = [
            fk for fk in _up(table) if row[fk.name] is not None and _depth(ctx.schema, str(fk.references)) >= remaining
        ]
        if step == 0:
            fks = [fk for fk in fks if fk.name not in found.used] or fks
        # A hop back into a table the description already went through would reach a row the
        # instruction named itself: the chain could be skipped.
        fks = [fk for fk in fks if str(fk.references) not in tables_seen]
        if not fks:
            raise Skip("no_chain")
        fk = rng.choice(fks)
        table = ctx.parent_of(fk)
        row = ctx.row(table, row[fk.name])
        calls.append(ctx.read_call(table, row["id"]))
        relations.append(relation_words(fk))
        tables_seen.add(table.name)
    options = [
        c
        for c in [*ctx.attributes(table), table.column(table.label)]
        if row[c.name] is not None and c.semantic != "timestamp" and c.sql_type != "BOOLEAN"
    ]
    if not options:
        raise Skip("no_attribute")
    column = rng.choice(options)
    check, suffix = answer_for(ctx, rng, column, row[column.name])
    chain = " of the ".join(reversed(relations))
    question = ctx.phrases.render(
        rng, NAME, "question", attribute=column_words(column), chain=chain, subject=found.phrase
    )
    knobs = {**found.knobs, "hops": hops}
    return Candidate(
        NAME,
        level,
        knobs,
        sentence(question) + " " + suffix,
        calls,
        row[column.name],
        check,
        grounding=found.grounding,
    )
