"""Step 3: schema -> declarative tool specs (and the OpenAPI view of them).

A tool is data: a kind, the table it works on, the JSON Schemas of its arguments and
result, whether it writes, the typed errors it can return and, for business
operations, the declared side effects. One fixed executor
(:mod:`pipeline.runtime.executor`) interprets every spec; nothing generated is executed.

Per table: ``get_<entity>``, ``list_<table>`` (typed filters, sorting, paging),
``create_<entity>``, ``update_<entity>`` (status only along the blueprint's
transitions) and ``delete_<entity>`` for detail records nothing depends on. Per
blueprint operation: one guarded transition tool, run as one transaction with its
effects (timestamp, cascading cancellations, restocking). One ``aggregate`` tool
(count/sum/avg/min/max, optionally grouped) covers every table, typed per table, which
keeps the tool list short.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from pipeline.schema import Column, Schema, Table

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
ERROR_STATUS = {"invalid_argument": 400, "not_found": 404, "conflict": 409, "constraint_violation": 409,
                "forbidden_transition": 409}
"""HTTP status of each typed error (the server and the OpenAPI view share it)."""

RELEASE_VALUES = frozenset({"cancelled", "canceled", "void", "voided", "returned", "refunded", "withdrawn", "revoked"})
"""Statuses that end a record's claim on what hangs off it: children are cancelled with it, stock returns."""
STOCK_NAMES = frozenset({"stock", "in_stock", "on_hand", "units_on_hand", "quantity_on_hand", "quantity_available",
                         "available_quantity"})


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


def _bare(column: Column) -> dict[str, Any]:
    """A column's value schema without the bounds (filters and results may lie outside them)."""
    s = value_schema(column)
    for k in ("minimum", "maximum", "minLength", "maxLength"):
        s.pop(k, None)
    return s


def row_schema(table: Table) -> dict[str, Any]:
    props = {}
    for c in table.columns:
        s = _bare(c)
        props[c.name] = {"anyOf": [s, {"type": "null"}]} if c.nullable else s
    return {"type": "object", "properties": props, "required": [c.name for c in table.columns],
            "additionalProperties": False}


def _id_param(table: Table) -> dict[str, Any]:
    return {"type": "integer", "minimum": 1, "maximum": MAX_ID, "description": f"id of the {_nice(table.entity)}"}


