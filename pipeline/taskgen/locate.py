"""Naming one row the way a user would, and the calls an agent needs to find it.

A *mode* says how indirect the description is (the ``indirection`` knob):

* ``id``      "the order with id 12" (ids given; 0 searches)
* ``label``   "order ORD-104233" (1 search; the label must be unique in the table)
* ``attrs``   "the gold-tier customer from Springfield" (1 search with two filters that
              only this row meets, while other rows meet one of them: distractors)
* ``parent``  "the order of customer Ann Lee placed on March 4, 2025" (find the parent,
              then the one child with that attribute: 2 searches)
* ``rank``    "customer Ann Lee's most recent order" (find the parent, then its children
              sorted: 2 searches; the top must not be tied)
* ``grandparent`` a ``parent`` description whose parent is itself described by ``parent``

Every description carries groundings (list calls with the totals they must return in
the initial state), so a task never names a row its wording does not single out.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Literal

from pipeline.schema import Column, Table
from pipeline.taskgen.context import Context, Filter, column_words, merge, relation_words
from pipeline.taskgen.model import Grounding, Skip, ToolCall

Mode = Literal["id", "label", "attrs", "parent", "rank", "grandparent"]
INDIRECTION: dict[str, int] = {"id": 0, "label": 1, "attrs": 2, "parent": 3, "rank": 3, "grandparent": 4}
MAX_TRIES = 40


@dataclass
class Found:
    """A located row: its wording, the reads that find it and the facts that make it unique."""

    table: Table
    row: dict[str, Any]
    phrase: str
    """A noun phrase with its article: "the order ORD-104233"."""
    locate: list[ToolCall]
    """Reads that reveal the row's id (empty when the id is given)."""
    grounding: list[Grounding] = field(default_factory=list)
    knobs: dict[str, Any] = field(default_factory=dict)
    tables: set[str] = field(default_factory=set)
    short: str = ""
    """What follows "whose customer is": the bare name when named by label, else the phrase."""
    used: set[str] = field(default_factory=set)
    """Columns of the row the description already mentions (not worth asking about)."""

    def read(self, ctx: Context) -> list[ToolCall]:
        """Reads that reveal the row's values (a list result carries the whole row)."""
        if self.locate:
            return list(self.locate)
        return [ToolCall(tool=ctx.need_tool("get", self.table), arguments={"id": self.row["id"]})]


def _unique_label(ctx: Context, table: Table, row: dict[str, Any]) -> Grounding | None:
    if not ctx.nameable(table) or row[table.label] is None:
        return None
    g = ctx.ground(table, {table.label: row[table.label]})
    return g if g.total == 1 else None


def _by_label(ctx: Context, rng: random.Random, table: Table, row: dict[str, Any]) -> Found | None:
    g = _unique_label(ctx, table, row)
    if g is None:
        return None
    phrase = ctx.phrases.render(rng, "common", "entity_named", name=ctx.name(table, row))
    return Found(table, row, phrase, [ctx.list_call(table, {table.label: row[table.label]})], [g],
                 {"ids_given": False, "filters": 1, "distractors": 0}, {table.name}, ctx.label_text(table, row),
                 {table.label})


def _by_attrs(ctx: Context, rng: random.Random, table: Table, row: dict[str, Any]) -> Found | None:
    columns = ctx.describers(table)
    rng.shuffle(columns)
    for i, a in enumerate(columns):
        fa = Filter.matching(a, row[a.name])
        if fa is None:
            continue
        alone = ctx.total(table, fa.arguments())
        if alone < 2:
            continue
        for b in columns[i + 1:]:
            fb = Filter.matching(b, row[b.name])
            if fb is None:
                continue
            args = merge([fa, fb])
            if ctx.total(table, args) == 1:
                clause = ctx.conditions(rng, [fa, fb])
                phrase = ctx.phrases.render(rng, "common", "entity_described", entity=ctx.noun(table),
                                            conditions=clause)
                knobs = {"ids_given": False, "filters": 2, "distractors": alone - 1}
                return Found(table, row, phrase, [ctx.list_call(table, args)], [ctx.ground(table, args)], knobs,
                             {table.name}, used={a.name, b.name})
    return None


