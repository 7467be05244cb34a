"""The order a schema implies between times: creation, declared ``after``, and status lifecycles.

A row is created at its *anchor* (its first required time with no base and no status), never
before the rows it references. A status's stamped times (``shipped_at`` for 'shipped') follow
the state machine: a stamp exists exactly when the row's history could have passed through its
value, must exist when every route to the current status passes through it, and two stamps
are in lifecycle order. Population, the realism check and the write tools all read these
facts from here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache

from pipeline.world.schema import Column, Table

Transitions = Mapping[str, Sequence[str]]


def anchor_column(table: Table) -> Column | None:
    """The column that says when a row was created: its first required time with no base or status."""
    for c in table.columns:
        if c.semantic in ("timestamp", "date") and not c.nullable and not c.after and c.stamp is None:
            return c
    return None


def is_birth(column: Column) -> bool:
    """Birth dates lie decades back, before anything the row's parents did."""
    return re.search(r"birth|dob", column.field or column.name) is not None


def _frozen(transitions: Transitions | None) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple(sorted((k, tuple(v)) for k, v in (transitions or {}).items()))


@cache
def _reach(transitions: tuple[tuple[str, tuple[str, ...]], ...], start: str, without: str | None) -> frozenset[str]:
    moves = dict(transitions)
    if start == without:
        return frozenset()
    seen, stack = {start}, [start]
    while stack:
        for nxt in moves.get(stack.pop(), ()):
            if nxt not in seen and nxt != without:
                seen.add(nxt)
                stack.append(nxt)
    return frozenset(seen)


def reachable(transitions: Transitions | None, start: str, without: str | None = None) -> frozenset[str]:
    """Values reachable from ``start`` (itself included), optionally never passing through ``without``."""
    return _reach(_frozen(transitions), start, without)


def passed_through(status: Column, value: str) -> tuple[frozenset[str], frozenset[str]]:
    """(may, must): current values of a row that may have passed through ``value``, and those that must have.

    May: reachable from ``value``. Must: every route from the initial value reaches them only
    through ``value`` (the initial value itself never needs a stamp: rows are created in it).
    """
    values = tuple(status.values or ())
    if not values:
        return frozenset(), frozenset()
    may = reachable(status.transitions, value)
    if value == values[0]:
        return may, frozenset()
    avoid = reachable(status.transitions, values[0], without=value)
    return may, frozenset(v for v in values if v not in avoid and v in may)


def stamps_of(table: Table, status: Column) -> list[Column]:
    return [c for c in table.columns if c.stamp is not None and c.stamp.column == status.name and c.nullable]


def lifecycle_order(status: Column, first: str, second: str) -> bool:
    """True when a row can reach ``second`` after ``first`` but never ``first`` after ``second``."""
    return second in reachable(status.transitions, first) and first not in reachable(status.transitions, second)


def terminal(status: Column, value: str) -> bool:
    """A value with no way out, in a status that has a lifecycle at all."""
    return bool(status.transitions) and not (status.transitions or {}).get(value)
