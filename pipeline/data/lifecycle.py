"""Status lifecycles: each row's history through its state machine, and the times it implies.

A row's current status is drawn first (by weight, then matched to the row's age). Here each
row gets a route through the state machine from the initial status to its current one
(shorter routes are likelier), and a time for every step, starting at the row's creation and
never after the frozen clock. A status's stamped time (``checked_in_at`` for 'checked_in')
is the time its route entered that status, and empty when the route never did, so a
completed visit was checked in before it was completed and a cancelled booking that never
checked in has no check-in time. A status-history table (``history_of``) gets one row per
step of every route, so the history tells the same story as the record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from pipeline.data import values as pv
from pipeline.data.rules import time_bounds
from pipeline.world.schema import Column, Table
from pipeline.world.timeline import stamps_of

if TYPE_CHECKING:
    from pipeline.data.columns import Context, TableData

Array = np.ndarray
DAY = 86_400
MAX_ROUTES = 48
"""Routes kept per target status (state machines are small; this only guards odd ones)."""


@dataclass
class Routes:
    """Per row: the statuses visited (codes into the status's values, -1 past the end) and when."""

    states: Array
    times: Array
    lengths: Array


@cache
def _routes(
    values: tuple[str, ...], transitions: tuple[tuple[str, tuple[str, ...]], ...]
) -> dict[int, list[tuple[int, ...]]]:
    """Simple routes from the initial value to each value, as tuples of value codes."""
    moves = {values.index(k): [values.index(v) for v in vs if v in values] for k, vs in transitions if k in values}
    out: dict[int, list[tuple[int, ...]]] = {i: [] for i in range(len(values))}
    stack: list[tuple[int, ...]] = [(0,)]
    while stack:
        route = stack.pop()
        end = route[-1]
        if len(out[end]) < MAX_ROUTES:
            out[end].append(route)
        for nxt in moves.get(end, []):
            if nxt not in route:
                stack.append((*route, nxt))
    return out


def _frozen(column: Column) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple(sorted((k, tuple(v)) for k, v in (column.transitions or {}).items()))


def draw_routes(column: Column, current: Array, start: Array, now: int, g: np.random.Generator) -> Routes:
    """A route to each row's current status, and times for its steps from ``start`` (creation)."""
    values = tuple(column.values or ())
    routes = _routes(values, _frozen(column))
    lookup = {v: i for i, v in enumerate(values)}
    codes = np.array([lookup[v] for v in current.tolist()], dtype=np.int64)
    n = len(codes)
    longest = max((len(r) for rs in routes.values() for r in rs), default=1)
    states = np.full((n, longest), -1, dtype=np.int64)
    lengths = np.ones(n, dtype=np.int64)
    for code in np.unique(codes).tolist():
        rows = np.flatnonzero(codes == code)
        options = routes.get(code) or [(code,)]
        shortest = min(len(r) for r in options)
        weights = [0.35 ** (len(r) - shortest) for r in options]
        pick = pv.weighted_indices(g, weights, len(rows))
        for i, route in enumerate(options):
            chosen = rows[pick == i]
            if len(chosen):
                states[chosen, : len(route)] = route
                lengths[chosen] = len(route)
    times = np.zeros((n, longest), dtype=np.int64)
    times[:, 0] = start
    return Routes(states=states, times=times, lengths=lengths)


def stamp_lifecycles(data: TableData, ctx: Context, g: np.random.Generator) -> set[str]:
    """Route every row of every status with a lifecycle; set its stamped times. Returns the changed columns."""
    table, n = data.table, data.n
    changed: set[str] = set()
    start = data.anchor if data.anchor is not None else ctx.now - (g.random(n) * 365 * DAY).astype(np.int64)
    for status in (c for c in table.columns if c.semantic == "status" and c.transitions and c.values):
        routes = draw_routes(status, data.values[status.name], start, ctx.now, g)
        stamps = {str(c.stamp.value): c for c in stamps_of(table, status) if c.stamp is not None}
        index = {v: i for i, v in enumerate(status.values or ())}
        floors = {c.name: _floor(table, c, n, data, ctx) for c in stamps.values()}
        for k in range(1, routes.states.shape[1]):
            live = routes.lengths > k
            lower = routes.times[:, k - 1].copy()
            for value, c in stamps.items():
                here = live & (routes.states[:, k] == index[value])
                floor = floors[c.name]
                if floor is not None:
                    lower = np.where(here, np.maximum(lower, floor), lower)
            room = np.maximum(0, ctx.now - lower)
            step = np.minimum(room * g.uniform(0.05, 0.9, n), g.exponential(3 * DAY, n)).astype(np.int64)
            routes.times[:, k] = np.where(live, np.minimum(lower + np.maximum(step, 60), ctx.now), 0)
        for value, c in stamps.items():
            hit = routes.states == index[value]
            seen = hit.any(axis=1)
            first = hit.argmax(axis=1)
            when = routes.times[np.arange(n), first]
            data.values[c.name] = np.where(seen, when, data.values.get(c.name, when))
            data.nulls[c.name] = ~seen
            changed.add(c.name)
        data.routes[status.name] = routes
    return changed


def _floor(table: Table, column: Column, n: int, data: TableData, ctx: Context) -> Array | None:
    """The earliest a stamped time may be: its declared base and its rules' lower bounds."""
    floor = None
    based_on_stamp = column.after is not None and table.column(column.after).stamp is not None
    if column.after and column.after in data.values and not based_on_stamp:
        base = data.values[column.after].astype(np.int64)
        null = data.nulls.get(column.after)
        floor = np.where(null, np.iinfo(np.int64).min, base) if null is not None else base
    lower, _ = time_bounds(table, column, n, data.values, ctx)
    if lower is not None:
        bound = np.where(np.isfinite(lower), lower, np.iinfo(np.int64).min).astype(np.int64)
        floor = bound if floor is None else np.maximum(floor, bound)
    return floor


def history_rows(table: Table, ctx: Context) -> tuple[int, dict[str, Array]] | None:
    """For a status-history table: one row per step of every subject's route, in time order."""
    h = table.history
    if h is None:
        return None
    subject = ctx.data.get(h.of)
    routes = subject.routes.get(h.status) if subject is not None else None
    if subject is None or routes is None:
        return None
    values = pv.as_objects(list(subject.table.column(h.status).values or ()))
    steps = routes.lengths - 1
    parent = np.repeat(np.arange(1, subject.n + 1), steps)
    k = np.concatenate([np.arange(1, s + 1) for s in steps.tolist()]) if len(steps) else np.zeros(0, dtype=np.int64)
    source = routes.states[parent - 1, k - 1]
    target = routes.states[parent - 1, k]
    at = routes.times[parent - 1, k]
    order = np.lexsort((k, parent, at))
    cols = {
        h.via: parent[order],
        h.source: values[source[order]] if len(order) else pv.as_objects([]),
        h.target: values[target[order]] if len(order) else pv.as_objects([]),
        h.at: at[order],
        "/step": k[order],
    }
    return len(order), cols


def history_codes(prefix: str, parents: Sequence[int], steps: Sequence[int]) -> list[str]:
    """``ASC-1042-2``: the subject's id and the step, so a new change never depends on other records."""
    return [f"{prefix}-{p}-{s}" for p, s in zip(parents, steps)]
