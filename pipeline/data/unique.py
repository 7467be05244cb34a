"""Unique-together groups kept distinct: repeated combinations redrawn, a dense link table filled.

Step 2 draws every column on its own, so two rows of a link table may pick the same pair; this
finds the repeats in one stable sort and redraws them, falling back to the unused pairs in order
where the parents are few, and drops rows only where the table wants more rows than pairs exist.
"""

from __future__ import annotations

import numpy as np

from pipeline.data.columns import Array, Context, TableData, column_rng, one_column
from pipeline.world.schema import Column, Table


def unique_groups(data: TableData, ctx: Context, refs_only: bool = False) -> None:
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
        g = column_rng(ctx.seed, table.name, "/unique/" + "/".join(group))
        dup = _repeats(data, group)
        for attempt in range(12):
            if not dup.any():
                break
            if last.references:
                # First only the last reference; if a popular parent has run out of partners, all of them.
                for name in group[-1:] if attempt < 3 else group:
                    col = table.column(name)
                    if col.references:
                        m = _parent_rows(ctx, table, col, data.n)
                        data.values[name][dup] = g.integers(1, m + 1, int(dup.sum()))
            else:
                redraw = one_column(table, last, data.n, ctx.seed + attempt + 1, ctx, data.values, data.anchor)
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


def _parent_rows(ctx: Context, table: Table, column: Column, n: int) -> int:
    return n if column.references == table.name else ctx.data[str(column.references)].n


def _fill_unused_pairs(data: TableData, ctx: Context, group: tuple[str, ...], dup: Array) -> None:
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
