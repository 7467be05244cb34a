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
* ``partial`` "the customer Lee from Springfield" (one word of the name matches several
              rows; a second attribute singles one out: the ``disambiguations`` knob)
* ``grandparent`` a ``parent`` description whose parent is itself described by ``parent``
* ``partial_parent``, ``partial_rank``, ``partial_grandparent``: the same with the topmost row
              named by ``partial``

Every description carries groundings (list calls with the totals they must return in
the initial state), so a task never names a row its wording does not single out.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pipeline.runtime.task import Grounding, ToolCall
from pipeline.tasks.context import Context, Where
from pipeline.tasks.filters import Filter, Rows, merge
from pipeline.tasks.model import Skip
from pipeline.tasks.words import CODE_LIKE, column_words, relation_words, with_article
from pipeline.world.schema import Column, Table
from pipeline.world.sqlnames import quote_ident

Mode = Literal[
    "id",
    "label",
    "partial",
    "attrs",
    "parent",
    "rank",
    "grandparent",
    "partial_parent",
    "partial_rank",
    "partial_grandparent",
]
INDIRECTION: dict[str, int] = {
    "id": 0,
    "label": 1,
    "partial": 2,
    "attrs": 2,
    "parent": 3,
    "rank": 3,
    "partial_parent": 3,
    "partial_rank": 3,
    "grandparent": 4,
    "partial_grandparent": 4,
}
WORD = re.compile(r"\b[A-Za-z]{4,}\b")
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
        return [ctx.read_call(self.table, self.row["id"])]


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
    return Found(
        table,
        row,
        phrase,
        [ctx.list_call(table, {table.label: row[table.label]})],
        [g],
        {"ids_given": False, "filters": 1, "distractors": 0},
        {table.name},
        ctx.label_text(table, row),
        {table.label},
    )


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
        for b in columns[i + 1 :]:
            fb = Filter.matching(b, row[b.name])
            if fb is None:
                continue
            args = merge([fa, fb])
            if ctx.total(table, args) == 1:
                clause = ctx.conditions(rng, [fa, fb])
                phrase = ctx.phrases.render(
                    rng, "common", "entity_described", entity=ctx.noun(table), conditions=clause
                )
                knobs = {"ids_given": False, "filters": 2, "distractors": alone - 1}
                return Found(
                    table,
                    row,
                    phrase,
                    [ctx.list_call(table, args)],
                    [ctx.ground(table, args)],
                    knobs,
                    {table.name},
                    used={a.name, b.name},
                )
    return None


def _by_partial(ctx: Context, rng: random.Random, table: Table, row: dict[str, Any]) -> Found | None:
    """One word of the row's name, which several rows share, plus a second attribute only this row has."""
    label = table.column(table.label)
    contains = f"{label.name}_contains"
    tool = ctx.tool("list", table)
    if tool is None or row[label.name] is None or label.values or label.references or label.semantic in CODE_LIKE:
        return None
    if contains not in ctx.toolset.get(tool).parameters["properties"]:
        return None
    # A word of the name, never one that only restates what the record is ("Hotel" of a hotel).
    generic = set(f"{table.noun} {table.plural} {column_words(label)}".casefold().split())
    words = [w for w in dict.fromkeys(WORD.findall(str(row[label.name]))) if w.casefold() not in generic]
    rng.shuffle(words)
    columns = ctx.describers(table)
    rng.shuffle(columns)
    for word in words[:3]:
        # The rows the word matches, read once: each second attribute is counted over them rather
        # than by another scan of the table (a tool's count still confirms the one that is kept).
        sharing = ctx.rows(table, Where(label.name, "contains", word))
        alone = len(sharing)
        if alone < 2:
            continue
        for c in columns:
            f = Filter.matching(c, row[c.name])
            if f is None or int(sharing.column(c.name).mask(f).sum()) != 1:
                continue
            args = {contains: word, **f.arguments()}
            if ctx.total(table, args) != 1:
                continue
            phrase = ctx.phrases.render(
                rng,
                "common",
                "entity_partial",
                entity=ctx.noun(table),
                word=word,
                column=column_words(label),
                a_column=with_article(column_words(label)),
                conditions=ctx.condition(rng, f, relative=False),
            )
            knobs = {"ids_given": False, "filters": 2, "distractors": alone - 1, "disambiguations": 1}
            return Found(
                table,
                row,
                phrase,
                [ctx.list_call(table, args)],
                [ctx.ground(table, {contains: word}), ctx.ground(table, args)],
                knobs,
                {table.name},
                used={c.name},
            )
    return None


