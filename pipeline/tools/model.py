"""The tool model: a spec is data (kind, table, JSON Schemas, errors, declared effects).

Shared by the builders (:mod:`pipeline.tools.specs`, :mod:`pipeline.tools.operations`,
:mod:`pipeline.tools.stats`), the one executor and the probes, so none of them imports
another's internals.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from pipeline.world.schema import Column, Table

ToolKind = Literal["get", "list", "create", "update", "transition", "delete", "aggregate"]
MAX_PAGE_SIZE = 50
DEFAULT_PAGE_SIZE = 20
MAX_ID = 2**63 - 1
METRICS = ("count", "sum", "avg", "min", "max")

ERRORS: dict[ToolKind, tuple[str, ...]] = {
    "get": ("invalid_argument", "not_found"),
    "list": ("invalid_argument",),
    "aggregate": ("invalid_argument",),
    "create": ("invalid_argument", "not_found", "conflict", "constraint_violation"),
    "update": ("invalid_argument", "not_found", "conflict", "constraint_violation"),
    "delete": ("invalid_argument", "not_found", "conflict"),
    "transition": ("invalid_argument", "not_found", "forbidden_transition"),
}
ERROR_STATUS = {
    "invalid_argument": 400,
    "not_found": 404,
    "conflict": 409,
    "constraint_violation": 409,
    "forbidden_transition": 409,
}
"""HTTP status of each typed error (the server and the OpenAPI view share it)."""


class Effect(BaseModel):
    """A side effect of a business operation, applied in the same transaction.

    ``cascade_status``: rows of ``table`` whose ``ref`` column points at the operated
    record and whose ``column`` is in ``allowed_from`` move to ``to``.
    ``restock``: for each row of ``lines`` whose ``ref`` points at the operated record,
    ``table.column`` of the row named by ``item`` grows by ``quantity``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["cascade_status", "restock"]
    table: str
    column: str
    ref: str
    to: str | None = None
    allowed_from: tuple[str, ...] = ()
    lines: str | None = None
    item: str | None = None
    quantity: str | None = None


class ToolSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str
    kind: ToolKind
    table: str
    mode: Literal["read", "write"]
    parameters: dict[str, Any]
    result: dict[str, Any]
    errors: tuple[str, ...]
    columns: tuple[str, ...] = ()
    """Columns a create/update may write (besides an update's status), or a list may filter on."""
    status_column: str | None = None
    """The status a transition sets, or that an update may move along ``transitions``."""
    to: str | None = None
    allowed_from: tuple[str, ...] = ()
    sets_time: str | None = None
    transitions: dict[str, tuple[str, ...]] | None = None
    """For an update that may move the status: value -> values it may move to."""
    reserved: dict[str, str] = {}
    """For an update: status value -> the operation that alone may set it."""
    effects: tuple[Effect, ...] = ()


class Toolset(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    domain: str
    tools: tuple[ToolSpec, ...]

    def get(self, name: str) -> ToolSpec:
        for t in self.tools:
            if t.name == name:
                return t
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.tools]


def value_schema(column: Column) -> dict[str, Any]:
    """JSON Schema of one column's value as the agent sends or receives it."""
    if column.values:
        schema: dict[str, Any] = {"type": "string", "enum": list(column.values)}
    elif column.sql_type == "INTEGER":
        schema = {"type": "integer"}
    elif column.sql_type == "REAL":
        schema = {"type": "number"}
    elif column.sql_type == "BOOLEAN":
        schema = {"type": "boolean"}
    elif column.semantic == "timestamp":
        schema = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$"}
    elif column.semantic == "date":
        schema = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}
    else:
        schema = {"type": "string", "minLength": 1, "maxLength": 500}
    if column.min is not None and schema.get("type") in ("integer", "number"):
        schema["minimum"] = column.min if column.sql_type == "REAL" else int(column.min)
    if column.max is not None and schema.get("type") in ("integer", "number"):
        schema["maximum"] = column.max if column.sql_type == "REAL" else int(column.max)
    if column.description:
        schema["description"] = column.description
    return schema