def _object(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def _writable(table: Table) -> list[Column]:
    """Columns an agent may set directly; statuses only move through operations or transitions."""
    return [c for c in table.columns if not c.primary_key and c.semantic != "status"]


def _filterable(table: Table) -> list[Column]:
    return [c for c in table.columns if c.semantic not in ("text",)]


def measure_columns(table: Table) -> list[Column]:
    """Numeric fields an aggregate may sum, average or bound (not keys)."""
    return [c for c in table.columns if c.sql_type in ("INTEGER", "REAL") and not c.primary_key and not c.references]


def group_columns(table: Table) -> list[Column]:
    """Fields an aggregate may group by: categories, flags and references."""
    return [c for c in table.columns if c.values or c.sql_type == "BOOLEAN" or c.references]


def _movable_status(table: Table) -> Column | None:
    """The status column an update may move (along the blueprint's transitions), if any."""
    return next((c for c in table.columns if c.semantic == "status" and c.values and c.transitions), None)


def _nice(name: str) -> str:
    return name.replace("_", " ")


def _what(table: Table) -> str:
    return table.description.rstrip(".")


def _get_tool(table: Table) -> ToolSpec:
    return ToolSpec(
        name=f"get_{table.entity}", kind="get", table=table.name, mode="read",
        description=f"Fetch one {_nice(table.entity)} ({_what(table)}) by its numeric id. "
        f"Returns every field, or a not_found error if no {_nice(table.entity)} has that id.",
        parameters=_object({"id": _id_param(table)}, ["id"]),
        result=row_schema(table), errors=ERRORS["get"],
    )


def _filter_props(table: Table) -> dict[str, Any]:
    """Typed filters shared by list and aggregate: equality, ranges, text contains, enum membership."""
    props: dict[str, Any] = {}
    for c in _filterable(table):
        base = _bare(c)
        props[c.name] = {**base, "description": f"only {table.name} whose {_nice(c.name)} equals this"}
        if c.values:
            props[f"{c.name}_in"] = {"type": "array", "items": {"type": "string", "enum": list(c.values)},
                                     "minItems": 1, "maxItems": len(c.values), "uniqueItems": True,
                                     "description": f"{_nice(c.name)} is one of these"}
        if c.sql_type in ("INTEGER", "REAL") and not c.references and not c.primary_key:
            props[f"{c.name}_min"] = {"type": base["type"], "description": f"{_nice(c.name)} at least this"}
            props[f"{c.name}_max"] = {"type": base["type"], "description": f"{_nice(c.name)} at most this"}
        if c.semantic in ("timestamp", "date"):
            props[f"{c.name}_from"] = {**base, "description": f"{_nice(c.name)} on or after this"}
            props[f"{c.name}_to"] = {**base, "description": f"{_nice(c.name)} on or before this"}
        if c.sql_type == "TEXT" and not c.values and c.semantic not in ("timestamp", "date"):
            props[f"{c.name}_contains"] = {"type": "string", "minLength": 1, "maxLength": 200,
                                           "description": f"{_nice(c.name)} contains this text (case-insensitive)"}
    return props


def _list_tool(table: Table) -> ToolSpec:
    props = _filter_props(table)
    props["order_by"] = {"type": "string", "enum": [c.name for c in table.columns],
                         "description": "field to sort by (default id)"}
    props["descending"] = {"type": "boolean", "description": "sort from largest to smallest"}
    props["limit"] = {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE,
                      "description": f"page size, at most {MAX_PAGE_SIZE} (default {DEFAULT_PAGE_SIZE})"}
    props["offset"] = {"type": "integer", "minimum": 0, "maximum": MAX_ID,
                       "description": "rows to skip: pass the previous page's next_offset"}
    result = _object(
        {"items": {"type": "array", "items": row_schema(table)},
         "total": {"type": "integer", "description": "number of matching rows over all pages"},
         "next_offset": {"anyOf": [{"type": "integer"}, {"type": "null"}],
                         "description": "offset of the next page, or null on the last page"}},
        ["items", "total", "next_offset"],
    )
    return ToolSpec(
        name=f"list_{table.name}", kind="list", table=table.name, mode="read",
        description=f"Search {_nice(table.name)} ({_what(table)}). Every filter is optional and filters combine with "
        f"AND; results are sorted (order_by, descending) and paged: at most {MAX_PAGE_SIZE} per call, "
        "next_offset fetches the next page and 'total' counts all matches.",
        parameters=_object(props, []), result=result, errors=ERRORS["list"],
        columns=tuple(c.name for c in _filterable(table)),
    )


def _aggregate_tool(schema: Schema) -> ToolSpec:
    """One tool for every table: typed per table through if/then, so the tool list stays short."""
    branches = []
    for table in schema.tables:
        measures, groups = measure_columns(table), group_columns(table)
        then: dict[str, Any] = {
            "column": {"type": "string", "enum": [c.name for c in measures]} if measures else False,
            "group_by": {"type": "string", "enum": [c.name for c in groups]} if groups else False,
            "where": _object(_filter_props(table), []),
        }
        branches.append({"if": {"properties": {"table": {"const": table.name}}, "required": ["table"]},
                         "then": {"properties": then}})
    props: dict[str, Any] = {
        "table": {"type": "string", "enum": [t.name for t in schema.tables], "description": "table to aggregate"},
        "metric": {"type": "string", "enum": list(METRICS), "description": "count rows, or sum/avg/min/max of 'column'"},
        "column": {"type": "string", "description": "numeric field of the table the metric applies to "
                   "(needed unless metric is count)"},
        "group_by": {"type": "string", "description": "one result per distinct value of this field "
                     "(a status, category, flag or reference of the table)"},
        "where": {"type": "object", "description": "filters, exactly as the arguments of list_<table> "
                  "(equality, _in, _min/_max, _from/_to, _contains)"},
        "descending": {"type": "boolean", "description": "order groups by value, largest first (default: by key)"},
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE,
                  "description": f"at most this many groups, at most {MAX_PAGE_SIZE} (default {DEFAULT_PAGE_SIZE})"},
    }
    group = _object({"key": {"type": ["string", "integer", "number", "boolean", "null"],
                             "description": "value of group_by (null when not grouped)"},
                     "count": {"type": "integer", "description": "matching rows in the group"},
                     "value": {"type": ["number", "null"], "description": "the metric (null over no values)"}},
                    ["key", "count", "value"])
    result = _object({"table": {"type": "string"},
                      "metric": {"type": "string"},
                      "column": {"type": ["string", "null"]},
                      "group_by": {"type": ["string", "null"]},
                      "groups": {"type": "array", "items": group},
                      "total_groups": {"type": "integer", "description": "groups before the limit"}},
                     ["table", "metric", "column", "group_by", "groups", "total_groups"])
    return ToolSpec(
        name="aggregate", kind="aggregate", table="", mode="read",
        description="Compute a statistic over any table: count rows, or sum/avg/min/max of one numeric field, "
        "optionally grouped by a status, category, flag or reference, over the rows matching 'where' "
        "(the same filters as the table's list tool). Returns one entry per group.",
        parameters={**_object(props, ["table", "metric"]), "allOf": branches}, result=result,
        errors=ERRORS["aggregate"],
    )


