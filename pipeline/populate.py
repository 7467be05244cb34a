"""Step 2: schema + seed -> a populated SQLite state, deterministic and constraint-clean.

Every column draws from its own numpy generator seeded by (seed, table, column), so
adding a column never shifts another column's values, and values are drawn in whole
arrays (see :mod:`pipeline.populate_values`), which is what lets a million-row table
build in seconds. Distributions are the ones real data has: a few parents get most
children, money is log-normal, statuses follow their weights *and* the age of the row
(old orders are delivered, recent ones pending), a status implies its timestamps, ids
follow creation time, and derived values agree with the rows they derive from (an
order's total is the sum of its lines). Nothing reads the wall clock: "now" is the
frozen clock passed in and recorded in the manifest.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from pipeline import populate_values as pv
from pipeline.ddl import ddl_parts
from pipeline.schema import Column, Schema, Table, insertion_order

DEFAULT_CLOCK = "2026-01-15T12:00:00"
HISTORY_DAYS = 730
ISO = "%Y-%m-%dT%H:%M:%S"
MAX_ROWS = 10_000_000
DAY = 86_400
_EPOCH = datetime(1970, 1, 1)
_CATEGORICAL = ("status", "enum")
_TIME = ("timestamp", "date")
Array = np.ndarray


@dataclass(frozen=True)
class PopulateResult:
    path: Path
    rows: dict[str, int]
    clock: str


def column_seed(seed: int, table: str, column: str) -> int:
    digest = hashlib.sha256(f"{seed}/{table}/{column}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _rng(seed: int, table: str, column: str) -> np.random.Generator:
    return np.random.default_rng(column_seed(seed, table, column))


def row_count(table: Table, scale: float) -> int:
    """Rows of a table at a scale; lookup tables keep their fixed list."""
    if not table.scales:
        return table.rows
    return max(1, int(round(table.rows * scale)))


def scale_for_rows(schema: Schema, rows: int) -> float:
    """The scale that gives the largest table ``rows`` rows (the others in proportion)."""
    if not 1 <= rows <= MAX_ROWS:
        raise ValueError(f"rows must be in 1..{MAX_ROWS:,}, got {rows}")
    largest = max((t.rows for t in schema.tables if t.scales), default=1)
    return rows / largest


def to_epoch(text: str) -> int:
    return int((datetime.strptime(text[:19], ISO if len(text) > 10 else "%Y-%m-%d") - _EPOCH).total_seconds())


@dataclass
class TableData:
    """One table's generated columns (numpy arrays; times as epoch seconds) and null masks."""

    table: Table
    n: int
    values: dict[str, Array] = field(default_factory=dict)
    nulls: dict[str, Array] = field(default_factory=dict)
    anchor: Array | None = None
    """Creation time of each row, which children and later timestamps never precede."""


@dataclass
class _Context:
    seed: int
    now: int
    data: dict[str, TableData]
    lines: frozenset[tuple[str, str]] = frozenset()
    """(table, FK column) pairs of line tables: every parent gets lines, lines are grouped by parent."""


# -- single columns -------------------------------------------------------------------------


def _name_has(column: Column, pattern: str) -> bool:
    return re.search(pattern, column.field or column.name) is not None


def _refs(table: Table, column: Column, n: int, g: np.random.Generator, ctx: _Context) -> Array:
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


def _code_prefix(table: Table) -> str:
    """ORD-104233 for orders, OI-... for order items: readable, stable, per table."""
    words = [w for w in table.entity.split("_") if w]
    if len(words) == 1:
        return words[0][:3].upper()
    return "".join(w[0] for w in words).upper()