def bare(column: Column) -> dict[str, Any]:
    """A column's value schema without the bounds (filters and results may lie outside them)."""
    s = value_schema(column)
    for k in ("minimum", "maximum", "minLength", "maxLength"):
        s.pop(k, None)
    return s


def row_schema(table: Table) -> dict[str, Any]:
    props = {}
    for c in table.columns:
        s = bare(c)
        props[c.name] = {"anyOf": [s, {"type": "null"}]} if c.nullable else s
    return {
        "type": "object",
        "properties": props,
        "required": [c.name for c in table.columns],
        "additionalProperties": False,
    }


def id_param(table: Table) -> dict[str, Any]:
    return {"type": "integer", "minimum": 1, "maximum": MAX_ID, "description": f"id of the {table.noun}"}


def object_schema(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def writable(table: Table) -> list[Column]:
    """Columns an agent may set directly; statuses only move through operations or transitions."""
    return [c for c in table.columns if not c.primary_key and c.semantic != "status"]


def filterable(table: Table) -> list[Column]:
    return [c for c in table.columns if c.semantic not in ("text",)]


def measure_columns(table: Table) -> list[Column]:
    """Numeric fields an aggregate may sum, average or bound (not keys)."""
    return [c for c in table.columns if c.sql_type in ("INTEGER", "REAL") and not c.primary_key and not c.references]


def group_columns(table: Table) -> list[Column]:
    """Fields an aggregate may group by: categories, flags and references."""
    return [c for c in table.columns if c.values or c.sql_type == "BOOLEAN" or c.references]


def movable_status(table: Table) -> Column | None:
    """The status column an update may move (along the blueprint's transitions), if any."""
    return next((c for c in table.columns if c.semantic == "status" and c.values and c.transitions), None)


def options(values: list[str]) -> str:
    return " or ".join(f"'{v}'" for v in values)


def rules_text(table: Table) -> str:
    """The table's business rules in words, so an agent knows why a write is refused before trying it."""
    said = list(dict.fromkeys(r.message for r in table.rules if r.message))
    return f" Rules: {'; '.join(said)}." if said else ""


def tool_name(verb: str, noun: str) -> str:
    """``list_city_departments``: every tool name is snake_case words from the readable label, whatever the
    naming style of the tables and columns, so one bundle never mixes ``list_cityDepartments`` with
    ``get_city_department``."""
    return "_".join([verb, *noun.lower().split()])


def what(table: Table) -> str:
    return table.description.rstrip(".")


def filter_props(table: Table) -> dict[str, Any]:
    """Typed filters shared by list and aggregate: equality, ranges, text contains, enum membership."""
    props: dict[str, Any] = {}
    for c in filterable(table):
        base = bare(c)
        props[c.name] = {**base, "description": f"only {table.plural} whose {c.label} equals this"}
        if c.values:
            props[f"{c.name}_in"] = {
                "type": "array",
                "items": {"type": "string", "enum": list(c.values)},
                "minItems": 1,
                "maxItems": len(c.values),
                "uniqueItems": True,
                "description": f"{c.label} is one of these",
            }
        if c.sql_type in ("INTEGER", "REAL") and not c.references and not c.primary_key:
            props[f"{c.name}_min"] = {"type": base["type"], "description": f"{c.label} at least this"}
            props[f"{c.name}_max"] = {"type": base["type"], "description": f"{c.label} at most this"}
        if c.semantic in ("timestamp", "date"):
            props[f"{c.name}_from"] = {**base, "description": f"{c.label} on or after this"}
            props[f"{c.name}_to"] = {**base, "description": f"{c.label} on or before this"}
        if c.sql_type == "TEXT" and not c.values and c.semantic not in ("timestamp", "date"):
            props[f"{c.name}_contains"] = {
                "type": "string",
                "minLength": 1,
                "maxLength": 200,
                "description": f"{c.label} contains this text (case-insensitive)",
            }
    return props