def _create_tool(table: Table) -> ToolSpec:
    cols = _writable(table)
    props = {c.name: value_schema(c) for c in cols}
    required = [c.name for c in cols if not c.nullable]
    status = next((c for c in table.columns if c.semantic == "status" and c.values), None)
    starts = f" A new {_nice(table.entity)} starts with {status.name} '{status.values[0]}'." if status and status.values else ""
    return ToolSpec(
        name=f"create_{table.entity}", kind="create", table=table.name, mode="write",
        description=f"Create a new {_nice(table.entity)}. Required: {', '.join(required) or 'nothing'}. "
        f"Referenced ids must exist; unique fields must not clash.{starts} Returns the created record with its new id.",
        parameters=_object(props, required), result=row_schema(table), errors=ERRORS["create"],
        columns=tuple(c.name for c in cols),
    )


def _moves(transitions: dict[str, tuple[str, ...]]) -> str:
    return "; ".join(f"{src} -> {', '.join(dsts)}" for src, dsts in transitions.items())


def _update_tool(table: Table, schema: Schema) -> ToolSpec:
    cols = _writable(table)
    props: dict[str, Any] = {"id": _id_param(table)}
    props.update({c.name: value_schema(c) for c in cols})
    status = _movable_status(table)
    errors = ERRORS["update"]
    note = " Status changes go through the dedicated operations."
    transitions, reserved = None, {}
    if status is not None:
        props[status.name] = value_schema(status)
        transitions = {k: tuple(v) for k, v in (status.transitions or {}).items()}
        reserved = {op.to: op.name for op in schema.operations if op.table == table.name and op.column == status.name}
        errors = (*errors, "forbidden_transition")
        own = "; ".join(f"'{to}' only through {name}" for to, name in reserved.items())
        note = (f" Its {status.name} may only move along: {_moves(transitions)}" + (f" ({own})" if own else "") + ".")
    return ToolSpec(
        name=f"update_{table.entity}", kind="update", table=table.name, mode="write",
        description=f"Change fields of an existing {_nice(table.entity)} given its id; fields left out keep their "
        f"value.{note} Returns the updated record.",
        parameters={**_object(props, ["id"]), "minProperties": 2}, result=row_schema(table), errors=errors,
        columns=tuple(c.name for c in cols), status_column=status.name if status else None,
        transitions=transitions, reserved=reserved,
    )