def _child_filter(ctx: Context, table: Table, row: dict[str, Any], fk: Column, rng: random.Random) -> Filter | None:
    """An attribute that singles ``row`` out among its parent's children."""
    columns = list(ctx.describers(table))
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
        # The row's own attribute as a phrase: the one relative clause of the description is
        # "whose <relation> is <parent>", or the parent's own.
        clause = ctx.condition(rng, f, relative=False)
        form = "entity_of_parent" if parent.short else "entity_of_described_parent"
        phrase = ctx.phrases.render(
            rng,
            "common",
            form,
            entity=ctx.noun(table),
            relation=relation_words(fk),
            parent=parent.short or parent.phrase,
            conditions=clause,
        )
        distractors = ctx.total(table, {fk.name: row[fk.name]}) - 1
        knobs = {
            "ids_given": False,
            "filters": 1 + parent.knobs.get("filters", 0),
            "distractors": distractors,
            "disambiguations": parent.knobs.get("disambiguations", 0),
        }
        return Found(
            table,
            row,
            phrase,
            [*parent.locate, ctx.list_call(table, args)],
            [*parent.grounding, ctx.ground(table, args)],
            knobs,
            parent.tables | {table.name},
            used={fk.name, f.column.name},
        )
    return None


def ranked(
    ctx: Context,
    rng: random.Random,
    table: Table,
    fk: Column,
    parent_id: int,
    by: Column,
    extra: list[Filter],
    descending: bool,
) -> tuple[dict[str, Any], dict[str, Any], Grounding] | None:
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


def _by_rank(
    ctx: Context, rng: random.Random, table: Table, row: dict[str, Any], upper: Mode = "label"
) -> Found | None:
    """Only rows that *are* the latest/earliest child of their parent qualify."""
    times = [c for c in ctx.times(table) if c.name in ctx.filterable(table) and not c.nullable]
    fks = [fk for fk in table.foreign_keys if row[fk.name] is not None and fk.name in ctx.filterable(table)]
    if not times or not fks:
        return None
    fk, by = rng.choice(fks), rng.choice(times)
    parent_table = ctx.parent_of(fk)
    parent = describe(ctx, rng, parent_table, ctx.row(parent_table, row[fk.name]), upper)
    if parent is None:
        return None
    descending = rng.random() < 0.7
    top = ranked(ctx, rng, table, fk, row[fk.name], by, [], descending)
    if top is None or top[0]["id"] != row["id"]:
        return None
    _, args, g = top
    form = "entity_latest" if descending else "entity_earliest"
    form += "" if parent.short else "_described"
    phrase = ctx.phrases.render(
        rng,
        "common",
        form,
        entity=ctx.noun(table),
        relation=relation_words(fk),
        parent=parent.short or parent.phrase,
        column=column_words(by),
    )
    knobs = {
        "ids_given": False,
        "filters": 1,
        "distractors": ctx.total(table, {fk.name: row[fk.name]}) - 1,
        "disambiguations": parent.knobs.get("disambiguations", 0),
    }
    return Found(
        table,
        row,
        phrase,
        [*parent.locate, ctx.list_call(table, args)],
        [*parent.grounding, g],
        knobs,
        parent.tables | {table.name},
        used={fk.name, by.name},
    )


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
    elif mode == "partial":
        found = _by_partial(ctx, rng, table, row)
    elif mode == "partial_parent":
        found = _by_parent(ctx, rng, table, row, "partial")
    elif mode == "partial_rank":
        found = _by_rank(ctx, rng, table, row, "partial")
    elif mode == "partial_grandparent":
        found = _by_parent(ctx, rng, table, row, "partial_parent")
    else:
        found = _by_rank(ctx, rng, table, row)
    if found is not None:
        found.knobs["indirection"] = INDIRECTION[mode]
        found.knobs["ids_given"] = mode == "id"
    return found


def _rank_rows(ctx: Context, table: Table) -> Rows:
    """Rows that are the newest or oldest child of their parent by some time column.

    One pass over the held columns per (reference, time column) (:func:`_ends`): a correlated
    subquery per row would read every sibling of every row, which grows with the square of a
    parent's children.
    """
    if ("rank", table.name) not in ctx.memo:
        ids: set[int] = set()
        rows = ctx.rows(table)
        for fk in table.foreign_keys:
            for col in ctx.times(table):
                ids |= _ends(ctx, table, rows, fk.name, col.name)
        ctx.memo[("rank", table.name)] = rows.with_ids(ids)
    return ctx.memo[("rank", table.name)]


