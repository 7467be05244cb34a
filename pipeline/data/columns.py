"""Step 2, one column at a time: each column drawn as a whole array from its own seeded generator.

A column's generator is seeded by (seed, table, column), so adding a column never shifts another
column's values. References favour a few parents, money is log-normal, text comes from
:mod:`pipeline.data.values`, and times never precede the row's anchor (its creation time).
:mod:`pipeline.data.populate` assembles whole tables from these columns.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import Any

import numpy as np

from generators.base import stable_seed
from pipeline.data import values as pv
from pipeline.data.rules import time_bounds
from pipeline.data.vocab import load_vocab
from pipeline.world.schema import Column, Table, code_prefix
from pipeline.world.timeline import anchor_column as anchor_column
from pipeline.world.timeline import is_birth

HISTORY_DAYS = 730
ISO = "%Y-%m-%dT%H:%M:%S"
DAY = 86_400
EPOCH = datetime(1970, 1, 1)
CATEGORICAL = ("status", "enum")
TIME_KINDS = ("timestamp", "date")
Array = np.ndarray


def column_seed(seed: int, table: str, column: str) -> int:
    return stable_seed(seed, table, column)


def column_rng(seed: int, table: str, column: str) -> np.random.Generator:
    return np.random.default_rng(column_seed(seed, table, column))


def to_epoch(text: str) -> int:
    return int((datetime.strptime(text[:19], ISO if len(text) > 10 else "%Y-%m-%d") - EPOCH).total_seconds())


@dataclass
class TableData:
    """One table's generated columns (numpy arrays; times as epoch seconds) and null masks."""

    table: Table
    n: int
    values: dict[str, Array] = field(default_factory=dict)
    nulls: dict[str, Array] = field(default_factory=dict)
    anchor: Array | None = None
    """Creation time of each row, which children and later timestamps never precede."""
    routes: dict[str, Any] = field(default_factory=dict)
    """Status column -> each row's route through its lifecycle (:class:`pipeline.data.lifecycle.Routes`)."""


@dataclass
class Context:
    seed: int
    now: int
    data: dict[str, TableData]
    lines: frozenset[tuple[str, str]] = frozenset()
    """(table, FK column) pairs of line tables: every parent gets lines, lines are grouped by parent."""


def _name_has(column: Column, pattern: str) -> bool:
    return re.search(pattern, column.field or column.name) is not None


def _refs(table: Table, column: Column, n: int, g: np.random.Generator, ctx: Context) -> Array:
    if column.references == table.name:
        ids = np.arange(1, n + 1)
    else:
        parent = ctx.data[str(column.references)]
        ids = parent.values["id"] if "id" in parent.values else np.arange(1, parent.n + 1)
    m = len(ids)
    if column.unique:
        return ids[g.permutation(m)[:n]]
    if (table.name, column.name) in ctx.lines:
        # Every parent gets one line when there are enough, the rest a few more each; grouped by parent.
        if n < m:
            return np.sort(ids[g.choice(m, n, replace=False)])
        counts = 1 + g.multinomial(n - m, np.full(m, 1.0 / m))
        return np.repeat(ids, counts)
    if column.weights and len(column.weights) == m:
        return ids[pv.weighted_indices(g, column.weights, n)]
    # Zipf-like popularity over a shuffled order: a few parents get most children.
    order = g.permutation(m)
    s = 0.6 + 0.4 * g.random()
    return ids[order[pv.weighted_indices(g, pv.zipf(m, s), n)]]


def _categorical(table: Table, column: Column, n: int, g: np.random.Generator, cols: dict[str, Array]) -> Array:
    values = list(column.values or ())
    if column.unique:
        if n > len(values):
            raise ValueError(f"{table.name}.{column.name}: {n} rows but only {len(values)} distinct values")
        return pv.as_objects(values[:n])
    weights = list(column.weights) if column.weights else [1.0] * len(values)
    if column.follows and column.follows in cols:
        source = cols[column.follows]
        out = pv.as_objects([values[0]] * n)
        for v, nxt in sorted((column.transitions or {}).items()):
            rows = np.flatnonzero(source == v)
            if len(rows) and nxt:
                out[rows] = pv.as_objects(list(nxt))[g.integers(0, len(nxt), len(rows))]
        return out
    followers = [c for c in table.columns if c.follows == column.name]
    if followers:
        # A "from" state must have somewhere to go.
        moves = followers[0].transitions or {}
        weights = [w if moves.get(v) else 0.0 for v, w in zip(values, weights)]
        if not any(weights):
            weights = [1.0] * len(values)
    return pv.as_objects(values)[pv.weighted_indices(g, weights, n)]