def _delete_tool(table: Table) -> ToolSpec:
    return ToolSpec(
        name=f"delete_{table.entity}", kind="delete", table=table.name, mode="write",
        description=f"Delete one {_nice(table.entity)} by its id, permanently. Returns the record as it was.",
        parameters=_object({"id": _id_param(table)}, ["id"]), result=row_schema(table), errors=ERRORS["delete"],
    )


def _deletable(schema: Schema) -> list[Table]:
    """Detail records (they hang off a parent) nothing depends on, with no lifecycle of their own (those
    are cancelled, not deleted) and not part of a fixed list (a lookup or profile table keeps its rows)."""
    referenced = {c.references for t in schema.tables for c in t.foreign_keys}
    return [t for t in schema.tables
            if t.foreign_keys and t.name not in referenced and getattr(t, "scales", True)
            and not any(c.semantic == "status" for c in t.columns)]


def _effects(schema: Schema, table: Table, to: str) -> list[Effect]:
    """Side effects implied by the schema when a record is released (cancelled, returned, voided...)."""
    if to not in RELEASE_VALUES:
        return []
    out: list[Effect] = []
    for child in schema.tables:
        refs = [c for c in child.foreign_keys if c.references == table.name and child.name != table.name]
        if len(refs) != 1:
            continue
        ref = refs[0]
        status = next((c for c in child.columns if c.semantic == "status" and c.values and to in c.values), None)
        if status is not None:
            sources = tuple(src for src, dsts in (status.transitions or {}).items() if to in dsts)
            if sources:
                out.append(Effect(kind="cascade_status", table=child.name, column=status.name, ref=ref.name,
                                  to=to, allowed_from=sources))
        qty = next((c for c in child.columns if c.semantic == "quantity" and not c.references), None)
        if qty is None:
            continue
        for item in child.foreign_keys:
            target = schema.table(str(item.references))
            stock = next((c for c in target.columns
                          if (c.field or c.name) in STOCK_NAMES and c.sql_type in ("INTEGER", "REAL")), None)
            if item is not ref and stock is not None:
                out.append(Effect(kind="restock", table=target.name, column=stock.name, ref=ref.name,
                                  lines=child.name, item=item.name, quantity=qty.name))
    return out


def _effect_text(schema: Schema, e: Effect) -> str:
    if e.kind == "cascade_status":
        froms = " or ".join(f"'{v}'" for v in e.allowed_from)
        return f"its {_nice(e.table)} that are {froms} become '{e.to}'"
    return (f"each of its {_nice(str(e.lines))} puts its {_nice(str(e.quantity))} back into the "
            f"{_nice(schema.table(e.table).entity)}'s {_nice(e.column)}")


def _operation_tools(schema: Schema) -> list[ToolSpec]:
    out = []
    for op in schema.operations:
        table = schema.table(op.table)
        allowed = " or ".join(f"'{v}'" for v in op.allowed_from) or "no status"
        effects = _effects(schema, table, op.to)
        also = f" In the same transaction, {'; '.join(_effect_text(schema, e) for e in effects)}." if effects else ""
        errors = ERRORS["transition"] + (("constraint_violation",) if any(e.kind == "restock" for e in effects) else ())
        out.append(ToolSpec(
            name=op.name, kind="transition", table=table.name, mode="write",
            description=f"{op.description.rstrip('.')}. Sets the {_nice(table.entity)}'s {_nice(op.column)} to "
            f"'{op.to}'; allowed only when it is {allowed}.{also} Returns the updated record.",
            parameters=_object({"id": _id_param(table)}, ["id"]), result=row_schema(table),
            errors=errors, status_column=op.column, to=op.to,
            allowed_from=op.allowed_from, sets_time=op.sets_time, effects=tuple(effects),
        ))
    return out


