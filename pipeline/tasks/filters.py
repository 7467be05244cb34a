"""Conditions and rows as families handle them: a ``Filter`` the list tool can express, one
column's values with vectorised masks (``ColumnValues``), and ``Rows``, a query's rows held
once and turned into dicts only when read, so sampling over a large table copies nothing.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from pipeline.world.schema import Column

FilterOp = Literal["eq", "min", "max", "from", "to", "on"]


@dataclass(frozen=True)
class Filter:
    """One condition the list tool can express, with the value a user would say."""

    column: Column
    op: FilterOp
    value: Any

    @staticmethod
    def matching(column: Column, value: Any) -> Filter | None:
        """The filter a user means by "whose <column> is <value>" (a day, for timestamps)."""
        if value is None:
            return None
        if column.semantic == "timestamp":
            return Filter(column, "on", str(value)[:10])
        if column.sql_type == "BOOLEAN":
            return Filter(column, "eq", bool(value))
        return Filter(column, "eq", value)

    def arguments(self) -> dict[str, Any]:
        c = self.column
        if self.op == "eq":
            return {c.name: self.value}
        if self.op == "on":
            if c.semantic == "date":
                return {c.name: self.value}
            return {f"{c.name}_from": f"{self.value}T00:00:00", f"{c.name}_to": f"{self.value}T23:59:59"}
        if self.op in ("from", "to"):
            suffix = "T00:00:00" if self.op == "from" else "T23:59:59"
            return {f"{c.name}_{self.op}": self.value + (suffix if c.semantic == "timestamp" else "")}
        return {f"{c.name}_{self.op}": self.value}

    def holds(self, row: dict[str, Any]) -> bool:
        v = row.get(self.column.name)
        if v is None:
            return False
        if self.op == "eq":
            return bool(v == self.value)
        if self.op == "on":
            return str(v)[:10] == self.value
        if self.op in ("min", "from"):
            return bool(str(v)[:10] >= self.value) if self.op == "from" else bool(v >= self.value)
        return bool(str(v)[:10] <= self.value) if self.op == "to" else bool(v <= self.value)


class ColumnValues:
    """One column of some rows, with the arrays that test a filter on every row at once, and the
    sorted lists that choosing a threshold reads (each built once: a family draws many filters over
    the same rows, and sorting a large column again per draw was most of a large world's build)."""

    def __init__(self, values: list[Any]) -> None:
        self.values = values
        self._present: np.ndarray | None = None
        self._objects: np.ndarray | None = None
        self._numbers: np.ndarray | None = None
        self._days: np.ndarray | None = None
        self._given: list[Any] | None = None
        self._sorted: dict[tuple[bool, bool], list[Any]] = {}
        self._codes: tuple[np.ndarray, dict[Any, int]] | None = None
        self._hashable = True

    @property
    def given(self) -> list[Any]:
        """The values that are not None, in row order."""
        if self._given is None:
            self._given = [v for v in self.values if v is not None]
        return self._given

    def ordered(self, days: bool = False, descending: bool = False) -> list[Any]:
        """The values that are not None (as days, ``str(v)[:10]``, with ``days``), sorted as
        ``sorted(..., reverse=descending)`` sorts them."""
        key = (days, descending)
        if key not in self._sorted:
            present = self.given
            self._sorted[key] = sorted((str(v)[:10] for v in present) if days else present, reverse=descending)
        return self._sorted[key]

    def objects(self) -> np.ndarray:
        """The values as an object array (the same Python objects), for selecting by a mask."""
        if self._objects is None:
            self._objects = np.empty(len(self.values), dtype=object)
            self._objects[:] = self.values
        return self._objects

    def _equal(self, x: Any) -> np.ndarray | None:
        """``v == x`` for every row, from a code per distinct value (numbered once) rather than a Python
        comparison per row; None where a value cannot be numbered (unhashable). The values SQLite gives
        (text, numbers, bytes) are equal exactly when a dict takes them for the same key."""
        if self._codes is None and self._hashable:
            index: dict[Any, int] = {}
            try:
                codes = np.fromiter(
                    (index.setdefault(v, len(index)) for v in self.values), dtype=np.int64, count=len(self.values)
                )
            except TypeError:
                self._hashable = False
                return None
            self._codes = (codes, index)
        if self._codes is None:
            return None
        codes, index = self._codes
        try:
            code = index.get(x)
        except TypeError:
            return None
        return codes == code if code is not None else np.zeros(len(self.values), dtype=bool)

    @property
    def present(self) -> np.ndarray:
        if self._present is None:
            self._present = np.fromiter((v is not None for v in self.values), dtype=bool, count=len(self.values))
        return self._present

    def mask(self, f: Filter) -> np.ndarray:
        """``f.holds`` for every row, as ``Filter.holds`` decides it."""
        x, n = f.value, len(self.values)
        if f.op == "eq":
            equal = self._equal(x)
            return self.present & (equal if equal is not None else (self.objects() == x).astype(bool))
        if f.op in ("on", "from", "to"):
            if self._days is None:
                self._days = np.array([str(v)[:10] if v is not None else "" for v in self.values], dtype="U10")
            cmp = self._days == x if f.op == "on" else self._days >= x if f.op == "from" else self._days <= x
            return self.present & cmp
        if self._numbers is None and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in self.values if v is not None
        ):
            self._numbers = np.array([math.nan if v is None else v for v in self.values], dtype=float)
        if self._numbers is not None and isinstance(x, (int, float)) and abs(x) < 2**53:
            return self._numbers >= x if f.op == "min" else self._numbers <= x
        it = (v is not None and (v >= x if f.op == "min" else v <= x) for v in self.values)
        return np.fromiter(it, dtype=bool, count=n)