def _numbers(column: Column, n: int, g: np.random.Generator) -> Array:
    sem = column.semantic
    if sem == "money":
        high = column.max if column.max is not None else 1000.0
        low = column.min if column.min is not None and column.min > 0 else min(1.0, high / 10)
        return pv.money(g, n, low, high, charm=_name_has(column, r"price|fee|rate"))
    if sem == "rating":
        return pv.ratings(g, n, int(column.min or 1), int(column.max or 5))
    low = int(column.min) if column.min is not None else 0
    if sem in ("quantity", "integer"):
        high = int(column.max) if column.max is not None else (100 if sem == "quantity" else 1000)
        if column.unique:
            if high - low + 1 < n:
                raise ValueError(f"{column.name}: range {low}..{high} too small for {n} unique values")
            return low + g.choice(high - low + 1, n, replace=False)
        if _name_has(column, r"stock|on_hand|in_stock|inventory|available"):
            # Stock is never negative and, where the range allows, now and then runs out.
            levels = pv.wide_integers(g, n, low, high)
            return np.where(g.random(n) < 0.06, low, levels) if low <= 0 else levels
        if _name_has(column, r"year"):
            return high - pv.small_skewed(g, n, 0, high - low)
        if high - low <= 30 or sem == "quantity":
            return pv.small_skewed(g, n, low, high)
        return pv.wide_integers(g, n, low, high)
    lo = column.min if column.min is not None else 0.0
    hi = column.max if column.max is not None else (100.0 if sem == "percent" else 1000.0)
    if sem == "percent":
        return np.round(lo + (hi - lo) * g.beta(1.6, 4.0, n), 2)
    return np.round(pv.lognormal_between(g, n, max(lo, 0.1), hi) if lo >= 0 else g.uniform(lo, hi, n), 2)


def _booleans(column: Column, n: int, g: np.random.Generator) -> Array:
    rare = _name_has(column, r"archiv|delet|flag|pinned|block|fraud|overdue|vip|priority|urgent|recall|hazard|smok")
    p = 0.08 + 0.15 * g.random() if rare else 0.75 + 0.2 * g.random()
    return (g.random(n) < p).astype(np.int64)


def _vocab_keys(table: Table, column: Column, ctx: Context, cols: dict[str, Array]) -> list[Any] | None:
    """Per row, the value picking the vocabulary's group: an enum's value, or the referenced row's label."""
    by = column.vocab_by
    if by is None or by not in cols:
        return None
    ref = table.column(by)
    if not ref.references:
        return cols[by].tolist()
    parent = ctx.data.get(str(ref.references))
    if parent is None:
        return None
    label = parent.table.label if parent.table.name == ref.references else None
    if label is None or label not in parent.values:
        return None
    return parent.values[label][cols[by] - 1].tolist()


def _from_vocab(
    table: Table, column: Column, n: int, g: np.random.Generator, cols: dict[str, Array], ctx: Context
) -> Array:
    """A column drawn from its vocabulary; names of things (labels, unique fields) redraw repeats a few
    times, each row within its own group, before a uniqueness number settles what is left."""
    vocab = load_vocab(str(column.vocab))
    keys = _vocab_keys(table, column, ctx, cols)
    key_arr = pv.as_objects(keys) if keys is not None else None

    def make(rows: Array) -> Array:
        return vocab.draw(g, len(rows), None if key_arr is None else key_arr[rows].tolist())

    values = make(np.arange(n))
    # Redrawing repeats pays only while the vocabulary has values to spare.
    if (column.unique or column.name == table.label) and n <= 200_000 and n <= 2 * vocab.capacity:
        for _ in range(6):
            rows = np.flatnonzero(pv.duplicates(values))
            if not len(rows):
                break
            values[rows] = make(rows)
    return pv.make_unique(values) if column.unique else values


