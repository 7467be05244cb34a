"""The tool model: a spec is data (kind, table, JSON Schemas, errors, declared effects), one model
per tool kind (:data:`ToolSpec` is their union, told apart by ``kind``), each with only its own fields.

Shared by the builders (:mod:`pipeline.tools.specs`, :mod:`pipeline.tools.operations`,
:mod:`pipeline.tools.stats`), the one executor and the probes, so none of them imports
another's internals.
"""

from __future__ import annotations

import copy
from typing import Annotated, Any, Literal, TypeVar, overload

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    field_serializer,
    field_validator,
    model_serializer,
    model_validator,
)

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


_EFFECT_WIRE: dict[str, Any] = {"to": None, "allowed_from": [], "lines": None, "item": None, "quantity": None}
"""tools.json keeps one record shape for both effect kinds: a field a kind does not have is written
with this empty value (bundles read as they did when one model held both), and dropped on reading."""


class _Effect(BaseModel):
    """What both effect kinds have: the table they write, the column they change there, and the
    reference (on the rows they start from) to the operated record."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str = Field(description="The table whose rows the effect changes.")
    column: str = Field(description="The column it changes there.")
    ref: str = Field(description="The column pointing at the operated record (on the moved rows, or on the lines).")

    @model_validator(mode="before")
    @classmethod
    def _read_wire(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        return {k: v for k, v in data.items() if k in cls.model_fields or v not in (None, [], ())}

    @model_serializer(mode="wrap")
    def _write_wire(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key, empty in _EFFECT_WIRE.items():
            data.setdefault(key, empty if info.mode_is_json() or not isinstance(empty, list) else ())
        return data


class CascadeStatus(_Effect):
    """Rows of ``table`` whose ``ref`` points at the operated record and whose ``column`` is in
    ``allowed_from`` move to ``to`` (an order's items are cancelled with it)."""

    kind: Literal["cascade_status"] = "cascade_status"
    to: str = Field(description="The status the rows move to.")
    allowed_from: tuple[str, ...] = Field(description="The statuses a row may move from; others stay.")


class Restock(_Effect):
    """For each row of ``lines`` whose ``ref`` points at the operated record, ``table.column`` of the
    row named by ``item`` grows by the line's ``quantity`` (a cancelled order's stock returns)."""

    kind: Literal["restock"] = "restock"
    lines: str = Field(description="The table of lines that name the items and their quantities.")
    item: str = Field(description="The lines' reference to the row of ``table`` that takes the quantity back.")
    quantity: str = Field(description="The lines' column holding how many go back.")


Effect = Annotated[CascadeStatus | Restock, Field(discriminator="kind")]
"""A side effect of a business operation, applied in the same transaction as the operation."""


class _Tool(BaseModel):
    """What every tool kind has: its name, its words for the agent, the table it works on, the JSON
    Schemas of its arguments and result, and the typed errors it may return."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="The tool's name, snake_case words (``list_orders``), unique in its toolset.")
    description: str = Field(description="What the tool does, in words the agent reads before calling it.")
    table: str = Field(description="The table the tool reads or writes (the only one it can reach).")
    parameters: dict[str, Any] = Field(description="JSON Schema (2020-12) of the call's arguments.")
    result: dict[str, Any] = Field(description="JSON Schema of what a successful call returns.")
    errors: tuple[str, ...] = Field(description="The typed error codes a call may return (keys of ERROR_STATUS).")


class GetTool(_Tool):
    """Fetch one record by its numeric id."""

    kind: Literal["get"] = Field(description="Tool kind: one record by id.")
    mode: Literal["read"] = Field(default="read", description="Reads only.")


class ListTool(_Tool):
    """Search a table with typed filters, sorting and paging."""

    kind: Literal["list"] = Field(description="Tool kind: filtered, sorted, paged search.")
    mode: Literal["read"] = Field(default="read", description="Reads only.")
    columns: tuple[str, ...] = Field(description="The columns a call may filter on.")


class AggregateTool(_Tool):
    """A report over one amount-carrying table: a count or an amount's total, average or bounds,
    optionally grouped, over the rows of one status, category or related record."""

    kind: Literal["aggregate"] = Field(description="Tool kind: a statistics report.")
    mode: Literal["read"] = Field(default="read", description="Reads only.")
    columns: tuple[str, ...] = Field(description="The columns a report may group by or take a 'where' on.")


class CreateTool(_Tool):
    """Insert one record; a status starts at its first value."""

    kind: Literal["create"] = Field(description="Tool kind: insert one record.")
    mode: Literal["write"] = Field(default="write", description="Writes.")
    columns: tuple[str, ...] = Field(description="The columns a call may set (never a status).")


class UpdateTool(_Tool):
    """Change fields of one record; its status, if it has a movable one, only along the blueprint's
    transitions and never to a value an operation alone may set."""

    kind: Literal["update"] = Field(description="Tool kind: change fields of one record by id.")
    mode: Literal["write"] = Field(default="write", description="Writes.")
    columns: tuple[str, ...] = Field(description="The columns a call may set, besides the status.")
    status_column: str | None = Field(
        default=None, description="The status a call may move along ``transitions``, if any."
    )
    transitions: dict[str, tuple[str, ...]] | None = Field(
        default=None, description="With ``status_column``: status value -> the values it may move to (none: final)."
    )
    reserved: dict[str, str] = Field(
        default_factory=dict, description="Status value -> the operation that alone may set it (the update refuses it)."
    )

    @model_validator(mode="after")
    def _status_moves(self) -> UpdateTool:
        if (self.status_column is None) != (self.transitions is None) or (self.reserved and self.status_column is None):
            raise ValueError(f"update {self.name}: status_column, transitions and reserved go together")
        return self


class DeleteTool(_Tool):
    """Delete one record by its id, returning it as it was."""

    kind: Literal["delete"] = Field(description="Tool kind: delete one record by id.")
    mode: Literal["write"] = Field(default="write", description="Writes.")


class TransitionTool(_Tool):
    """A business operation: moves one record's status from one of ``allowed_from`` to ``to`` and
    applies its ``effects``, in one transaction."""

    kind: Literal["transition"] = Field(description="Tool kind: a guarded status change (a business operation).")
    mode: Literal["write"] = Field(default="write", description="Writes.")
    status_column: str = Field(description="The status column the operation sets.")
    to: str = Field(description="The value it sets.")
    allowed_from: tuple[str, ...] = Field(description="The values the status must hold for the call to be allowed.")
    sets_time: str | None = Field(default=None, description="A time column set to the clock by the same call, if any.")
    effects: tuple[Effect, ...] = Field(default=(), description="Side effects applied in the same transaction.")


ToolSpec = Annotated[
    GetTool | ListTool | AggregateTool | CreateTool | UpdateTool | DeleteTool | TransitionTool,
    Field(discriminator="kind"),
]
"""One tool, typed by its kind (the ``kind`` field picks the model)."""
StatusTool = UpdateTool | TransitionTool
"""The kinds that may move a status."""
_KINDS: dict[str, type[_Tool]] = {
    "get": GetTool,
    "list": ListTool,
    "aggregate": AggregateTool,
    "create": CreateTool,
    "update": UpdateTool,
    "delete": DeleteTool,
    "transition": TransitionTool,
}

_WIRE: dict[str, Any] = {
    "columns": [],
    "status_column": None,
    "to": None,
    "allowed_from": [],
    "sets_time": None,
    "transitions": None,
    "reserved": {},
    "effects": [],
}
"""tools.json keeps one record shape for every kind: a field a kind does not have is written with this
empty value (so bundles read the same as before the kinds had models of their own), and dropped again on
reading, where any other value for it is refused."""
_WIRE_ORDER = ("name", "description", "kind", "table", "mode", "parameters", "result", "errors", *_WIRE)


def _to_wire(spec: _Tool, info: SerializationInfo) -> dict[str, Any]:
    data = spec.model_dump(mode=info.mode)
    json = info.mode_is_json()
    for key, empty in _WIRE.items():
        if key not in data:
            data[key] = empty if json else tuple(empty) if isinstance(empty, list) else copy.copy(empty)
    return {key: data[key] for key in _WIRE_ORDER}


def _from_wire(data: Any) -> Any:
    model = _KINDS.get(str(data.get("kind"))) if isinstance(data, dict) else None
    if model is None:
        return data
    own = model.model_fields
    return {k: v for k, v in data.items() if k in own or k not in _WIRE or v not in (None, [], (), {})}


_T = TypeVar("_T", bound=_Tool)


class Toolset(BaseModel):
    """The tool surface of one environment, in the order an agent sees it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    domain: str = Field(description="The domain the tools serve (the schema's domain).")
    tools: tuple[ToolSpec, ...] = Field(description="Every tool, names unique.")

    @field_validator("tools", mode="before")
    @classmethod
    def _read_wire(cls, value: Any) -> Any:
        return tuple(_from_wire(v) for v in value) if isinstance(value, (list, tuple)) else value

    @field_serializer("tools")
    def _write_wire(self, tools: tuple[ToolSpec, ...], info: SerializationInfo) -> list[dict[str, Any]]:
        return [_to_wire(t, info) for t in tools]

    @overload
    def get(self, name: str) -> ToolSpec: ...
    @overload
    def get(self, name: str, kind: type[_T]) -> _T: ...
    def get(self, name: str, kind: type[_Tool] | None = None) -> _Tool:
        """The tool called ``name`` (KeyError if none); with ``kind``, TypeError unless it is of that kind."""
        for t in self.tools:
            if t.name == name:
                if kind is not None and not isinstance(t, kind):
                    raise TypeError(f"tool {name} is a {t.kind} tool, not {kind.__name__}")
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