class Rows(Sequence[dict[str, Any]]):
    """Rows of one query, held as tuples: each access builds a fresh dict, so picking one row of a
    million-row table costs one row (not a copy of the table) and no caller can change the cache."""

    __slots__ = ("_columns", "_data", "_names", "_where")

    def __init__(self, names: list[str], data: list[tuple[Any, ...]]) -> None:
        self._names, self._data = names, data
        self._columns: dict[str, ColumnValues] = {}
        self._where: dict[tuple[str, str], Rows] = {}

    def having(self, name: str) -> Rows:
        """The rows whose ``name`` is not None, in the same order (held: a family asks again per try)."""
        key = (name, "not None")
        if key not in self._where:
            self._where[key] = Rows(
                self._names, list(itertools.compress(self._data, self.column(name).present.tolist()))
            )
        return self._where[key]

    def where(self, *filters: Filter) -> Rows:
        """The rows every filter holds for (``Filter.holds``), in the same order, tested by masks over
        the held columns rather than a dict per row. The rows of one equality (a status, a category:
        few values, asked for again and again) are held; a threshold is drawn afresh each time and is not."""
        key = None
        if len(filters) == 1 and filters[0].op == "eq":
            key = (filters[0].column.name, repr(filters[0].value))
            if key in self._where:
                return self._where[key]
        if filters:
            keep = np.logical_and.reduce([self.column(f.column.name).mask(f) for f in filters])
            found = Rows(self._names, list(itertools.compress(self._data, keep.tolist())))
        else:
            found = Rows(self._names, self._data)
        if key is not None:
            self._where[key] = found
        return found

    def with_ids(self, ids: set[Any]) -> Rows:
        """The rows whose id is in ``ids``, in the same order: what ``WHERE id IN (...)`` over the same
        query returns, without a second read (or copy) of the rows."""
        i = self._names.index("id")
        return Rows(self._names, [r for r in self._data if r[i] in ids])

    def grouped(self, keys: Sequence[Any]) -> dict[Any, Rows]:
        """The rows under each key (``keys[i]`` is row i's; a None key drops the row), each group in
        the same order: grouping the held tuples builds no dict per row."""
        groups: dict[Any, list[tuple[Any, ...]]] = {}
        for key, row in zip(keys, self._data, strict=True):
            if key is not None:
                groups.setdefault(key, []).append(row)
        return {key: Rows(self._names, data) for key, data in groups.items()}

    def column(self, name: str) -> ColumnValues:
        """One column's values in row order (built once: the rows never change)."""
        if name not in self._columns:
            i = self._names.index(name)
            self._columns[name] = ColumnValues([r[i] for r in self._data])
        return self._columns[name]

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [dict(zip(self._names, r)) for r in self._data[index]]
        return dict(zip(self._names, self._data[index]))

    def __iter__(self) -> Iterator[dict[str, Any]]:
        names = self._names
        return (dict(zip(names, r)) for r in self._data)

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, (Rows, list)) else NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: Any) -> list[dict[str, Any]]:
        return [*self, *other]

    def __radd__(self, other: Any) -> list[dict[str, Any]]:
        return [*other, *self]


def keep(rows: Sequence[dict[str, Any]], filters: Sequence[Filter]) -> Sequence[dict[str, Any]]:
    """The rows every filter holds for, in order: by masks over the held columns where ``rows`` are a
    query's (``Rows``), else row by row."""
    if isinstance(rows, Rows):
        return rows.where(*filters)
    return [r for r in rows if all(f.holds(r) for f in filters)]


def merge(filters: list[Filter]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in filters:
        out.update(f.arguments())
    return out
