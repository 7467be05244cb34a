"""Statistics tools shaped like a business API's reports, one per main record type.

A real API has no SQL-like "aggregate any table" endpoint; it has reports such as
"order totals per customer" or "invoices by status". Each statistics tool covers one
table that carries amounts (orders, invoices, loans...): count its rows, or total,
average, lowest or highest of one of its amounts, optionally one figure per status,
category, flag or related record, over the rows of one status, category or related
record. Anything finer (date ranges, thresholds, text) is not a report: it takes the
table's paged list tool, so answers over such conditions require reading every page.

The executor runs these as its ``aggregate`` kind; ``table`` is a constant argument
the schema pins, so a call can never reach another table.
"""

from __future__ import annotations

from typing import Any

from pipeline.tools.model import (
    DEFAULT_PAGE_SIZE,
    ERRORS,
    MAX_PAGE_SIZE,
    METRICS,
    AggregateTool,
    bare,
    group_columns,
    measure_columns,
    object_schema,
)
from pipeline.world.schema import Schema, Table

AMOUNTS = frozenset({"money", "quantity", "decimal"})
"""Semantic types a report sums: amounts, not ratings or years."""
MAX_REPORTS = 3
"""At most this many statistics tools per environment (the largest amount-carrying tables)."""


def report_tables(schema: Schema) -> list[Table]:
    """Tables worth a statistics tool: growing records (not lookups, not histories) with an amount
    and something to break it down by, the ones with most rows and references first."""
    fit = [
        t
        for t in schema.tables
        if t.scales
        and t.history is None
        and any(c.semantic in AMOUNTS for c in measure_columns(t))
        and group_columns(t)
    ]
    fit.sort(key=lambda t: (-t.rows, -len(t.foreign_keys), t.name))
    return fit[:MAX_REPORTS]


def where_props(table: Table) -> dict[str, Any]:
    """The only conditions a report takes: one status, category, flag or related record."""
    props: dict[str, Any] = {}
    for c in group_columns(table):
        props[c.name] = {**bare(c), "description": f"only {table.plural} whose {c.label} equals this"}
        if c.values:
            props[f"{c.name}_in"] = {
                "type": "array",
                "items": {"type": "string", "enum": list(c.values)},
                "minItems": 1,
                "maxItems": len(c.values),
                "uniqueItems": True,
                "description": f"{c.label} is one of these",
            }
    return props


def tool_name(noun: str, what: str) -> str:
    """``order statistics`` -> ``order_statistics`` (snake_case words of the readable label)."""
    return "_".join(f"{noun} {what}".lower().split())


def statistics_tool(table: Table) -> AggregateTool:
    measures, groups = measure_columns(table), group_columns(table)
    amounts = ", ".join(c.label for c in measures)
    breakdown = ", ".join(c.label for c in groups)
    props: dict[str, Any] = {
        "table": {"type": "string", "const": table.name, "description": f"always '{table.name}'"},
        "metric": {
            "type": "string",
            "enum": list(METRICS),
            "description": "count the records, or sum/avg/min/max of 'column'",
        },
        "column": {
            "type": "string",
            "enum": [c.name for c in measures],
            "description": f"the amount the metric applies to ({amounts}); needed unless metric is count",
        },
        "group_by": {
            "type": "string",
            "enum": [c.name for c in groups],
            "description": f"one figure per distinct {breakdown}",
        },
        "where": object_schema(where_props(table), []),
        "descending": {"type": "boolean", "description": "order groups by value, largest first (default: by key)"},
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_PAGE_SIZE,
            "description": f"at most this many groups, at most {MAX_PAGE_SIZE} (default {DEFAULT_PAGE_SIZE})",
        },
    }
    group = object_schema(
        {
            "key": {
                "type": ["string", "integer", "number", "boolean", "null"],
                "description": "value of group_by (null when not grouped)",
            },
            "count": {"type": "integer", "description": f"{table.plural} in the group"},
            "value": {"type": ["number", "null"], "description": "the metric (null over no values)"},
        },
        ["key", "count", "value"],
    )
    result = object_schema(
        {
            "table": {"type": "string"},
            "metric": {"type": "string"},
            "column": {"type": ["string", "null"]},
            "group_by": {"type": ["string", "null"]},
            "groups": {"type": "array", "items": group},
            "total_groups": {"type": "integer", "description": "groups before the limit"},
        },
        ["table", "metric", "column", "group_by", "groups", "total_groups"],
    )
    return AggregateTool(
        name=tool_name(table.noun, "statistics"),
        kind="aggregate",
        table=table.name,
        description=f"Report on {table.plural}: how many there are, or the total, average, lowest or highest "
        f"{amounts}, optionally one figure per {breakdown}, over the {table.plural} of one "
        f"{' / '.join(c.label for c in groups)} ('where'). Finer conditions (dates, thresholds, text) "
        f"take the list of {table.plural}.",
        parameters=object_schema(props, ["table", "metric"]),
        result=result,
        errors=ERRORS["aggregate"],
        columns=tuple(c.name for c in groups),
    )
