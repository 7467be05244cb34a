"""Step 2: schema + seed -> a populated SQLite state, deterministic and constraint-clean.

Every column draws from its own numpy generator seeded by (seed, table, column), so
adding a column never shifts another column's values, and values are drawn in whole
arrays (see :mod:`pipeline.data.values`), which is what lets a million-row table
build in seconds. Distributions are the ones real data has: a few parents get most
children, money is log-normal, statuses follow their weights *and* the age of the row
(old orders are delivered, recent ones pending), a status implies its timestamps, ids
follow creation time, and derived values agree with the rows they derive from (an
order's total is the sum of its lines). Nothing reads the wall clock: "now" is the
frozen clock passed in and recorded in the manifest.
"""

from __future__ import annotations

import sqlite3
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from pathlib import Path

import numpy as np

from pipeline.data import values as pv
from pipeline.data.columns import (
    CATEGORICAL,
    EPOCH,
    ISO,
    TIME_KINDS,
    Array,
    Context,
    TableData,
    anchor_column,
    column_rng,
    one_column,
    plain_values,
)
from pipeline.data.lifecycle import history_codes, history_rows, stamp_lifecycles
from pipeline.data.rules import enforce_numbers
from pipeline.data.settle import settle_amounts, settled_parents
from pipeline.data.unique import unique_groups
from pipeline.progress import tick
from pipeline.world.ddl import ddl_parts
from pipeline.world.schema import Column, Schema, Table, code_prefix, insertion_order
from pipeline.world.sqlnames import quote_ident

DEFAULT_CLOCK = "2026-01-15T12:00:00"
MAX_ROWS = 10_000_000


@dataclass(frozen=True)
class PopulateResult:
    path: Path
    rows: dict[str, int]
    clock: str
    realism: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per kind of check (rule, timeline, status, history, vocabulary...): checks run, failed, violating rows."""


def row_count(table: Table, scale: float) -> int:
    """Rows of a table at a scale; lookup tables keep their fixed list."""
    if not table.scales:
        return table.rows
    return max(1, round(table.rows * scale))


def scale_for_rows(schema: Schema, rows: int) -> float:
    """The scale that gives the largest table that grows with the world ``rows`` rows (the others in
    proportion; tables of a fixed size, such as a list of tags, are not counted and keep theirs)."""
    if not 1 <= rows <= MAX_ROWS:
        raise ValueError(f"rows must be in 1..{MAX_ROWS:,}, got {rows}")
    largest = max((t.rows for t in schema.tables if t.scales), default=1)
    return rows / largest


# -- single columns -------------------------------------------------------------------------


# -- whole tables ---------------------------------------------------------------------------


def _protected(schema: Schema) -> set[tuple[str, str]]:
    """Columns random gaps must not touch: derived values and what they derive from."""
    out: set[tuple[str, str]] = set()
    for t in schema.tables:
        s = t.settles
        if s is not None:
            # A payment always has its order and its amount; the amount it pays off is never blank.
            out.update({(t.name, s.via), (t.name, s.amount), (str(t.column(s.via).references), s.total)})
        for c in t.columns:
            d = c.derived
            if d is None:
                continue
            out.add((t.name, c.name))
            if c.references:
                # A copied reference: the row may still lose its parent (a task leaves its sprint).
                continue
            if d.kind == "sum":
                out.update((str(d.table), f) for f in (*d.factors, d.via))
            else:
                out.update((t.name, f) for f in (*d.factors, d.via))
                out.add((str(t.column(d.via).references), str(d.column)))
    return out


def _generate_table(table: Table, n: int, ctx: Context, protected: set[tuple[str, str]]) -> TableData:
    seed = ctx.seed
    cols: dict[str, Array] = {}
    preset = history_rows(table, ctx)
    steps = None
    if preset is not None:
        # A status history is its subjects' routes, one row per step, already in time order.
        n, cols = preset
        steps = cols.pop("/step")
    elif table.settles is not None:
        # How many payments a parent has follows its status, so the parents are drawn first.
        cols[table.settles.via] = settled_parents(table, ctx, n)
        n = len(cols[table.settles.via])
    fks = [c for c in table.columns if c.references and c.name not in cols]
    for c in fks:
        cols[c.name] = one_column(table, c, n, seed, ctx, cols)
    for c in fks:
        _same_party(table, c, ctx, cols)
    if table.unique_together:
        # Settle distinct reference pairs before any time is drawn against the parents.
        early = TableData(table=table, n=n, values=cols)
        unique_groups(early, ctx, refs_only=True)
        cols, n = early.values, early.n
    anchor_col = anchor_column(table)
    anchor = None
    if anchor_col is not None and anchor_col.name in cols:
        anchor = cols[anchor_col.name]
    elif anchor_col is not None:
        anchor = one_column(table, anchor_col, n, seed, ctx, cols)
        # Ids follow creation time, as they do in a real system.
        order = np.argsort(anchor, kind="stable")
        anchor = anchor[order]
        cols = {k: v[order] for k, v in cols.items()}
        cols[anchor_col.name] = anchor
    deferred = []
    for c in table.columns:
        if c.primary_key or c.name in cols:
            continue
        if c.semantic in TIME_KINDS and c.stamp is not None and not c.after:
            deferred.append(c)
            continue
        cols[c.name] = one_column(table, c, n, seed, ctx, cols, anchor)
    for c in deferred:
        cols[c.name] = one_column(table, c, n, seed, ctx, cols, anchor)
    if steps is not None:
        _history_codes(table, cols, steps)
    data = TableData(table=table, n=n, values=cols, anchor=anchor)
    unique_groups(data, ctx)
    _status_follows_age(data, seed)
    changed = stamp_lifecycles(data, ctx, column_rng(seed, table.name, "/lifecycle"))
    _redraw_after(data, ctx, changed)
    _gaps(data, seed, protected)
    return data


def _same_party(table: Table, column: Column, ctx: Context, cols: dict[str, Array]) -> None:
    """A copied reference takes its parent's value (a fine's member is the loan's member), before any
    time is drawn against it; where the parent has none, the row keeps its own draw."""
    d = column.derived
    if d is None or d.kind != "copy" or d.via not in cols:
        return
    parent = ctx.data[str(table.column(d.via).references)]
    rows = cols[d.via] - 1
    copied = parent.values[str(d.column)][rows]
    empty = parent.nulls.get(str(d.column))
    cols[column.name] = np.where(empty[rows], cols[column.name], copied) if empty is not None else copied


def _history_codes(table: Table, cols: dict[str, Array], steps: Array) -> None:
    """A history row's code names its subject and step (``ASC-1042-2``), as the write tools do."""
    h = table.history
    if h is None:
        return
    for c in table.columns:
        if c.semantic == "code" and c.unique:
            codes = history_codes(code_prefix(table), cols[h.via].tolist(), steps.tolist())
            cols[c.name] = pv.as_objects(codes)


