"""Read access to the initial state, shaped for families choosing and naming subjects.

Families learn facts through the same list tool the agent will use (``Context.call``),
so a reference solution is exactly the calls that computed its answer, and a count in
a grounding means what the agent will see. Wording helpers turn rows, columns and
filters into the phrases a user would say ("customer Ann Lee", "placed on or after
March 4, 2025"), with the variants taken from the phrasing templates.
"""

from __future__ import annotations

import json
import math
import pickle
import random
import sqlite3
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any, Literal, NamedTuple

import numpy as np

from pipeline.policy.check import Owners
from pipeline.policy.model import Policy
from pipeline.runtime.task import Grounding, ToolCall, call_key
from pipeline.tasks.filters import ColumnValues, Filter, FilterOp, Rows
from pipeline.tasks.model import Skip
from pipeline.tasks.phrasing import Phrasebook
from pipeline.tasks.words import (
    CODE_LIKE,
    DESCRIPTIVE,
    NUMERIC,
    PLAIN_NAMES,
    TIMES,
    column_words,
    nice_date,
    with_article,
    words,
)
from pipeline.tools.executor import Executor, contains_sql
from pipeline.tools.specs import MAX_PAGE_SIZE, ListTool, Toolset, ToolSpec
from pipeline.world.schema import Column, Schema, Table
from pipeline.world.sqlnames import quote_ident


class Where(NamedTuple):
    """One condition of :meth:`Context.rows`: ``column = value``, ``column IN value`` (a tuple), or
    ``column`` contains ``value`` as the list tools' ``_contains`` filter reads it.

    Structured rather than SQL text so that no family writes SQL: the column is quoted here
    and the value is always a bound parameter. Hashable, so a query is memoised by it.
    """

    column: str
    op: Literal["=", "in", "contains"]
    value: Any


def _where_sql(where: tuple[Where, ...]) -> tuple[str, tuple[Any, ...]]:
    """``WHERE`` text and parameters for ``where`` (empty when there is no condition)."""
    clauses: list[str] = []
    params: list[Any] = []
    for w in where:
        if w.op == "=":
            clauses.append(f"{quote_ident(w.column)} = ?")
            params.append(w.value)
        elif w.op == "in":
            # One bound JSON array, however many ids: no statement text grows with the set.
            clauses.append(f"{quote_ident(w.column)} IN (SELECT value FROM json_each(?))")
            params.append(json.dumps(sorted(w.value)))
        elif w.op == "contains":
            clauses.append(contains_sql(w.column))
            params.append(w.value)
        else:
            raise ValueError(f"Where.op must be '=', 'in' or 'contains', got {w.op!r}")
    return ("WHERE " + " AND ".join(clauses) if clauses else ""), tuple(params)