def build_toolset(schema: Schema) -> Toolset:
    """Per table: get, list, create, update (+ delete where it applies); one tool per operation; one aggregate."""
    tools: list[ToolSpec] = []
    deletable = {t.name for t in _deletable(schema)}
    for table in schema.tables:
        tools += [_get_tool(table), _list_tool(table), _create_tool(table), _update_tool(table, schema)]
        if table.name in deletable:
            tools.append(_delete_tool(table))
    tools += _operation_tools(schema)
    tools.append(_aggregate_tool(schema))
    names = [t.name for t in tools]
    clashes = sorted({n for n in names if names.count(n) > 1})
    if clashes:
        raise ValueError(f"schema {schema.name!r}: tool names clash: {clashes}")
    return Toolset(domain=schema.domain, tools=tuple(tools))


# -- OpenAPI view ---------------------------------------------------------------------------

SESSION_HEADER = "X-Session-Id"


def _component_name(table: str) -> str:
    return "".join(part.capitalize() for part in table.split("_"))


def error_schema() -> dict[str, Any]:
    return {"type": "object", "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
            "required": ["code", "message"]}


def openapi_document(toolset: Toolset, title: str, version: str) -> dict[str, Any]:
    """OpenAPI 3.1: one POST route per tool, arguments as the JSON body, the session in a header.

    Row schemas are shared components referenced by every tool of the table, which keeps
    the document small and its validation fast.
    """
    rows = {t.table: t.result for t in toolset.tools if t.kind == "get"}
    components: dict[str, Any] = {"Error": error_schema()}
    components.update({_component_name(table): schema for table, schema in rows.items()})

    def ref(name: str) -> dict[str, str]:
        return {"$ref": f"#/components/schemas/{name}"}

    err = {"content": {"application/json": {"schema": ref("Error")}}}
    session = {"name": SESSION_HEADER, "in": "header", "required": True,
               "description": "session the call runs in (from POST /sessions)",
               "schema": {"type": "string", "minLength": 1, "maxLength": 128}}
    paths = {}
    for t in toolset.tools:
        result = t.result
        if t.table in rows and result == rows[t.table]:
            result = ref(_component_name(t.table))
        elif t.kind == "list":
            result = {**result, "properties": {**result["properties"],
                                               "items": {"type": "array", "items": ref(_component_name(t.table))}}}
        conflicts = [c for c in t.errors if ERROR_STATUS.get(c) == 409]
        paths[f"/tools/{t.name}"] = {
            "post": {
                "operationId": t.name,
                "summary": t.description.split(". ")[0][:120],
                "description": t.description,
                "tags": [t.table],
                "parameters": [session],
                "requestBody": {"required": True, "content": {"application/json": {"schema": t.parameters}}},
                "responses": {
                    "200": {"description": "success", "content": {"application/json": {"schema": result}}},
                    "400": {"description": "invalid_argument: wrong, missing or unknown arguments", **err},
                    "404": {"description": "not_found: no such record, tool or session", **err},
                    "409": {"description": ", ".join(conflicts + ["conflict (the episode has ended)"]), **err},
                    "413": {"description": "payload too large", **err},
                },
                "x-synthenv-mode": t.mode,
                "x-synthenv-errors": list(t.errors),
            }
        }
    return {"openapi": "3.1.0", "info": {"title": title, "version": version}, "paths": paths,
            "components": {"schemas": components}}


def validate_openapi(document: dict[str, Any]) -> None:
    from openapi_spec_validator import validate

    validate(document)


def validate_argument_schemas(toolset: Toolset) -> None:
    """Every argument schema must itself be a valid JSON Schema (2020-12).

    Result schemas are checked as part of the OpenAPI document; checking them here too
    would double the cost of the slowest part of the step for no extra assurance.
    """
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    for t in toolset.tools:
        try:
            Draft202012Validator.check_schema(t.parameters)
        except SchemaError as exc:
            raise ValueError(f"tool {t.name}: invalid arguments schema: {exc.message}") from None
