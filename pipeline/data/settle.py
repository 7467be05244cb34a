"""Payments that add up: a settling table's rows pay off their parent's amount (``settles:``).

A cap per row (``amount <= order_id.total``) leaves three payments free to add up to twice the
order, and delivered orders unpaid. A table that declares ``settles`` is drawn in two steps
instead. When its references are drawn, each parent gets a number of children from its
status, which is known by then: a settled parent (``paid``) 1-3, mostly one; an ``open`` one
(a deposit, a partial payment) 0-2; a parent in ``none`` none; any other 0-2; the chances of more
than the least lean (by at most half or double) towards the table's planned rows. Once every total
is final (derived and repaired by the parent's own rules), each parent's amount in cents is
split over its children: all of it for a settled parent, a part strictly below it for an
open one, at most all of it otherwise. Both steps are whole-array operations, so a million
payments cost a few sorts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pipeline.world.schema import Settlement, Table

if TYPE_CHECKING:
    from pipeline.data.columns import Context, TableData

Array = np.ndarray
MAX_CHILDREN = 3
"""The most children a parent gets (a settled one: one payment, now and then two or three)."""

PAID, OPEN, NONE, OTHER = 0, 1, 2, 3
_COUNTS = {
    PAID: (0.0, 0.8, 0.15, 0.05),
    OPEN: (0.45, 0.45, 0.1, 0.0),
    NONE: (1.0, 0.0, 0.0, 0.0),
    OTHER: (0.6, 0.35, 0.05, 0.0),
}
"""Per group of parent statuses, the chance of 0, 1, 2 and 3 children, before :func:`_chances` leans them
towards the table's planned rows."""
LEAN = (0.5, 2.0)
"""How far the chances of children above a group's least may be scaled to meet the planned rows."""


def _chances(groups: Array, planned: int) -> dict[int, Array]:
    """The chances of 0-3 children per group, scaled above each group's least (one for a settled parent,
    none otherwise) so the expected rows come near ``planned``, within :data:`LEAN` and below 90 %."""
    base = {k: np.asarray(v) for k, v in _COUNTS.items()}
    least = {k: int(np.argmax(v > 0)) for k, v in base.items()}
    sizes = np.bincount(groups, minlength=len(base))
    floor = sum(int(sizes[k]) * least[k] for k in base)
    expected = sum(float(sizes[k] * (base[k] @ np.arange(4))) for k in base)
    f = 1.0 if expected <= floor else float(np.clip((planned - floor) / (expected - floor), *LEAN))
    out = {}
    for k, v in base.items():
        above = 1.0 - v[least[k]]
        if above <= 0:
            out[k] = v
            continue
        scaled = v * (min(f * above, 0.9) / above)
        scaled[least[k]] = 0.0
        scaled[least[k]] = 1.0 - scaled.sum()
        out[k] = scaled
    return out


def _rng(ctx: Context, table: Table, part: str) -> np.random.Generator:
    from pipeline.data.columns import column_rng

    return column_rng(ctx.seed, table.name, "/settles/" + part)


def parent_groups(s: Settlement, statuses: Array) -> Array:
    """Each parent's group (PAID, OPEN, NONE or OTHER) from its status."""
    text = statuses.astype(str)
    out = np.full(len(text), OTHER, dtype=np.int64)
    for group, values in ((PAID, s.paid), (OPEN, s.open), (NONE, s.none)):
        if values:
            out[np.isin(text, list(values))] = group
    return out


def settled_parents(table: Table, ctx: Context, planned: int) -> Array:
    """The parent id of every child row, grouped by parent: how many children each parent has follows
    its status (a parent whose amount is empty has none), leaning towards ``planned`` rows in all."""
    s = table.settles
    if s is None:
        raise ValueError(f"{table.name} does not settle a parent")
    parent = ctx.data[str(table.column(s.via).references)]
    groups = parent_groups(s, parent.values[s.status])
    g = _rng(ctx, table, "count")
    u = g.random(parent.n)
    counts = np.zeros(parent.n, dtype=np.int64)
    for group, chances in _chances(groups, planned).items():
        rows = groups == group
        edges = np.cumsum(chances)[:-1]
        counts[rows] = np.searchsorted(edges, u[rows], side="right")
    empty = parent.nulls.get(s.total)
    if empty is not None:
        counts[empty] = 0
    if not counts.any():
        # A tiny world keeps at least one payment (a table may refer to it), on the parent likeliest to have one.
        rank = np.where(groups == NONE, np.iinfo(np.int64).max, groups)
        if empty is not None:
            rank = np.where(empty, np.iinfo(np.int64).max, rank)
        if len(rank) and rank.min() < np.iinfo(np.int64).max:
            counts[int(np.argmin(rank))] = 1
    return np.repeat(np.arange(1, parent.n + 1, dtype=np.int64), counts)


def settle_amounts(data: TableData, ctx: Context) -> None:
    """Split each parent's final amount over its children, to the cent, by the parent's group."""
    table = data.table
    s = table.settles
    if s is None or data.n == 0:
        return
    parent = ctx.data[str(table.column(s.via).references)]
    p = data.values[s.via] - 1
    groups = parent_groups(s, parent.values[s.status])
    total = np.round(parent.values[s.total].astype(float) * 100).astype(np.int64)
    g = _rng(ctx, table, "amount")
    k = np.bincount(p, minlength=parent.n)
    # What the children of each parent pay together, in cents.
    share = np.where(g.random(parent.n) < 0.4, 1.0, g.uniform(0.2, 1.0, parent.n))
    target = np.floor(total * share).astype(np.int64)
    part = np.floor(total * g.uniform(0.1, 0.9, parent.n)).astype(np.int64)
    target = np.where(groups == OPEN, np.minimum(part, total - 1), target)
    target = np.where(groups == PAID, total, np.maximum(target, np.minimum(k, total - (groups == OPEN))))
    target = np.maximum(target, 0)
    # Split by random weights; every child pays at least a cent, the last one what is left.
    w = g.uniform(0.5, 1.5, data.n)
    weight = np.bincount(p, weights=w, minlength=parent.n)
    cents = np.floor(w / weight[p] * target[p]).astype(np.int64)
    cents = np.where(target[p] >= k[p], np.maximum(cents, 1), cents)
    order = np.argsort(p, kind="stable")
    ordered = p[order]
    last = order[np.r_[ordered[1:] != ordered[:-1], True]] if data.n else order
    paid = np.round(np.bincount(p, weights=cents, minlength=parent.n)).astype(np.int64)
    cents[last] = target[p[last]] - (paid[p[last]] - cents[last])
    empty = parent.nulls.get(s.total)
    amounts = np.round(cents / 100, 2)
    if empty is not None:
        # A total emptied after the children were drawn: their drawn amounts stay.
        amounts = np.where(empty[p], data.values[s.amount], amounts)
    data.values[s.amount] = amounts
