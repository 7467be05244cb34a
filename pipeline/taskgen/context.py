"""Read access to the initial state, shaped for families choosing and naming subjects.

Families learn facts through the same list tool the agent will use (``Context.call``),
so a reference solution is exactly the calls that computed its answer, and a count in
a grounding means what the agent will see. Wording helpers turn rows, columns and
filters into the phrases a user would say ("customer Ann Lee", "placed on or after
March 4, 2025"), with the variants taken from the phrasing templates.
"""

from __future__ import annotations

import copy
import json
import math
import random
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pipeline.runtime.executor import Executor
from pipeline.schema import Column, Schema, Table
from pipeline.taskgen.model import Grounding, Skip, ToolCall
from pipeline.taskgen.phrasing import Phrasebook
from pipeline.tools import MAX_PAGE_SIZE, Toolset

NUMERIC = frozenset({"money", "quantity", "integer", "rating", "percent", "decimal"})
TIMES = frozenset({"timestamp", "date"})
CODE_LIKE = frozenset({"code", "sku", "isbn", "license_plate", "postcode", "email", "phone", "username"})
PLAIN_NAMES = frozenset({"person_name", "first_name", "last_name", "company"})
DESCRIPTIVE = frozenset({"city", "country", "word", "company", "job_title", "color", "first_name", "last_name"})
"""Text columns a user might describe someone by ("the customer from Springfield")."""

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


def words(name: str) -> str:
    return name.replace("_", " ")


def relation_words(fk: Column) -> str:
    """``customer_id`` -> "customer", ``origin_airport_id`` -> "origin airport"."""
    return words(fk.name.removesuffix("_id"))


def column_words(column: Column) -> str:
    """``placed_at`` -> "placed date", ``loyalty_tier`` -> "loyalty tier"."""
    if column.semantic in TIMES:
        stem = column.name
        for suffix in ("_at", "_on", "_date", "_time"):
            stem = stem.removesuffix(suffix)
        return words(stem) + " date"
    return words(column.name)


def with_article(phrase: str) -> str:
    return ("an " if phrase[:1].lower() in "aeiou" else "a ") + phrase


def nice_date(value: str) -> str:
    d = datetime.strptime(value[:10], "%Y-%m-%d")
    return f"{d.strftime('%B')} {d.day}, {d.year}"