def _redraw_after(data: TableData, ctx: Context, changed: set[str]) -> None:
    """Times declared after a status time that the lifecycle just set are drawn again from it."""
    table = data.table
    for c in table.columns:
        if c.after in changed and c.name not in changed and c.semantic in TIME_KINDS:
            values = one_column(table, c, data.n, ctx.seed, ctx, data.values, data.anchor)
            base_null = data.nulls.get(str(c.after))
            if base_null is not None:
                # Where the status time is empty there is no order to keep: the first draw stays.
                values = np.where(base_null, data.values[c.name], values)
            data.values[c.name] = values
            changed.add(c.name)


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
        g = column_rng(seed, data.table.name, c.name + "/age")
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


def _gaps(data: TableData, seed: int, protected: set[tuple[str, str]]) -> None:
    """Random gaps in nullable columns, at a rate that differs per column."""
    table = data.table
    grouped = {c for g in table.unique_together for c in g}
    for c in table.columns:
        if (
            not c.nullable
            or c.stamp is not None
            or c.semantic in CATEGORICAL
            or c.name == table.label
            or (table.name, c.name) in protected
            or c.name in grouped
        ):
            continue
        g = column_rng(seed, table.name, c.name + "/null")
        rate = 0.04 + 0.26 * g.random()
        data.nulls[c.name] = g.random(data.n) < rate


# -- derived values -------------------------------------------------------------------------


def _derive(schema: Schema, data: dict[str, TableData]) -> None:
    """Apply every derivation in dependency order (copies of prices before the sums that use them)."""
    # Copied references were settled with the table's other references (:func:`_same_party`).
    pending = [(t, c) for t in schema.tables for c in t.columns if c.derived is not None and not c.references]
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
            raise ValueError(
                f"derived columns depend on each other in a cycle: {[(t.name, c.name) for t, c in pending]}"
            )


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