def _text(table: Table, column: Column, n: int, g: np.random.Generator, cols: dict[str, Array]) -> Array:
    sem = column.semantic
    if column.initial is not None:
        # The listed rows first; any more (a task asking for fresh names) continue with new words.
        listed = list(column.initial[:n])
        more = pv.words(g, n - len(listed)) if n > len(listed) else []
        return pv.make_unique(pv.as_objects(listed + more))
    makers = {
        "person_name": pv.person_names, "first_name": lambda g, n: pv.vocabularies().first.draw(g, n),
        "last_name": lambda g, n: pv.vocabularies().last.draw(g, n), "username": pv.usernames,
        "company": pv.companies, "job_title": pv.jobs, "address": pv.addresses, "city": pv.cities,
        "country": pv.countries, "postcode": pv.postcodes, "phone": pv.phones, "product_name": pv.product_names,
        "title": pv.titles, "word": pv.words, "text": pv.sentences, "color": pv.colors, "url": pv.urls,
        "license_plate": pv.plates, "email": pv.emails, "file_name": pv.file_names,
    }
    if sem in ("code", "sku"):
        return pv.as_objects(pv.codes(g, n, "SKU" if sem == "sku" else _code_prefix(table)))
    if sem == "isbn":
        return pv.as_objects(pv.isbns(g, n))
    if sem == "email":
        owner = _email_owner(table, column, cols)
        if owner is not None:
            kind, values = owner
            made = pv.emails_from_names(g, values) if kind == "person" else pv.emails_from_companies(g, values)
            values = pv.as_objects(made)
            return pv.make_unique(values) if column.unique else values
    make = makers.get(sem, pv.words)
    if column.unique:
        return pv.make_unique(pv.distinct_draw(g, n, lambda k: make(g, k)) if n <= 200_000 else pv.as_objects(make(g, n)))
    if column.name == table.label and n <= 200_000:
        return pv.distinct_draw(g, n, lambda k: make(g, k))
    values = make(g, n)
    return values if isinstance(values, np.ndarray) else pv.as_objects(values)


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


def _times(table: Table, column: Column, n: int, g: np.random.Generator, ctx: _Context,
           cols: dict[str, Array], anchor: Array | None) -> Array:
    """Epoch seconds, never after now: after their base, after their parents' creation."""
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


def is_birth(column: Column) -> bool:
    """Birth dates lie decades back, before anything the row's parents did."""
    return _name_has(column, r"birth|dob")


def _parent_anchor(table: Table, n: int, ctx: _Context, cols: dict[str, Array]) -> Array | None:
    """Latest creation time among the rows this row references (None when no parent has one)."""
    lower: Array | None = None
    for fk in table.foreign_keys:
        parent = ctx.data.get(str(fk.references))
        if parent is None or parent.anchor is None or fk.name not in cols or fk.references == table.name:
            continue
        t = parent.anchor[cols[fk.name] - 1]
        lower = t if lower is None else np.maximum(lower, t)
    return lower


def _one_column(table: Table, column: Column, n: int, seed: int, ctx: _Context, cols: dict[str, Array],
                anchor: Array | None = None) -> Array:
    g = _rng(seed, table.name, column.name)
    sem = column.semantic
    if column.references:
        return _refs(table, column, n, g, ctx)
    if sem in _CATEGORICAL:
        return _categorical(table, column, n, g, cols)
    if sem in ("money", "quantity", "integer", "rating", "percent", "decimal"):
        return _numbers(column, n, g)
    if sem == "boolean":
        return _booleans(column, n, g)
    if sem in _TIME:
        return _times(table, column, n, g, ctx, cols, anchor)
    return _text(table, column, n, g, cols)


def generate_column(
    table: Table, column: Column, n: int, seed: int, now: datetime,
    rows: dict[str, list[Any]], parent_ids: dict[str, list[int]],
) -> list[Any]:
    """Values of one column as plain Python values (times as ISO text); ``rows`` holds the
    table's already generated columns. Task generation uses this to make fresh values."""
    ctx = _Context(seed=seed, now=int((now - _EPOCH).total_seconds()), data={})
    for name, ids in parent_ids.items():
        ctx.data[name] = TableData(table=table, n=len(ids), values={"id": np.asarray(ids, dtype=np.int64)})
    cols: dict[str, Array] = {}
    for name, values in rows.items():
        try:
            col = table.column(name)
        except KeyError:
            continue
        if col.semantic in _TIME:
            cols[name] = np.array([to_epoch(v) if v is not None else ctx.now for v in values], dtype=np.int64)
        else:
            cols[name] = pv.as_objects(values) if col.sql_type == "TEXT" else np.asarray(values)
    values = _one_column(table, column, n, seed, ctx, cols)
    return _plain(column, values, None)


# -- whole tables ---------------------------------------------------------------------------


def anchor_column(table: Table) -> Column | None:
    """The column that says when a row was created: its first required time with no base or status."""
    for c in table.columns:
        if c.semantic in _TIME and not c.nullable and not c.after and c.stamp is None:
            return c
    return None


def _protected(schema: Schema) -> set[tuple[str, str]]:
    """Columns random gaps must not touch: derived values and what they derive from."""
    out: set[tuple[str, str]] = set()
    for t in schema.tables:
        for c in t.columns:
            d = c.derived
            if d is None:
                continue
            out.add((t.name, c.name))
            if d.kind == "sum":
                out.update((str(d.table), f) for f in (*d.factors, d.via))
            else:
                out.update((t.name, f) for f in (*d.factors, d.via))
                out.add((str(t.column(d.via).references), str(d.column)))
    return out


