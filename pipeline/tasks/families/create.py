"""Create a record that satisfies constraints: every required field, valid references.

Knobs: how many parents the new row references and how they are named (ids given, by
label, by description, as another parent's latest child), and ``derived``: a value the
user does not state but defines through another record ("the same amount as that
order's total"). Unique fields get fresh values, so the new row's natural key is unique.
"""

from __future__ import annotations

import random
from typing import Any

from pipeline.runtime.task import Grounding, ToolCall
from pipeline.tasks.context import Context
from pipeline.tasks.families._common import fresh_value
from pipeline.tasks.locate import Found, Mode, describe
from pipeline.tasks.model import Candidate, Skip
from pipeline.tasks.phrasing import sentence
from pipeline.tasks.words import column_words, field_words, relation_words
from pipeline.tools.specs import CreateTool
from pipeline.world.schema import Column, Table

NAME = "create"
KNOBS = ("references", "ids_given", "indirection", "derived")
LEVELS: dict[int, dict[str, Any]] = {
    0: {"plans": (((0,), "label"),)},
    1: {"plans": (((1, 2, 3), "id"),)},
    2: {"plans": ((1, "label"),)},
    3: {"plans": ((1, "attrs"), (1, "parent"), (2, "attrs"))},
    4: {
        "plans": (
            ((2, 3), ("partial_rank", "rank", "parent", "attrs", "label")),
            (1, ("partial_rank", "rank", "parent", "attrs")),
        ),
        "derived": True,
    },
}
"""Each plan is (how many parents the new row needs, how the first is named); plans are
tried in order, so a domain without, say, describable parents uses the next one. Other
parents are named by label (or id). ``derived`` applies when the first parent has a
value of the same kind as one of the new row's (else the task records ``derived: false``)."""
TRIES = 30
PLAN_TRIES = 3


def _required(ctx: Context, table: Table) -> list[Column]:
    tool = ctx.tool("create", table)
    if tool is None:
        return []
    writable = set(ctx.toolset.get(tool, CreateTool).columns)
    return [c for c in table.columns if c.name in writable and not c.nullable]


def _refs(ctx: Context, table: Table) -> list[Column]:
    return [c for c in _required(ctx, table) if c.references and c.references != table.name]


def _fits(ctx: Context, table: Table, refs: int | tuple[int, ...]) -> bool:
    counts = refs if isinstance(refs, tuple) else (refs,)
    required = _required(ctx, table)
    return (
        bool(required)
        and len(_refs(ctx, table)) in counts
        and all(c.references != table.name for c in required if c.references)
    )


def _choose_table(ctx: Context, rng: random.Random, refs: int | tuple[int, ...], derived: bool) -> Table:
    tables = [t for t in ctx.schema.tables if _fits(ctx, t, refs)]
    if derived:
        tables = [t for t in tables if _may_derive(ctx, t)] or tables
    if not tables:
        raise Skip("domain_lacks_relation")
    return rng.choice(tables)