def _insert(conn: sqlite3.Connection, data: TableData) -> None:
    table = data.table
    columns = list(table.columns)
    lists = [list(range(1, data.n + 1))]
    lists += [plain_values(c, data.values[c.name], data.nulls.get(c.name)) for c in columns[1:]]
    names = ", ".join(quote_ident(c.name) for c in columns)
    marks = ", ".join("?" for _ in columns)
    conn.executemany(f"INSERT INTO {quote_ident(table.name)} ({names}) VALUES ({marks})", zip(*lists))


def _row_counts(schema: Schema, scale: float, drawn: dict[str, int] | None = None) -> dict[str, int]:
    """Rows per table; a one-to-one table never has more rows than its parent, and a table of lines (a total
    is summed over) never fewer: an order without a single line is not an order. ``drawn`` holds the
    tables already generated, whose rows may differ from the plan (payments follow their parents)."""
    counts: dict[str, int] = {}
    lines = _line_columns(schema)
    for table in insertion_order(schema):
        if drawn is not None and table.name in drawn:
            counts[table.name] = drawn[table.name]
            continue
        n = row_count(table, scale)
        for c in table.foreign_keys:
            if c.unique and c.references != table.name:
                n = min(n, counts[str(c.references)])
            elif (table.name, c.name) in lines and c.references != table.name:
                n = max(n, counts[str(c.references)])
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
    return frozenset(
        (str(c.derived.table), c.derived.via)
        for t in schema.tables
        for c in t.columns
        if c.derived is not None and c.derived.kind == "sum"
    )


def generate_state(schema: Schema, seed: int, scale: float = 1.0, clock: str = DEFAULT_CLOCK) -> dict[str, TableData]:
    """All tables in memory, consistent with each other, in insertion order."""
    if scale <= 0:
        raise ValueError(f"scale must be positive, got {scale}")
    now = int((datetime.strptime(clock, ISO) - EPOCH).total_seconds())
    counts = _row_counts(schema, scale)
    ctx = Context(seed=seed, now=now, data={}, lines=_line_columns(schema))
    protected = _protected(schema)
    order = insertion_order(schema)
    for i, table in enumerate(order):
        tick("populate", i, len(order), table.name)
        ctx.data[table.name] = _generate_table(table, counts[table.name], ctx, protected)
        if table.settles is not None and ctx.data[table.name].n != counts[table.name]:
            counts = _row_counts(schema, scale, {t: d.n for t, d in ctx.data.items()})
    tick("populate", len(order), len(order))
    _derive(schema, ctx.data)
    for table in insertion_order(schema):
        # Parents first: a total is final (derived, then repaired by its own rules) before it is paid.
        settle_amounts(ctx.data[table.name], ctx)
        if table.rules:
            fixed = frozenset(c for t, c in protected if t == table.name) | frozenset(
                c for group in table.unique_together for c in group
            )
            enforce_numbers(ctx.data[table.name], ctx, column_rng(seed, table.name, "/rules"), fixed)
    return ctx.data


def populate(schema: Schema, seed: int, path: Path, scale: float = 1.0, clock: str = DEFAULT_CLOCK) -> PopulateResult:
    """Create ``path`` (replacing it) with the schema's DDL and deterministic rows.

    Everything is written in one explicit transaction (so the file's bytes never depend on
    the host's locale), rows with foreign-key enforcement off and indexes built afterwards
    (both much faster in bulk); ``PRAGMA foreign_key_check`` then proves every reference. UNIQUE,
    NOT NULL and CHECK constraints are enforced by SQLite on every insert.
    """
    data = generate_state(schema, seed, scale, clock)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    creates, indexes = ddl_parts(schema, "sqlite")
    # Autocommit mode, and one explicit transaction: Python 3.11's sqlite3 decides whether a
    # statement writes by comparing its first word case-insensitively under the C library's
    # locale, and under tr_TR ('I' does not lower to 'i') it misses INSERT, commits row by
    # row and leaves another change counter in the file header: other bytes, other digest.
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA cache_size = -262144")
        conn.execute("BEGIN")
        for stmt in creates:
            conn.execute(stmt)
        for table in insertion_order(schema):
            _insert(conn, data[table.name])
        for stmt in indexes:
            conn.execute(stmt)
        conn.execute("COMMIT")
        problems = conn.execute("PRAGMA foreign_key_check").fetchall()
        if problems:
            raise RuntimeError(f"population broke referential integrity: {problems[:5]}")
    finally:
        conn.close()
    return PopulateResult(path=path, rows={t.name: data[t.name].n for t in schema.tables}, clock=clock)