def _generate_table(table: Table, n: int, ctx: _Context, protected: set[tuple[str, str]]) -> TableData:
    seed = ctx.seed
    cols: dict[str, Array] = {}
    fks = [c for c in table.columns if c.references]
    for c in fks:
        cols[c.name] = _one_column(table, c, n, seed, ctx, cols)
    if table.unique_together:
        # Settle distinct reference pairs before any time is drawn against the parents.
        early = TableData(table=table, n=n, values=cols)
        _unique_groups(early, ctx, refs_only=True)
        cols, n = early.values, early.n
    anchor_col = anchor_column(table)
    anchor = None
    if anchor_col is not None:
        anchor = _one_column(table, anchor_col, n, seed, ctx, cols)
        # Ids follow creation time, as they do in a real system.
        order = np.argsort(anchor, kind="stable")
        anchor = anchor[order]
        cols = {k: v[order] for k, v in cols.items()}
        cols[anchor_col.name] = anchor
    deferred = []
    for c in table.columns:
        if c.primary_key or c.name in cols:
            continue
        if c.semantic in _TIME and c.stamp is not None and not c.after:
            deferred.append(c)
            continue
        cols[c.name] = _one_column(table, c, n, seed, ctx, cols, anchor)
    for c in deferred:
        cols[c.name] = _one_column(table, c, n, seed, ctx, cols, anchor)
    data = TableData(table=table, n=n, values=cols, anchor=anchor)
    _unique_groups(data, ctx)
    _status_follows_age(data, seed)
    _stamp_times(data)
    _gaps(data, seed, protected)
    return data


def _unique_groups(data: TableData, ctx: _Context, refs_only: bool = False) -> None:
    """Repeated unique-together combinations are redrawn (a link table's pairs stay distinct).

    A reference is redrawn uniformly over its parents; when the pairs are dense, the last
    repeats take the unused combinations in order. Rows are dropped only if the table has
    more rows than there are combinations.
    """
    table = data.table
    for group in table.unique_together:
        if any(c not in data.values for c in group) or refs_only != all(table.column(c).references for c in group):
            continue
        last = table.column(group[-1])
        g = _rng(ctx.seed, table.name, "/unique/" + "/".join(group))
        dup = _repeats(data, group)
        for attempt in range(12):
            if not dup.any():
                break
            if last.references:
                # First only the last reference; if a popular parent has run out of partners, all of them.
                for name in (group[-1:] if attempt < 3 else group):
                    col = table.column(name)
                    if col.references:
                        m = _parent_rows(ctx, table, col, data.n)
                        data.values[name][dup] = g.integers(1, m + 1, int(dup.sum()))
            else:
                redraw = _one_column(table, last, data.n, ctx.seed + attempt + 1, ctx, data.values, data.anchor)
                data.values[last.name][dup] = redraw[dup]
            dup = _repeats(data, group)
        if dup.any() and len(group) == 2 and all(table.column(c).references for c in group):
            _fill_unused_pairs(data, ctx, group, dup)
            dup = _repeats(data, group)
        if dup.any():
            keep = np.flatnonzero(~dup)
            data.values = {c: v[keep] for c, v in data.values.items()}
            data.anchor = data.anchor[keep] if data.anchor is not None else None
            data.n = len(keep)


def _repeats(data: TableData, group: tuple[str, ...]) -> Array:
    """True for every row whose combination occurred in an earlier row (one stable sort of a packed key)."""
    key = np.zeros(data.n, dtype=np.int64)
    for c in group:
        codes = _key(data.values[c])
        codes = codes - codes.min() if len(codes) else codes
        key = key * (int(codes.max(initial=0)) + 1) + codes
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    dup = np.zeros(data.n, dtype=bool)
    dup[order[1:]] = ordered[1:] == ordered[:-1]
    return dup


def _parent_rows(ctx: _Context, table: Table, column: Column, n: int) -> int:
    return n if column.references == table.name else ctx.data[str(column.references)].n


def _fill_unused_pairs(data: TableData, ctx: _Context, group: tuple[str, ...], dup: Array) -> None:
    a, b = group
    ma, mb = (_parent_rows(ctx, data.table, data.table.column(c), data.n) for c in group)
    used = set(zip(data.values[a][~dup].tolist(), data.values[b][~dup].tolist()))
    free = ((i, j) for i in range(1, ma + 1) for j in range(1, mb + 1) if (i, j) not in used)
    for row in np.flatnonzero(dup).tolist():
        pair = next(free, None)
        if pair is None:
            return
        data.values[a][row], data.values[b][row] = pair