class Context:
    """The initial state (read through the tools) plus the schema, toolset and phrasings."""

    def __init__(
        self,
        schema: Schema,
        toolset: Toolset,
        executor: Executor,
        conn: sqlite3.Connection,
        clock: str,
        seed: int,
        phrases: Phrasebook,
        policy: Policy | None = None,
    ) -> None:
        self.schema, self.toolset, self.executor, self.conn = schema, toolset, executor, conn
        self.clock, self.seed, self.phrases = clock, seed, phrases
        self.policy = policy if policy is not None else Policy(clock=clock)
        """The world's policy: staff rules a reference must keep, and what judgment tasks are built on."""

        # The state never changes during generation, so reads are memoised.
        self._calls: dict[str, bytes] = {}
        """Results asked for more than once, pickled: unpickling hands every caller its own copy, much
        faster than ``copy.deepcopy``."""
        self._asked: set[str] = set()
        """Keys of results computed once and handed out as they were: most are never asked for again,
        and pickling a long listing only to unpickle it once cost more than the read."""
        self._rows: dict[tuple[str, tuple[Where, ...]], Rows] = {}
        self.memo: dict[Any, Any] = {}

    @cached_property
    def specs(self) -> dict[str, ToolSpec]:
        """Every tool spec by name (built once: every candidate's policy check reads it)."""
        return {t.name: t for t in self.toolset.tools}

    # -- tools and rows -----------------------------------------------------------------------

    def tool(self, kind: str, table: Table | str) -> str | None:
        name = table if isinstance(table, str) else table.name
        return next((t.name for t in self.toolset.tools if t.kind == kind and t.table == name), None)

    def need_tool(self, kind: str, table: Table) -> str:
        name = self.tool(kind, table)
        if name is None:
            raise Skip("domain_lacks_tool")
        return name

    def read_call(self, table: Table, row_id: int) -> ToolCall:
        """The read of one row by id: its get tool, or its list filtered by id where the surface has no get."""
        get = self.tool("get", table)
        if get is not None:
            return ToolCall(tool=get, arguments={"id": row_id})
        return self.list_call(table, {"id": row_id})

    def stats_tool(self, table: Table, where: dict[str, Any], group_by: str | None = None) -> str | None:
        """The table's statistics tool when it can answer over ``where`` (grouped by ``group_by``), else None:
        reports take only a status, category, flag or related record, so finer questions page through lists."""
        name = self.tool("aggregate", table)
        if name is None:
            return None
        props = self.toolset.get(name).parameters["properties"]
        if not set(where) <= set(props["where"]["properties"]):
            return None
        if group_by is not None and group_by not in props["group_by"]["enum"]:
            return None
        return name

    @property
    def owners(self) -> Owners:
        """Each history rule's count per owner in the state (:data:`pipeline.policy.check.Owners`),
        counted once per build: the state never changes during generation."""
        held: Owners = self.memo.setdefault(("history_owners",), {})
        return held

    def filterable(self, table: Table) -> set[str]:
        name = self.tool("list", table)
        return set(self.toolset.get(name, ListTool).columns) if name else set()

    def _held(self, key: str, compute: Callable[[], Any]) -> Any:
        """``compute()``, its caller's own copy: the first time as computed; the second time computed
        again (the state never changes, so the same) and kept pickled; after that unpickled."""
        if key in self._calls:
            return pickle.loads(self._calls[key])
        result = compute()
        if key in self._asked:
            self._calls[key] = pickle.dumps(result, pickle.HIGHEST_PROTOCOL)
        else:
            self._asked.add(key)
        return result

    def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        key = call_key(tool, arguments)
        return self._held(key, lambda: self.executor.call(self.conn, tool, dict(arguments)))

    def list_call(self, table: Table, arguments: dict[str, Any]) -> ToolCall:
        return ToolCall(tool=self.need_tool("list", table), arguments=arguments)

    def total(self, table: Table, arguments: dict[str, Any]) -> int:
        return int(self.call(self.need_tool("list", table), {**arguments, "limit": 1})["total"])

    def ground(self, table: Table, arguments: dict[str, Any]) -> Grounding:
        tool = self.need_tool("list", table)
        return Grounding(tool=tool, arguments=arguments, total=self.total(table, arguments))

    def fetch_all(self, table: Table, arguments: dict[str, Any]) -> tuple[list[dict[str, Any]], list[ToolCall]]:
        """Every matching row, page by page, and the list calls that read them.

        The calls are the pages an agent must make; the rows after the first page are read in
        one query in the list tool's own order (``order_by``, then id), which is exactly the
        concatenation of those pages: paging through a large table with offsets would cost
        the square of its pages.
        """
        tool = self.need_tool("list", table)
        key = json.dumps(["fetch_all", tool, arguments], sort_keys=True, default=str)
        return self._held(key, lambda: self._fetch_all(tool, arguments))

    def _fetch_all(self, tool: str, arguments: dict[str, Any]) -> tuple[list[dict[str, Any]], list[ToolCall]]:
        first = {**arguments, "limit": MAX_PAGE_SIZE}
        result = self.call(tool, first)
        rows: list[dict[str, Any]] = list(result["items"])
        calls = [ToolCall(tool=tool, arguments=first)]
        offset, total = result["next_offset"], result["total"]
        if offset is None:
            return rows, calls
        rest = self._rest(tool, arguments, offset, total)
        if rest is None:  # an executor without a direct read: the pages one by one
            while offset is not None:
                args = {**arguments, "limit": MAX_PAGE_SIZE, "offset": offset}
                result = self.call(tool, args)
                calls.append(ToolCall(tool=tool, arguments=args))
                rows += result["items"]
                offset = result["next_offset"]
            return rows, calls
        rows += rest
        while offset is not None:
            calls.append(ToolCall(tool=tool, arguments={**arguments, "limit": MAX_PAGE_SIZE, "offset": offset}))
            offset = offset + MAX_PAGE_SIZE if offset + MAX_PAGE_SIZE < total else None
        return rows, calls

    def _rest(self, tool: str, arguments: dict[str, Any], offset: int, total: int) -> list[dict[str, Any]] | None:
        """Rows ``offset``.. of a list call in one read (arguments already validated by the first page)."""
        read = getattr(self.executor, "_list", None)
        if read is None:
            return None
        items = read(self.conn, self.toolset.get(tool), {**arguments, "limit": total - offset, "offset": offset})
        items = items.get("items") if isinstance(items, dict) else None
        return items if isinstance(items, list) and len(items) == total - offset else None

    def rows(self, table: Table, *where: Where) -> Rows:
        """Rows matching every condition, by id (read once, then from memory); every row handed
        out is a fresh dict."""
        key = (table.name, where)
        if key not in self._rows:
            clause, params = _where_sql(where)
            cur = self.conn.execute(f"SELECT * FROM {quote_ident(table.name)} {clause} ORDER BY id", params)
            self._rows[key] = Rows([d[0] for d in cur.description], cur.fetchall())
        return self._rows[key]

    def values(self, table: Table, column: str) -> list[Any]:
        """Every row's value of ``column``, in id order (the caller's own list): read from the held
        rows' column rather than a dict per row."""
        return list(self.rows(table).column(column).values)

    def row(self, table: Table, row_id: int) -> dict[str, Any]:
        found = self.rows(table, Where("id", "=", row_id))
        if not found:
            raise Skip("no_subject")
        return found[0]

    def parent_of(self, fk: Column) -> Table:
        return self.schema.table(str(fk.references))

    def children(self, table: Table) -> list[tuple[Table, Column]]:
        return [(t, c) for t in self.schema.tables for c in t.foreign_keys if c.references == table.name]

    # -- columns --------------------------------------------------------------------------------

    @staticmethod
    def numeric(table: Table) -> list[Column]:
        return [c for c in table.columns if c.semantic in NUMERIC and not c.references]

    @staticmethod
    def categorical(table: Table) -> list[Column]:
        return [c for c in table.columns if c.values]

    @staticmethod
    def times(table: Table) -> list[Column]:
        return [c for c in table.columns if c.semantic in TIMES]

    def describers(self, table: Table) -> list[Column]:
        """Non-unique columns a user could describe a row by, that the list tool filters on."""
        ok = self.filterable(table)
        return [
            c
            for c in table.columns
            if c.name in ok
            and not c.unique
            and not c.primary_key
            and not c.references
            and c.name != table.label
            and (c.values or c.sql_type == "BOOLEAN" or c.semantic in DESCRIPTIVE | NUMERIC | TIMES)
        ]

    def attributes(self, table: Table) -> list[Column]:
        """Columns worth asking about: not keys, the label, long text or flags."""
        return [
            c
            for c in table.columns
            if not c.primary_key
            and not c.references
            and c.name != table.label
            and c.sql_type != "BOOLEAN"
            and c.semantic not in ("text", "url")
        ]

    def nameable(self, table: Table) -> bool:
        return table.label in self.filterable(table) and not table.column(table.label).references

    # -- wording ----------------------------------------------------------------------------------

    @staticmethod
    def noun(table: Table) -> str:
        return words(table.entity)

    def name(self, table: Table, row: dict[str, Any]) -> str:
        """How a user names one row: "order ORD-104233", 'product "Walnut Kettle"'."""
        return f"{self.noun(table)} {self.label_text(table, row)}"

    def label_text(self, table: Table, row: dict[str, Any]) -> str:
        """The label as said: codes and names bare, titles and words in quotes."""
        label = table.column(table.label)
        shown = self.show(label, row[table.label])
        return shown if label.semantic in CODE_LIKE or label.semantic in PLAIN_NAMES else f'"{shown}"'

    @staticmethod
    def show(column: Column, value: Any) -> str:
        if value is None:
            return "empty"
        if column.sql_type == "BOOLEAN":
            return "yes" if value else "no"
        if column.values:
            return words(str(value))
        if column.sql_type == "REAL":
            return f"{float(value):.2f}"
        if column.semantic == "date":
            return nice_date(str(value))
        if column.sql_type == "INTEGER" and isinstance(value, float) and value.is_integer():
            return str(int(value))
        if column.semantic == "text":
            return f'"{value}"'
        return str(value)

    def condition(self, rng: random.Random, f: Filter, relative: bool = True) -> str:
        """One filter in words: a relative clause or a phrase ("whose loyalty tier is gold", "with
        loyalty tier gold"); ``relative=False`` gives only phrases, for a noun phrase that carries
        a relative clause already (one per noun phrase reads naturally, a chain does not)."""
        c = f.column
        if c.sql_type == "BOOLEAN":
            form = "flag_true" if f.value else "flag_false"
            return self.phrases.render(rng, "common", form, column=column_words(c))
        value = nice_date(f.value) if f.op in ("on", "from", "to") else self.show(c, f.value)
        if f.op in ("min", "max") and c.sql_type == "REAL" and float(f.value).is_integer():
            value = str(int(f.value))
        return self.phrases.render(
            rng,
            "common",
            f"{'condition' if relative else 'attribute'}_{f.op}",
            column=column_words(c),
            value=value,
            a_column=with_article(column_words(c)),
        )

    def conditions(self, rng: random.Random, filters: list[Filter], relative: bool = True) -> str:
        parts = [self.condition(rng, f, relative) for f in filters]
        if len(parts) <= 1:
            return "".join(parts)
        return ", ".join(parts[:-1]) + " and " + parts[-1]

    # -- filters ------------------------------------------------------------------------------------

    def random_filter(self, rng: random.Random, column: Column, rows: Sequence[dict[str, Any]]) -> Filter | None:
        """A filter on ``column`` that some of ``rows`` satisfy (thresholds near the middle)."""
        return _filter_from(rng, column, [r[column.name] for r in rows])

    def filter_columns(self, table: Table) -> list[Column]:
        ok = self.filterable(table)
        return [
            c
            for c in table.columns
            if c.name in ok
            and not c.primary_key
            and not c.references
            and c.name != table.label
            and not c.unique
            and (c.values or c.sql_type == "BOOLEAN" or c.semantic in NUMERIC | TIMES | DESCRIPTIVE)
        ]

    def pick_filters(
        self,
        rng: random.Random,
        table: Table,
        n: int,
        rows: Sequence[dict[str, Any]],
        low: int = 1,
        high: int = 10**9,
        tries: int = 12,
        exclude: frozenset[str] = frozenset(),
    ) -> list[Filter]:
        """``n`` filters on distinct columns matching between ``low`` and ``high`` of ``rows``."""
        columns = [c for c in self.filter_columns(table) if c.name not in exclude]
        if len(columns) < n:
            raise Skip("domain_lacks_filters")
        # Each column is read out of the rows once and every filter becomes a mask over it: the
        # same counts as testing each row, at a small fraction of the cost on large tables.
        values: dict[str, ColumnValues] = {}
        masks_of: dict[tuple[str, str, Any], np.ndarray] = {}

        def column(c: Column) -> ColumnValues:
            if isinstance(rows, Rows):
                return rows.column(c.name)
            if c.name not in values:
                values[c.name] = ColumnValues([r[c.name] for r in rows])
            return values[c.name]

        def mask(f: Filter) -> np.ndarray:
            key = (f.column.name, f.op, repr(f.value))
            if key not in masks_of:
                masks_of[key] = column(f.column).mask(f)
            return masks_of[key]

        for _ in range(tries):
            chosen = rng.sample(columns, n)
            filters = [_filter_from(rng, c, column(c)) for c in chosen]
            if any(f is None for f in filters):
                continue
            kept = [f for f in filters if f is not None]
            masks = [mask(f) for f in kept]
            hits = int(np.logical_and.reduce(masks).sum()) if masks else len(rows)
            if not low <= hits <= high:
                # Move one threshold until the count lands in range.
                tunable = [i for i, f in enumerate(kept) if f.op in ("min", "max", "from", "to")]
                if not tunable:
                    continue
                i = tunable[-1]
                c = kept[i].column
                days, upward = c.semantic in TIMES, kept[i].op in ("min", "from")
                others = [m for j, m in enumerate(masks) if j != i]
                if others:  # the values of the rows the other filters keep, sorted afresh
                    keep = np.logical_and.reduce(others) if len(others) > 1 else others[0]
                    left = ColumnValues(column(c).objects()[keep].tolist()).ordered(days, upward)
                else:  # every row: the column's own sorted values, sorted once
                    left = column(c).ordered(days, upward)
                tuned = _tuned(rng, kept[i], left, low, high)
                if tuned is None:
                    continue
                kept[i] = tuned
            if all(int(mask(f).sum()) < len(rows) for f in kept):
                return kept
        raise Skip("no_matching_filters")


