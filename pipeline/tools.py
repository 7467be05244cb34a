"""Step 3: schema -> declarative tool specs (and the OpenAPI view of them).

A tool is data: a kind (get, list, create, update, transition), the table it works on,
the JSON Schemas of its arguments and result, and whether it writes. One fixed executor
(:mod:`pipeline.runtime.executor`) interprets every spec; nothing generated is executed.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from pipeline.schema import Column, Schema, Table

ToolKind = Literal["get", "list", "create", "update", "transition"]
MAX_PAGE_SIZE = 50
DEFAULT_PAGE_SIZE = 20
MAX_ID = 2**63 - 1

ERRORS: dict[ToolKind, tuple[str, ...]] = {
    "get": ("invalid_argument", "not_found"),
    "list": ("invalid_argument",),
    "create": ("invalid_argument", "not_found", "conflict", "constraint_violation"),
    "update": ("invalid_argument", "not_found", "conflict", "constraint_violation"),
    "transition": ("invalid_argument", "not_found", "forbidden_transition"),
}


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
    """Columns a create/update may write, or a list may filter on."""
    status_column: str | None = None
    to: str | None = None
    allowed_from: tuple[str, ...] = ()
    sets_time: str | None = None


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


def row_schema(table: Table) -> dict[str, Any]:
    props = {}
    for c in table.columns:
        s = value_schema(c)
        s.pop("minimum", None)
        s.pop("maximum", None)
        s.pop("minLength", None)
        s.pop("maxLength", None)
        props[c.name] = {"anyOf": [s, {"type": "null"}]} if c.nullable else s
    return {"type": "object", "properties": props, "required": [c.name for c in table.columns],
            "additionalProperties": False}


def _id_param(table: Table) -> dict[str, Any]:
    return {"type": "integer", "minimum": 1, "maximum": MAX_ID, "description": f"id of the {table.entity.replace('_', ' ')}"}


def _object(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def _writable(table: Table) -> list[Column]:
    """Columns an agent may set directly; statuses only move through operations."""
    return [c for c in table.columns if not c.primary_key and c.semantic != "status"]


def _filterable(table: Table) -> list[Column]:
    return [c for c in table.columns if c.semantic not in ("text",)]


def _nice(name: str) -> str:
    return name.replace("_", " ")


def _get_tool(table: Table) -> ToolSpec:
    return ToolSpec(
        name=f"get_{table.entity}", kind="get", table=table.name, mode="read",
        description=f"Fetch one {_nice(table.entity)} ({table.description.rstrip('.')}) by its numeric id. "
        f"Returns every field, or a not_found error if no {_nice(table.entity)} has that id.",
        parameters=_object({"id": _id_param(table)}, ["id"]),
        result=row_schema(table), errors=ERRORS["get"],
    )


def _list_tool(table: Table) -> ToolSpec:
    props: dict[str, Any] = {}
    filters = _filterable(table)
    for c in filters:
        base = value_schema(c)
        for k in ("minimum", "maximum"):
            base.pop(k, None)
        props[c.name] = {**base, "description": f"only {table.name} whose {_nice(c.name)} equals this"}
        if c.sql_type in ("INTEGER", "REAL") and not c.references and not c.primary_key:
            props[f"{c.name}_min"] = {"type": value_schema(c)["type"], "description": f"{_nice(c.name)} at least this"}
            props[f"{c.name}_max"] = {"type": value_schema(c)["type"], "description": f"{_nice(c.name)} at most this"}
        if c.semantic in ("timestamp", "date"):
            props[f"{c.name}_from"] = {**base, "description": f"{_nice(c.name)} on or after this"}
            props[f"{c.name}_to"] = {**base, "description": f"{_nice(c.name)} on or before this"}
        if c.sql_type == "TEXT" and not c.values and c.semantic not in ("timestamp", "date"):
            props[f"{c.name}_contains"] = {"type": "string", "minLength": 1, "maxLength": 200,
                                           "description": f"{_nice(c.name)} contains this text (case-insensitive)"}
    props["order_by"] = {"type": "string", "enum": [c.name for c in table.columns],
                         "description": "field to sort by (default id)"}
    props["descending"] = {"type": "boolean", "description": "sort from largest to smallest"}
    props["limit"] = {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE,
                      "description": f"page size, at most {MAX_PAGE_SIZE} (default {DEFAULT_PAGE_SIZE})"}
    props["offset"] = {"type": "integer", "minimum": 0, "description": "rows to skip, for the next page"}
    result = _object(
        {"items": {"type": "array", "items": row_schema(table)},
         "total": {"type": "integer", "description": "number of matching rows over all pages"},
         "next_offset": {"anyOf": [{"type": "integer"}, {"type": "null"}],
                         "description": "offset of the next page, or null on the last page"}},
        ["items", "total", "next_offset"],
    )
    return ToolSpec(
        name=f"list_{table.name}", kind="list", table=table.name, mode="read",
        description=f"Search {_nice(table.name)} ({table.description.rstrip('.')}). Every filter is optional and "
        f"filters combine with AND; results are paged (at most {MAX_PAGE_SIZE} per call) and 'total' counts all matches.",
        parameters=_object(props, []), result=result, errors=ERRORS["list"],
        columns=tuple(c.name for c in filters),
    )


def _create_tool(table: Table) -> ToolSpec:
    cols = _writable(table)
    props = {c.name: value_schema(c) for c in cols}
    required = [c.name for c in cols if not c.nullable]
    return ToolSpec(
        name=f"create_{table.entity}", kind="create", table=table.name, mode="write",
        description=f"Create a new {_nice(table.entity)}. Required: {', '.join(required) or 'nothing'}. "
        "Referenced ids must exist; unique fields must not clash. Returns the created record with its new id.",
        parameters=_object(props, required), result=row_schema(table), errors=ERRORS["create"],
        columns=tuple(c.name for c in cols),
    )


def _update_tool(table: Table) -> ToolSpec:
    cols = _writable(table)
    props: dict[str, Any] = {"id": _id_param(table)}
    props.update({c.name: value_schema(c) for c in cols})
    return ToolSpec(
        name=f"update_{table.entity}", kind="update", table=table.name, mode="write",
        description=f"Change fields of an existing {_nice(table.entity)} given its id; fields left out keep their "
        "value. Status changes go through the dedicated operations. Returns the updated record.",
        parameters={**_object(props, ["id"]), "minProperties": 2}, result=row_schema(table), errors=ERRORS["update"],
        columns=tuple(c.name for c in cols),
    )


def _operation_tools(schema: Schema) -> list[ToolSpec]:
    out = []
    for op in schema.operations:
        table = schema.table(op.table)
        allowed = " or ".join(f"'{v}'" for v in op.allowed_from) or "no status"
        out.append(ToolSpec(
            name=op.name, kind="transition", table=table.name, mode="write",
            description=f"{op.description.rstrip('.')}. Sets the {_nice(table.entity)}'s {_nice(op.column)} to "
            f"'{op.to}'; allowed only when it is {allowed}. Returns the updated record.",
            parameters=_object({"id": _id_param(table)}, ["id"]), result=row_schema(table),
            errors=ERRORS["transition"], status_column=op.column, to=op.to,
            allowed_from=op.allowed_from, sets_time=op.sets_time,
        ))
    return out


def build_toolset(schema: Schema) -> Toolset:
    """Per table: get, list, create, update; plus one tool per business operation."""
    tools: list[ToolSpec] = []
    for table in schema.tables:
        tools += [_get_tool(table), _list_tool(table), _create_tool(table), _update_tool(table)]
    tools += _operation_tools(schema)
    names = [t.name for t in tools]
    clashes = sorted({n for n in names if names.count(n) > 1})
    if clashes:
        raise ValueError(f"schema {schema.name!r}: tool names clash: {clashes}")
    return Toolset(domain=schema.domain, tools=tuple(tools))


def _component_name(table: str) -> str:
    return "".join(part.capitalize() for part in table.split("_"))


def openapi_document(toolset: Toolset, title: str, version: str) -> dict[str, Any]:
    """OpenAPI 3.1: one POST route per tool, arguments as the JSON body.

    Row schemas are shared components referenced by every tool of the table, which keeps
    the document small and its validation fast.
    """
    error = {"type": "object", "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
             "required": ["code", "message"]}
    rows = {t.table: t.result for t in toolset.tools if t.kind == "get"}
    components: dict[str, Any] = {"Error": error}
    components.update({_component_name(table): schema for table, schema in rows.items()})

    def ref(name: str) -> dict[str, str]:
        return {"$ref": f"#/components/schemas/{name}"}

    paths = {}
    for t in toolset.tools:
        result = t.result
        if t.table in rows and result == rows[t.table]:
            result = ref(_component_name(t.table))
        elif t.kind == "list":
            result = {**result, "properties": {**result["properties"],
                                               "items": {"type": "array", "items": ref(_component_name(t.table))}}}
        err = {"content": {"application/json": {"schema": ref("Error")}}}
        paths[f"/tools/{t.name}"] = {
            "post": {
                "operationId": t.name,
                "summary": t.description.split(". ")[0][:120],
                "description": t.description,
                "tags": [t.table],
                "requestBody": {"required": True, "content": {"application/json": {"schema": t.parameters}}},
                "responses": {
                    "200": {"description": "success", "content": {"application/json": {"schema": result}}},
                    "400": {"description": "invalid_argument", **err},
                    "404": {"description": "not_found", **err},
                    "409": {"description": "conflict, constraint_violation or forbidden_transition", **err},
                },
                "x-synthenv-mode": t.mode,
            }
        }
    return {"openapi": "3.1.0", "info": {"title": title, "version": version}, "paths": paths,
            "components": {"schemas": components}}


def validate_openapi(document: dict[str, Any]) -> None:
    from openapi_spec_validator import validate

    validate(document)