def _key(values: Array) -> Array:
    if values.dtype == object:
        _, inverse = np.unique(values.astype(str), return_inverse=True)
        return inverse
    return values.astype(np.int64)


@cache
def _depths(values: tuple[str, ...], transitions: tuple[tuple[str, tuple[str, ...]], ...]) -> dict[str, int]:
    """Steps from the initial status (the first value) to each value; unreachable ones count as furthest."""
    moves = dict(transitions)
    depth = {values[0]: 0}
    queue = deque([values[0]])
    while queue:
        v = queue.popleft()
        for nxt in moves.get(v, ()):
            if nxt not in depth:
                depth[nxt] = depth[v] + 1
                queue.append(nxt)
    far = max(depth.values()) + 1
    return {v: depth.get(v, far) for v in values}


def _frozen(transitions: dict[str, tuple[str, ...]] | None) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple(sorted((k, tuple(v)) for k, v in (transitions or {}).items()))


def _status_follows_age(data: TableData, seed: int) -> None:
    """Old rows are further along their lifecycle (delivered), recent ones near the start (pending).

    The weighted mix is kept exactly; only which row gets which status changes, with noise.
    """
    if data.anchor is None or data.n < 2:
        return
    for c in data.table.columns:
        if c.semantic != "status" or not c.values or not c.transitions:
            continue
        depth = _depths(tuple(c.values), _frozen(c.transitions))
        g = _rng(seed, data.table.name, c.name + "/age")
        statuses = data.values[c.name]
        d = np.array([depth[v] for v in c.values])
        lookup = {v: i for i, v in enumerate(c.values)}
        codes = np.array([lookup[v] for v in statuses.tolist()])
        by_depth = codes[np.argsort(-d[codes], kind="stable")]
        # Rows are in creation order (ids follow time); deepest statuses go to the oldest rows, noisily.
        key = np.arange(data.n) / data.n + g.normal(0, 0.3, data.n)
        out = np.empty(data.n, dtype=np.int64)
        out[np.argsort(key, kind="stable")] = by_depth
        data.values[c.name] = pv.as_objects(list(c.values))[out]