def _ends(ctx: Context, table: Table, rows: Rows, fk: str, col: str) -> set[int]:
    """Ids of the rows whose ``col`` is the latest or earliest among the rows of their parent (``fk``):
    from the held columns in one pass where the times are all text (SQL's ``max``/``min`` order them
    as Python does), else by one grouped query."""
    parents, times = rows.column(fk).values, rows.column(col).values
    if all(v is None or type(v) is str for v in times):
        hi: dict[Any, str] = {}
        lo: dict[Any, str] = {}
        for p, v in zip(parents, times):
            if p is None or v is None:
                continue
            if p not in hi:
                hi[p] = lo[p] = v
            elif v > hi[p]:
                hi[p] = v
            elif v < lo[p]:
                lo[p] = v
        ids = rows.column("id").values
        return {i for i, p, v in zip(ids, parents, times) if v is not None and p in hi and (v == hi[p] or v == lo[p])}
    t, f, c = quote_ident(table.name), quote_ident(fk), quote_ident(col)
    return {
        r[0]
        for r in ctx.conn.execute(
            f"SELECT a.id FROM {t} a JOIN (SELECT {f} AS p, max({c}) AS hi, min({c}) AS lo FROM {t} "
            f"WHERE {f} IS NOT NULL GROUP BY {f}) g ON a.{f} = g.p AND (a.{c} = g.hi OR a.{c} = g.lo)"
        )
    }


def find(
    ctx: Context,
    rng: random.Random,
    tables: list[Table],
    mode: Mode | tuple[Mode, ...],
    accept: Any = None,
    tries: int = MAX_TRIES,
) -> Found:
    """A random row of one of ``tables`` (passing ``accept(table, row)``) described in ``mode``.

    A tuple of modes is a preference order: a domain too shallow for the first (no
    grandparents, say) falls back to the next, and the task's knobs record what was used.
    """
    modes: tuple[Mode, ...] = mode if isinstance(mode, tuple) else (mode,)
    for m in modes:
        usable = [t for t in tables if m != "label" or ctx.nameable(t)]
        for _ in range(tries if usable else 0):
            table = rng.choice(usable)
            rows = _rank_rows(ctx, table) if m in ("rank", "partial_rank") else ctx.rows(table)
            if not rows:
                continue
            row = rng.choice(rows)
            if accept is not None and not accept(table, row):
                continue
            found = describe(ctx, rng, table, row, m)
            if found is not None:
                return found
    raise Skip(f"no_subject_{modes[0]}")


def _child_counts(ctx: Context, table: Table, fk: Column) -> list[tuple[Any, int]]:
    """(parent id, rows of ``table`` referencing it) for every parent with some, by parent id: one
    grouped read per build, not one per try of every family that names a parent."""
    key = ("child_counts", table.name, fk.name)
    if key not in ctx.memo:
        ref = quote_ident(fk.name)
        ctx.memo[key] = ctx.conn.execute(
            f"SELECT {ref}, count(*) FROM {quote_ident(table.name)} "
            f"WHERE {ref} IS NOT NULL GROUP BY {ref} ORDER BY {ref}"
        ).fetchall()
    counts: list[tuple[Any, int]] = ctx.memo[key]
    return counts


def named_parent(
    ctx: Context, rng: random.Random, table: Table, min_children: int, max_children: int = 10**9, tries: int = MAX_TRIES
) -> tuple[Column, Found, Rows]:
    """A parent of ``table`` rows, named by its label, with a fitting number of children (held rows)."""
    fks = [fk for fk in table.foreign_keys if fk.name in ctx.filterable(table) and ctx.parent_of(fk).name != table.name]
    if not fks:
        raise Skip("domain_lacks_relation")
    for _ in range(tries):
        fk = rng.choice(fks)
        parent_table = ctx.parent_of(fk)
        sizes = _child_counts(ctx, table, fk)
        fitting = [pid for pid, n in sizes if min_children <= n <= max_children]
        if not fitting:
            continue
        parent_row = ctx.row(parent_table, rng.choice(fitting))
        found = describe(ctx, rng, parent_table, parent_row, "label")
        if found is not None:
            return fk, found, ctx.rows(table, Where(fk.name, "=", parent_row["id"]))
    raise Skip("no_subject_parent")