def _text(table: Table, column: Column, n: int, g: np.random.Generator, cols: dict[str, Array], ctx: Context) -> Array:
    sem = column.semantic
    if column.initial is not None:
        # The listed rows first; any more (a task asking for fresh names) continue from the vocabulary.
        listed = list(column.initial[:n])
        extra = n - len(listed)
        if extra <= 0:
            more: list[str] = []
        elif column.vocab:
            more = load_vocab(column.vocab).draw(g, extra).tolist()
        else:
            more = pv.words(g, extra)
        return pv.make_unique(pv.as_objects(listed + more))
    makers: dict[str, Callable[[np.random.Generator, int], Sequence[str] | Array]] = {
        "person_name": pv.person_names,
        "first_name": lambda g, n: pv.vocabularies().first.draw(g, n),
        "last_name": lambda g, n: pv.vocabularies().last.draw(g, n),
        "username": pv.usernames,
        "company": pv.companies,
        "job_title": pv.jobs,
        "address": pv.addresses,
        "city": pv.cities,
        "country": pv.countries,
        "postcode": pv.postcodes,
        "phone": pv.phones,
        "product_name": pv.product_names,
        "title": pv.titles,
        "word": pv.words,
        "text": pv.sentences,
        "color": pv.colors,
        "url": pv.urls,
        "license_plate": pv.plates,
        "email": pv.emails,
        "file_name": pv.file_names,
    }
    if sem in ("code", "sku"):
        return pv.as_objects(pv.codes(g, n, "SKU" if sem == "sku" else code_prefix(table)))
    if sem == "isbn":
        return pv.as_objects(pv.isbns(g, n))
    if sem == "email":
        owner = _email_owner(table, column, cols)
        if owner is not None:
            kind, values = owner
            made = pv.emails_from_names(g, values) if kind == "person" else pv.emails_from_companies(g, values)
            values = pv.as_objects(made)
            return pv.make_unique(values) if column.unique else values
    if column.vocab:
        return _from_vocab(table, column, n, g, cols, ctx)
    make = makers.get(sem, pv.words)
    if column.vocabulary:
        make = pv.Vocab.of(column.vocabulary).draw  # a blueprint-supplied vocabulary: data, drawn like any pool
    if column.unique:
        return pv.make_unique(
            pv.distinct_draw(g, n, lambda k: make(g, k)) if n <= 200_000 else pv.as_objects(make(g, n))
        )
    if column.name == table.label and n <= 200_000:
        return pv.distinct_draw(g, n, lambda k: make(g, k))
    drawn = make(g, n)
    return drawn if isinstance(drawn, np.ndarray) else pv.as_objects(drawn)


def _email_owner(table: Table, column: Column, cols: dict[str, Array]) -> tuple[str, Array] | None:
    """The person (or company) an email belongs to, when the row names one before it."""
    for c in table.columns:
        if c.name == column.name:
            break
        if c.semantic == "person_name" and c.name in cols:
            return "person", cols[c.name]
    for c in table.columns:
        if c.semantic == "company" and c.name in cols:
            return "company", cols[c.name]
    return None


def _times(
    table: Table,
    column: Column,
    n: int,
    g: np.random.Generator,
    ctx: Context,
    cols: dict[str, Array],
    anchor: Array | None,
) -> Array:
    """Epoch seconds, never after now: after their base, after their parents' creation, within their rules."""
    values = _unruled_times(table, column, n, g, ctx, cols, anchor)
    lower, upper = time_bounds(table, column, n, cols, ctx)
    if lower is not None:
        floor = np.clip(np.nan_to_num(lower, neginf=-(2**62)), -(2**62), ctx.now).astype(np.int64)
        early = values < floor
        room = np.maximum(0, ctx.now - floor)
        later = floor + np.minimum(room, g.exponential(2 * DAY, n).astype(np.int64))
        values = np.where(early, later, values)
    if upper is not None:
        ceiling = np.nan_to_num(upper, posinf=2**62).astype(np.int64)
        values = np.minimum(values, ceiling)
    return values


def _unruled_times(
    table: Table,
    column: Column,
    n: int,
    g: np.random.Generator,
    ctx: Context,
    cols: dict[str, Array],
    anchor: Array | None,
) -> Array:
    now = ctx.now
    base = cols.get(column.after) if column.after else None
    if base is None and column.stamp is not None:
        base = anchor
    if base is not None:
        room = np.maximum(0, now - base)
        return base + np.minimum(room, g.exponential(3 * DAY, n).astype(np.int64))
    if is_birth(column):
        return now - (18 * 365 * DAY + (g.random(n) * 67 * 365 * DAY).astype(np.int64))
    lower = _parent_anchor(table, n, ctx, cols)
    if lower is None:
        age = (HISTORY_DAYS * DAY * g.random(n) ** 1.5).astype(np.int64)
        return now - np.maximum(age, 3600)
    return lower + ((now - lower) * g.random(n)).astype(np.int64)