def _child_filter(ctx: Context, table: Table, row: dict[str, Any], fk: Column, rng: random.Random) -> Filter | None:
    """An attribute that singles ``row`` out among its parent's children."""
    columns = [c for c in ctx.describers(table)]
    rng.shuffle(columns)
    for c in columns:
        f = Filter.matching(c, row[c.name])
        if f is not None and ctx.total(table, {fk.name: row[fk.name], **f.arguments()}) == 1:
            return f
    return None


def _by_parent(ctx: Context, rng: random.Random, table: Table, row: dict[str, Any], upper: Mode) -> Found | None:
    fks = [fk for fk in table.foreign_keys if row[fk.name] is not None and fk.name in ctx.filterable(table)]
    rng.shuffle(fks)
    for fk in fks:
        parent_table = ctx.parent_of(fk)
        if parent_table.name == table.name:
            continue
        parent = describe(ctx, rng, parent_table, ctx.row(parent_table, row[fk.name]), upper)
        if parent is None:
            continue
        f = _child_filter(ctx, table, row, fk, rng)
        if f is None:
            continue
        args = {fk.name: row[fk.name], **f.arguments()}
        clause = ctx.condition(rng, f)
        form = "entity_of_parent" if parent.short else "entity_of_described_parent"
        phrase = ctx.phrases.render(rng, "common", form, entity=ctx.noun(table), relation=relation_words(fk),
                                    parent=parent.short or parent.phrase, conditions=clause)
        distractors = ctx.total(table, {fk.name: row[fk.name]}) - 1
        knobs = {"ids_given": False, "filters": 1 + parent.knobs.get("filters", 0), "distractors": distractors}
        return Found(table, row, phrase, parent.locate + [ctx.list_call(table, args)],
                     parent.grounding + [ctx.ground(table, args)], knobs, parent.tables | {table.name},
                     used={fk.name, f.column.name})
    return None


def ranked(ctx: Context, rng: random.Random, table: Table, fk: Column, parent_id: int, by: Column,
           extra: list[Filter], descending: bool) -> tuple[dict[str, Any], dict[str, Any], Grounding] | None:
    """The top child of one parent by ``by`` (with filters), if it is not tied."""
    base = {fk.name: parent_id, **merge(extra)}
    result = ctx.call(ctx.need_tool("list", table), {**base, "order_by": by.name, "descending": descending, "limit": 2})
    items = result["items"]
    if not items or items[0][by.name] is None:
        return None
    if len(items) > 1 and items[1][by.name] == items[0][by.name]:
        return None
    top = items[0][by.name]
    if by.semantic in ("timestamp", "date"):
        suffix = "_from" if descending else "_to"
    else:
        suffix = "_min" if descending else "_max"
    bound = {**base, by.name + suffix: top}
    g = ctx.ground(table, bound)
    if g.total != 1:
        return None
    call_args = {**base, "order_by": by.name, "descending": descending, "limit": 1}
    return items[0], call_args, g


def _by_rank(ctx: Context, rng: random.Random, table: Table, row: dict[str, Any]) -> Found | None:
    """Only rows that *are* the latest/earliest child of their parent qualify."""
    times = [c for c in ctx.times(table) if c.name in ctx.filterable(table) and not c.nullable]
    fks = [fk for fk in table.foreign_keys if row[fk.name] is not None and fk.name in ctx.filterable(table)]
    if not times or not fks:
        return None
    fk, by = rng.choice(fks), rng.choice(times)
    parent_table = ctx.parent_of(fk)
    parent = describe(ctx, rng, parent_table, ctx.row(parent_table, row[fk.name]), "label")
    if parent is None:
        return None
    descending = rng.random() < 0.7
    top = ranked(ctx, rng, table, fk, row[fk.name], by, [], descending)
    if top is None or top[0]["id"] != row["id"]:
        return None
    _, args, g = top
    form = "entity_latest" if descending else "entity_earliest"
    phrase = ctx.phrases.render(rng, "common", form, entity=ctx.noun(table), relation=relation_words(fk),
                                parent=parent.short or parent.phrase, column=column_words(by))
    knobs = {"ids_given": False, "filters": 1, "distractors": ctx.total(table, {fk.name: row[fk.name]}) - 1}
    return Found(table, row, phrase, parent.locate + [ctx.list_call(table, args)], parent.grounding + [g], knobs,
                 parent.tables | {table.name}, used={fk.name, by.name})