@cache
def _reachable(transitions: tuple[tuple[str, tuple[str, ...]], ...], start: str) -> frozenset[str]:
    moves = dict(transitions)
    seen, stack = {start}, [start]
    while stack:
        for nxt in moves.get(stack.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return frozenset(seen)


def _stamp_times(data: TableData) -> None:
    """A time stamped by a status exists exactly when the status is at or past that value."""
    for c in data.table.columns:
        if c.stamp is None or not c.nullable:
            continue
        status = data.table.column(c.stamp.column)
        past = _reachable(_frozen(status.transitions), c.stamp.value)
        current = data.values[status.name]
        data.nulls[c.name] = ~np.isin(current.astype(str), np.array(sorted(past)))


def _gaps(data: TableData, seed: int, protected: set[tuple[str, str]]) -> None:
    """Random gaps in nullable columns, at a rate that differs per column."""
    table = data.table
    grouped = {c for g in table.unique_together for c in g}
    for c in table.columns:
        if (not c.nullable or c.stamp is not None or c.semantic in _CATEGORICAL or c.name == table.label
                or (table.name, c.name) in protected or c.name in grouped):
            continue
        g = _rng(seed, table.name, c.name + "/null")
        rate = 0.04 + 0.26 * g.random()
        data.nulls[c.name] = g.random(data.n) < rate


# -- derived values -------------------------------------------------------------------------


def _derive(schema: Schema, data: dict[str, TableData]) -> None:
    """Apply every derivation in dependency order (copies of prices before the sums that use them)."""
    pending = [(t, c) for t in schema.tables for c in t.columns if c.derived is not None]
    done: set[tuple[str, str]] = set()
    derived = {(t.name, c.name) for t, c in pending}
    while pending:
        progressed = False
        for item in list(pending):
            table, column = item
            d = column.derived
            if d is None:
                continue
            if d.kind == "sum":
                deps = {(str(d.table), f) for f in d.factors}
            else:
                deps = {(table.name, f) for f in d.factors} | {(str(table.column(d.via).references), str(d.column))}
            if (deps & derived) - done:
                continue
            _apply(table, column, data)
            done.add((table.name, column.name))
            pending.remove(item)
            progressed = True
        if not progressed:
            raise ValueError(f"derived columns depend on each other in a cycle: {[(t.name, c.name) for t, c in pending]}")


def _apply(table: Table, column: Column, data: dict[str, TableData]) -> None:
    d = column.derived
    if d is None:
        return
    own = data[table.name]
    if d.kind == "sum":
        child = data[str(d.table)]
        product = np.ones(child.n)
        for f in d.factors:
            product = product * child.values[f]
        via = child.values[d.via]
        total = np.bincount(via - 1, weights=product, minlength=own.n)[: own.n]
    else:
        parent = data[str(table.column(d.via).references)]
        total = parent.values[str(d.column)][own.values[d.via] - 1].astype(float)
        for f in d.factors:
            total = total * own.values[f]
    own.values[column.name] = np.round(total, 2) if column.sql_type == "REAL" else np.round(total).astype(np.int64)


# -- writing --------------------------------------------------------------------------------


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


def _plain(column: Column, values: Array, nulls: Array | None) -> list[Any]:
    if column.semantic in _TIME:
        out = _iso(values.astype(np.int64), column.semantic == "date")
    elif column.sql_type == "REAL":
        out = values.astype(float).tolist()
    else:
        out = values.tolist()
    if nulls is not None:
        for i in np.flatnonzero(nulls).tolist():
            out[i] = None
    return out


def _insert(conn: sqlite3.Connection, data: TableData) -> None:
    table = data.table
    columns = [c for c in table.columns]
    lists = [list(range(1, data.n + 1))]
    lists += [_plain(c, data.values[c.name], data.nulls.get(c.name)) for c in columns[1:]]
    names = ", ".join('"' + c.name.replace('"', '""') + '"' for c in columns)
    marks = ", ".join("?" for _ in columns)
    conn.executemany(f'INSERT INTO "{table.name}" ({names}) VALUES ({marks})', zip(*lists))


def _row_counts(schema: Schema, scale: float) -> dict[str, int]:
    """Rows per table; a one-to-one table never has more rows than its parent."""
    counts: dict[str, int] = {}
    for table in insertion_order(schema):
        n = row_count(table, scale)
        for c in table.foreign_keys:
            if c.unique and c.references != table.name:
                n = min(n, counts[str(c.references)])
        for group in table.unique_together:
            space = 1
            for name in group:
                col = table.column(name)
                if col.references:
                    space *= counts.get(str(col.references), n) if col.references != table.name else n
                elif col.values:
                    space *= len(col.values)
                else:
                    space *= MAX_ROWS
            n = min(n, max(1, space))
        counts[table.name] = n
    return counts


def _line_columns(schema: Schema) -> frozenset[tuple[str, str]]:
    return frozenset((str(c.derived.table), c.derived.via) for t in schema.tables for c in t.columns
                     if c.derived is not None and c.derived.kind == "sum")


def generate_state(schema: Schema, seed: int, scale: float = 1.0, clock: str = DEFAULT_CLOCK) -> dict[str, TableData]:
    """All tables in memory, consistent with each other, in insertion order."""
    if scale <= 0:
        raise ValueError(f"scale must be positive, got {scale}")
    now = int((datetime.strptime(clock, ISO) - _EPOCH).total_seconds())
    counts = _row_counts(schema, scale)
    ctx = _Context(seed=seed, now=now, data={}, lines=_line_columns(schema))
    protected = _protected(schema)
    for table in insertion_order(schema):
        ctx.data[table.name] = _generate_table(table, counts[table.name], ctx, protected)
    _derive(schema, ctx.data)
    return ctx.data


def populate(schema: Schema, seed: int, path: Path, scale: float = 1.0, clock: str = DEFAULT_CLOCK) -> PopulateResult:
    """Create ``path`` (replacing it) with the schema's DDL and deterministic rows.

    Rows go in with foreign-key enforcement off and indexes built afterwards (both much
    faster in bulk); ``PRAGMA foreign_key_check`` then proves every reference. UNIQUE,
    NOT NULL and CHECK constraints are enforced by SQLite on every insert.
    """
    data = generate_state(schema, seed, scale, clock)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    creates, indexes = ddl_parts(schema, "sqlite")
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA cache_size = -262144")
        for stmt in creates:
            conn.execute(stmt)
        with conn:
            for table in insertion_order(schema):
                _insert(conn, data[table.name])
            for stmt in indexes:
                conn.execute(stmt)
        problems = conn.execute("PRAGMA foreign_key_check").fetchall()
        if problems:
            raise RuntimeError(f"population broke referential integrity: {problems[:5]}")
    finally:
        conn.close()
    return PopulateResult(path=path, rows={t.name: data[t.name].n for t in schema.tables}, clock=clock)