def _parent_anchor(table: Table, n: int, ctx: Context, cols: dict[str, Array]) -> Array | None:
    """Latest creation time among the rows this row references (None when no parent has one)."""
    lower: Array | None = None
    for fk in table.foreign_keys:
        parent = ctx.data.get(str(fk.references))
        if parent is None or parent.anchor is None or fk.name not in cols or fk.references == table.name:
            continue
        t = parent.anchor[cols[fk.name] - 1]
        lower = t if lower is None else np.maximum(lower, t)
    return lower


def one_column(
    table: Table, column: Column, n: int, seed: int, ctx: Context, cols: dict[str, Array], anchor: Array | None = None
) -> Array:
    g = column_rng(seed, table.name, column.name)
    sem = column.semantic
    if column.references:
        return _refs(table, column, n, g, ctx)
    if sem in CATEGORICAL:
        return _categorical(table, column, n, g, cols)
    if sem in ("money", "quantity", "integer", "rating", "percent", "decimal"):
        return _numbers(column, n, g)
    if sem == "boolean":
        return _booleans(column, n, g)
    if sem in TIME_KINDS:
        return _times(table, column, n, g, ctx, cols, anchor)
    return _text(table, column, n, g, cols, ctx)


def generate_column(
    table: Table,
    column: Column,
    n: int,
    seed: int,
    now: datetime,
    rows: dict[str, list[Any]],
    parent_ids: dict[str, list[int]],
) -> list[Any]:
    """Values of one column as plain Python values (times as ISO text); ``rows`` holds the
    table's already generated columns. Task generation uses this to make fresh values.

    A fresh record is made now: its times are the frozen clock (birth dates excepted), which no
    record it refers to can postdate, so a write of fresh values keeps every timeline rule."""
    ctx = Context(seed=seed, now=int((now - EPOCH).total_seconds()), data={})
    if column.semantic in TIME_KINDS and not is_birth(column):
        return plain_values(column, np.full(n, ctx.now, dtype=np.int64), None)
    for name, ids in parent_ids.items():
        ctx.data[name] = TableData(table=table, n=len(ids), values={"id": np.asarray(ids, dtype=np.int64)})
    cols: dict[str, Array] = {}
    for name, values in rows.items():
        try:
            col = table.column(name)
        except KeyError:
            continue
        if col.semantic in TIME_KINDS:
            cols[name] = np.array([to_epoch(v) if v is not None else ctx.now for v in values], dtype=np.int64)
        else:
            cols[name] = pv.as_objects(values) if col.sql_type == "TEXT" else np.asarray(values)
    drawn = one_column(table, column, n, seed, ctx, cols)
    return plain_values(column, drawn, None)


# -- to Python values ----------------------------------------------------------------------


@cache
def _clock_strings() -> Array:
    """'THH:MM:SS' for every second of a day (built once)."""
    return pv.as_objects([f"T{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}" for s in range(DAY)])


def _iso(values: Array, date_only: bool) -> list[str]:
    days = values // DAY
    unique, inverse = np.unique(days, return_inverse=True)
    day_text = pv.as_objects(np.datetime_as_string(unique.astype("datetime64[D]"), unit="D").tolist())
    if date_only:
        return day_text[inverse].tolist()
    seconds = values - days * DAY
    if len(values) < 50_000:
        # The table of all 86,400 clock strings only pays off for big columns.
        clock = [f"T{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}" for s in seconds.tolist()]
        return pv.cat(day_text[inverse], clock)
    return pv.cat(day_text[inverse], _clock_strings()[seconds])


def plain_values(column: Column, values: Array, nulls: Array | None) -> list[Any]:
    if column.semantic in TIME_KINDS:
        out: list[Any] = _iso(values.astype(np.int64), column.semantic == "date")
    elif column.sql_type == "REAL":
        out = values.astype(float).tolist()
    else:
        out = values.tolist()
    if nulls is not None:
        for i in np.flatnonzero(nulls).tolist():
            out[i] = None
    return out