def _name_parent(ctx: Context, rng: random.Random, fk: Column, modes: tuple[Mode, ...]) -> Found:
    parent = ctx.parent_of(fk)
    for mode in modes:
        for _ in range(TRIES // len(modes)):
            pool = ctx.rows(parent)
            found = describe(ctx, rng, parent, rng.choice(pool), mode)
            if found is not None:
                return found
    raise Skip(f"no_subject_{modes[0]}")


def _implied(ctx: Context, rng: random.Random, fk: Column, named: list[Found], mode: Mode) -> Found | None:
    """Keep the new row consistent: a fine for a loan goes to that loan's member."""
    for other in named:
        for c in other.table.foreign_keys:
            if c.references == fk.references and other.row[c.name] is not None:
                # Named as the other parent's own (the agent reads the id off that record): a search
                # by its name would repeat what the first record already says.
                parent = ctx.parent_of(fk)
                owner = other.short or other.phrase
                phrase = (
                    f"{ctx.noun(other.table)} {owner}'s {relation_words(c)}"
                    if other.short
                    else f"the {relation_words(c)} of {owner}"
                )
                return Found(
                    parent,
                    ctx.row(parent, other.row[c.name]),
                    phrase,
                    [],
                    [],
                    {"ids_given": False, "indirection": other.knobs.get("indirection", 0)},
                    {parent.name},
                )
    return None


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    spec = LEVELS[level]
    last = Skip("domain_lacks_relation")
    for refs, mode in spec["plans"]:
        for _ in range(PLAN_TRIES):
            try:
                return _build(
                    ctx, rng, level, refs, mode if isinstance(mode, tuple) else (mode,), spec.get("derived", False)
                )
            except Skip as skip:
                last = skip
    raise last


def _build(
    ctx: Context,
    rng: random.Random,
    level: int,
    counts: int | tuple[int, ...],
    first_modes: tuple[Mode, ...],
    derived: bool,
) -> Candidate:
    table = _choose_table(ctx, rng, counts, derived)
    refs = _refs(ctx, table)
    args: dict[str, Any] = {}
    calls: list[ToolCall] = []
    grounding: list[Grounding] = []
    parents: list[str] = []
    values: list[str] = []
    knobs: dict[str, Any] = {
        "references": len(refs),
        "ids_given": "id" in first_modes,
        "indirection": 0,
        "derived": False,
    }
    anchor: Found | None = None
    named: list[Found] = []
    for i, fk in enumerate(refs):
        modes: tuple[Mode, ...] = first_modes if i == 0 else (("id",) if "id" in first_modes else ("label", "attrs"))
        found = _implied(ctx, rng, fk, named, modes[0]) if i else None
        found = found or _name_parent(ctx, rng, fk, modes)
        named.append(found)
        anchor = anchor or found
        args[fk.name] = found.row["id"]
        calls += found.locate
        grounding += found.grounding
        knobs["indirection"] = max(knobs["indirection"], found.knobs.get("indirection", 0))
        knobs["disambiguations"] = knobs.get("disambiguations", 0) + found.knobs.get("disambiguations", 0)
        parents.append(
            found.phrase
            if relation_words(fk) == ctx.noun(found.table)
            else f"{found.phrase} (as its {relation_words(fk)})"
        )
    derived_from: tuple[Column, Column] | None = None
    if derived and anchor is not None:
        derived_from = _derivable(ctx, table, anchor)
    for col in _required(ctx, table):
        if col.references:
            continue
        if derived_from is not None and col.name == derived_from[0].name and anchor is not None:
            args[col.name] = anchor.row[derived_from[1].name]
            values.append(
                ctx.phrases.render(
                    rng,
                    NAME,
                    "derived",
                    column=column_words(col),
                    source=column_words(derived_from[1]),
                    owner=f"that {ctx.noun(anchor.table)}",
                )
            )
            knobs["derived"] = True
            continue
        taken = set(ctx.values(table, col.name)) if col.unique or col.name == table.label else set()
        value = fresh_value(ctx, table, col, rng, taken)
        args[col.name] = value
        shown = value if col.semantic in ("timestamp", "date") else ctx.show(col, value)
        values.append(ctx.phrases.render(rng, NAME, "value", column=field_words(col), value=shown))
    calls.append(ToolCall(tool=ctx.need_tool("create", table), arguments=args))
    listed = ", ".join(values[:-1]) + " and " + values[-1] if len(values) > 1 else "".join(values)
    if parents:
        text = ctx.phrases.render(
            rng, NAME, "create_for", entity=ctx.noun(table), parents=" and ".join(parents), values=listed
        )
    else:
        text = ctx.phrases.render(rng, NAME, "create", entity=ctx.noun(table), values=listed)
    return Candidate(NAME, level, knobs, sentence(text), calls, grounding=grounding)


def _derivable(ctx: Context, table: Table, anchor: Found) -> tuple[Column, Column] | None:
    """A required numeric column of the new row and a same-kind column of ``anchor``."""
    for col in _required(ctx, table):
        if col.references or col.sql_type not in ("REAL", "INTEGER"):
            continue
        for src in anchor.table.columns:
            value = anchor.row[src.name]
            if (
                src.semantic == col.semantic
                and value is not None
                and not src.primary_key
                and not src.references
                and (col.min is None or value >= col.min)
                and (col.max is None or value <= col.max)
            ):
                return col, src
    return None


def _may_derive(ctx: Context, table: Table) -> bool:
    """Whether the first parent has a column of the same kind as a required number."""
    refs = _refs(ctx, table)
    if not refs:
        return False
    parent = ctx.parent_of(refs[0])
    kinds = {c.semantic for c in parent.columns if not c.primary_key and not c.references}
    return any(
        c.semantic in kinds for c in _required(ctx, table) if c.sql_type in ("REAL", "INTEGER") and not c.references
    )