class Context:
    """The initial state (read through the tools) plus the schema, toolset and phrasings."""

    def __init__(self, schema: Schema, toolset: Toolset, executor: Executor, conn: sqlite3.Connection,
                 clock: str, seed: int, phrases: Phrasebook) -> None:
        self.schema, self.toolset, self.executor, self.conn = schema, toolset, executor, conn
        self.clock, self.seed, self.phrases = clock, seed, phrases
        # The state never changes during generation, so reads are memoised.
        self._calls: dict[str, Any] = {}
        self._rows: dict[tuple[str, str, tuple[Any, ...]], list[dict[str, Any]]] = {}
        self.memo: dict[Any, Any] = {}

    # -- tools and rows -----------------------------------------------------------------------

    def tool(self, kind: str, table: Table | str) -> str | None:
        name = table if isinstance(table, str) else table.name
        return next((t.name for t in self.toolset.tools if t.kind == kind and t.table == name), None)

    def need_tool(self, kind: str, table: Table) -> str:
        name = self.tool(kind, table)
        if name is None:
            raise Skip("domain_lacks_tool")
        return name

    def filterable(self, table: Table) -> set[str]:
        name = self.tool("list", table)
        return set(self.toolset.get(name).columns) if name else set()

    def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        key = json.dumps([tool, arguments], sort_keys=True, default=str)
        if key not in self._calls:
            self._calls[key] = self.executor.call(self.conn, tool, dict(arguments))
        return copy.deepcopy(self._calls[key])

    def list_call(self, table: Table, arguments: dict[str, Any]) -> ToolCall:
        return ToolCall(tool=self.need_tool("list", table), arguments=arguments)

    def total(self, table: Table, arguments: dict[str, Any]) -> int:
        return int(self.call(self.need_tool("list", table), {**arguments, "limit": 1})["total"])

    def ground(self, table: Table, arguments: dict[str, Any]) -> Grounding:
        tool = self.need_tool("list", table)
        return Grounding(tool=tool, arguments=arguments, total=self.total(table, arguments))

    def fetch_all(self, table: Table, arguments: dict[str, Any]) -> tuple[list[dict[str, Any]], list[ToolCall]]:
        """Every matching row, page by page, and the list calls that read them."""
        tool = self.need_tool("list", table)
        rows: list[dict[str, Any]] = []
        calls: list[ToolCall] = []
        offset: int | None = 0
        while offset is not None:
            args = {**arguments, "limit": MAX_PAGE_SIZE} | ({"offset": offset} if offset else {})
            result = self.call(tool, args)
            calls.append(ToolCall(tool=tool, arguments=args))
            rows += result["items"]
            offset = result["next_offset"]
        return rows, calls

    def rows(self, table: Table, where: str = "", params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        key = (table.name, where, params)
        if key not in self._rows:
            cur = self.conn.execute(f'SELECT * FROM "{table.name}" {where} ORDER BY id', params)
            names = [d[0] for d in cur.description]
            self._rows[key] = [dict(zip(names, r)) for r in cur.fetchall()]
        return [dict(r) for r in self._rows[key]]

    def row(self, table: Table, row_id: int) -> dict[str, Any]:
        found = self.rows(table, "WHERE id = ?", (row_id,))
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
        return [c for c in table.columns
                if c.name in ok and not c.unique and not c.primary_key and not c.references and c.name != table.label
                and (c.values or c.sql_type == "BOOLEAN" or c.semantic in DESCRIPTIVE | NUMERIC | TIMES)]

    def attributes(self, table: Table) -> list[Column]:
        """Columns worth asking about: not keys, the label, long text or flags."""
        return [c for c in table.columns
                if not c.primary_key and not c.references and c.name != table.label
                and c.sql_type != "BOOLEAN" and c.semantic not in ("text", "url")]

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

    def condition(self, rng: random.Random, f: Filter) -> str:
        """A relative clause for one filter, e.g. "whose loyalty tier is gold"."""
        c = f.column
        if c.sql_type == "BOOLEAN":
            form = "flag_true" if f.value else "flag_false"
            return self.phrases.render(rng, "common", form, column=column_words(c))
        value = nice_date(f.value) if f.op in ("on", "from", "to") else self.show(c, f.value)
        if f.op in ("min", "max") and c.sql_type == "REAL" and float(f.value).is_integer():
            value = str(int(f.value))
        return self.phrases.render(rng, "common", f"condition_{f.op}", column=column_words(c), value=value,
                                   a_column=with_article(column_words(c)))

    def conditions(self, rng: random.Random, filters: list[Filter]) -> str:
        parts = [self.condition(rng, f) for f in filters]
        if len(parts) <= 1:
            return "".join(parts)
        return ", ".join(parts[:-1]) + " and " + parts[-1]

    # -- filters ------------------------------------------------------------------------------------

    def random_filter(self, rng: random.Random, column: Column, rows: list[dict[str, Any]]) -> Filter | None:
        """A filter on ``column`` that some of ``rows`` satisfy (thresholds near the middle)."""
        present = [r[column.name] for r in rows if r[column.name] is not None]
        if not present:
            return None
        if column.values or column.sql_type == "BOOLEAN" or column.semantic in DESCRIPTIVE:
            value = rng.choice(present)
            return Filter(column, "eq", bool(value) if column.sql_type == "BOOLEAN" else value)
        ordered = sorted(present)
        pick = ordered[int(len(ordered) * rng.uniform(0.25, 0.75))]
        if column.semantic in TIMES:
            return Filter(column, rng.choice(("from", "to")), str(pick)[:10])
        if column.semantic in NUMERIC:
            op: FilterOp = rng.choice(("min", "max"))
            value = float(int(pick)) if column.sql_type == "REAL" else int(pick)
            return Filter(column, op, value)
        return None

    def filter_columns(self, table: Table) -> list[Column]:
        ok = self.filterable(table)
        return [c for c in table.columns if c.name in ok and not c.primary_key and not c.references
                and c.name != table.label and not c.unique
                and (c.values or c.sql_type == "BOOLEAN" or c.semantic in NUMERIC | TIMES | DESCRIPTIVE)]

    def pick_filters(self, rng: random.Random, table: Table, n: int, rows: list[dict[str, Any]],
                     low: int = 1, high: int = 10**9, tries: int = 12, exclude: frozenset[str] = frozenset(),
                     ) -> list[Filter]:
        """``n`` filters on distinct columns matching between ``low`` and ``high`` of ``rows``."""
        columns = [c for c in self.filter_columns(table) if c.name not in exclude]
        if len(columns) < n:
            raise Skip("domain_lacks_filters")
        for _ in range(tries):
            chosen = rng.sample(columns, n)
            filters = [self.random_filter(rng, c, rows) for c in chosen]
            if any(f is None for f in filters):
                continue
            kept = [f for f in filters if f is not None]
            hits = sum(1 for r in rows if all(f.holds(r) for f in kept))
            if not low <= hits <= high:
                # Move one threshold until the count lands in range.
                tunable = [i for i, f in enumerate(kept) if f.op in ("min", "max", "from", "to")]
                if not tunable:
                    continue
                i = tunable[-1]
                others = [r for r in rows if all(f.holds(r) for j, f in enumerate(kept) if j != i)]
                tuned = _tuned(rng, kept[i], others, low, high)
                if tuned is None:
                    continue
                kept[i] = tuned
            if all(sum(1 for r in rows if f.holds(r)) < len(rows) for f in kept):
                return kept
        raise Skip("no_matching_filters")


def _tuned(rng: random.Random, f: Filter, rows: list[dict[str, Any]], low: int, high: int) -> Filter | None:
    """The same kind of bound on ``f.column``, placed so that between ``low`` and ``high`` rows pass."""
    c = f.column
    upward = f.op in ("min", "from")
    values = sorted((str(r[c.name])[:10] if c.semantic in TIMES else r[c.name]
                     for r in rows if r[c.name] is not None), reverse=upward)
    targets = list(range(max(low, 1), min(high, len(values) - 1) + 1))
    rng.shuffle(targets)
    for n in targets[:12]:
        t = values[n - 1]
        passing = sum(1 for v in values if (v >= t if upward else v <= t))
        if passing != n:
            continue
        if c.sql_type == "REAL":
            rounder = float(math.floor(t) if upward else math.ceil(t))
            if sum(1 for v in values if (v >= rounder if upward else v <= rounder)) == n:
                t = rounder
        return Filter(c, f.op, t)
    return None


def merge(filters: list[Filter]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in filters:
        out.update(f.arguments())
    return out