def _filter_from(rng: random.Random, column: Column, column_values: list[Any] | ColumnValues) -> Filter | None:
    """A filter on ``column`` that some of these values satisfy (thresholds near the middle)."""
    held = column_values if isinstance(column_values, ColumnValues) else ColumnValues(column_values)
    present = held.given
    if not present:
        return None
    if column.values or column.sql_type == "BOOLEAN" or column.semantic in DESCRIPTIVE:
        value = rng.choice(present)
        return Filter(column, "eq", bool(value) if column.sql_type == "BOOLEAN" else value)
    ordered = held.ordered()
    pick = ordered[int(len(ordered) * rng.uniform(0.25, 0.75))]
    if column.semantic in TIMES:
        return Filter(column, rng.choice(("from", "to")), str(pick)[:10])
    if column.semantic in NUMERIC:
        op: FilterOp = rng.choice(("min", "max"))
        value = float(int(pick)) if column.sql_type == "REAL" else int(pick)
        return Filter(column, op, value)
    return None


def _passing(values: list[Any], t: Any, upward: bool) -> int:
    """How many of ``values`` (sorted descending when ``upward``, else ascending) are at or past
    ``t`` (``v >= t`` upward, ``v <= t`` downward): the length of the prefix that is, found by
    halving, since in sorted values that prefix is exactly the ones that pass."""
    lo, hi = 0, len(values)
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] >= t if upward else values[mid] <= t:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _tuned(rng: random.Random, f: Filter, values: list[Any], low: int, high: int) -> Filter | None:
    """The same kind of bound on ``f.column``, placed so that between ``low`` and ``high`` of the rows
    pass. ``values`` are the rows' values of ``f.column`` that are not None (days, ``str(v)[:10]``, for
    a time column), sorted descending for a lower bound (``min``, ``from``), else ascending."""
    c = f.column
    upward = f.op in ("min", "from")
    targets = list(range(max(low, 1), min(high, len(values) - 1) + 1))
    rng.shuffle(targets)
    for n in targets[:12]:
        t = values[n - 1]
        if _passing(values, t, upward) != n:
            continue
        if c.sql_type == "REAL":
            rounder = float(math.floor(t) if upward else math.ceil(t))
            if _passing(values, rounder, upward) == n:
                t = rounder
        return Filter(c, f.op, t)
    return None