def describe(ctx: Context, rng: random.Random, table: Table, row: dict[str, Any], mode: Mode) -> Found | None:
    """Describe ``row`` in ``mode``; None when this row cannot be singled out that way."""
    found: Found | None
    if mode == "id":
        phrase = ctx.phrases.render(rng, "common", "entity_by_id", entity=ctx.noun(table), id=row["id"])
        found = Found(table, row, phrase, [], [], {"ids_given": True, "filters": 0, "distractors": 0}, {table.name})
    elif mode == "label":
        found = _by_label(ctx, rng, table, row)
    elif mode == "attrs":
        found = _by_attrs(ctx, rng, table, row)
    elif mode == "parent":
        found = _by_parent(ctx, rng, table, row, "label")
    elif mode == "grandparent":
        found = _by_parent(ctx, rng, table, row, "parent")
    else:
        found = _by_rank(ctx, rng, table, row)
    if found is not None:
        found.knobs["indirection"] = INDIRECTION[mode]
        found.knobs["ids_given"] = mode == "id"
    return found


def _rank_rows(ctx: Context, table: Table) -> list[dict[str, Any]]:
    """Rows that are the newest or oldest child of their parent by some time column."""
    if ("rank", table.name) in ctx.memo:
        return [dict(r) for r in ctx.memo[("rank", table.name)]]
    ids: set[int] = set()
    for fk in table.foreign_keys:
        for col in ctx.times(table):
            for agg in ("max", "min"):
                t, f, c = f'"{table.name}"', f'"{fk.name}"', f'"{col.name}"'
                ids.update(r[0] for r in ctx.conn.execute(
                    f"SELECT a.id FROM {t} a WHERE a.{f} IS NOT NULL AND a.{c} = "
                    f"(SELECT {agg}(b.{c}) FROM {t} b WHERE b.{f} = a.{f})"))
    ctx.memo[("rank", table.name)] = [r for r in ctx.rows(table) if r["id"] in ids]
    return [dict(r) for r in ctx.memo[("rank", table.name)]]


def find(ctx: Context, rng: random.Random, tables: list[Table], mode: Mode | tuple[Mode, ...],
         accept: Any = None, tries: int = MAX_TRIES) -> Found:
    """A random row of one of ``tables`` (passing ``accept(table, row)``) described in ``mode``.

    A tuple of modes is a preference order: a domain too shallow for the first (no
    grandparents, say) falls back to the next, and the task's knobs record what was used.
    """
    modes: tuple[Mode, ...] = mode if isinstance(mode, tuple) else (mode,)
    for m in modes:
        usable = [t for t in tables if m != "label" or ctx.nameable(t)]
        for _ in range(tries if usable else 0):
            table = rng.choice(usable)
            rows = _rank_rows(ctx, table) if m == "rank" else ctx.rows(table)
            if not rows:
                continue
            row = rng.choice(rows)
            if accept is not None and not accept(table, row):
                continue
            found = describe(ctx, rng, table, row, m)
            if found is not None:
                return found
    raise Skip(f"no_subject_{modes[0]}")


def named_parent(ctx: Context, rng: random.Random, table: Table, min_children: int, max_children: int = 10**9,
                 tries: int = MAX_TRIES) -> tuple[Column, Found, list[dict[str, Any]]]:
    """A parent of ``table`` rows, named by its label, with a fitting number of children."""
    fks = [fk for fk in table.foreign_keys if fk.name in ctx.filterable(table) and ctx.parent_of(fk).name != table.name]
    if not fks:
        raise Skip("domain_lacks_relation")
    for _ in range(tries):
        fk = rng.choice(fks)
        parent_table = ctx.parent_of(fk)
        sizes = ctx.conn.execute(f'SELECT "{fk.name}", count(*) FROM "{table.name}" WHERE "{fk.name}" IS NOT NULL '
                                 f'GROUP BY "{fk.name}" ORDER BY "{fk.name}"').fetchall()
        fitting = [pid for pid, n in sizes if min_children <= n <= max_children]
        if not fitting:
            continue
        parent_row = ctx.row(parent_table, rng.choice(fitting))
        found = describe(ctx, rng, parent_table, parent_row, "label")
        if found is not None:
            return fk, found, ctx.rows(table, f'WHERE "{fk.name}" = ?', (parent_row["id"],))
    raise Skip("no_subject_parent")
