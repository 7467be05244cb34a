"""Step 3: schema -> the tools of one environment, as declarative specs.

A tool is data (:data:`ToolSpec`, one model per kind: the table it works on, the JSON Schemas of its
arguments and result, whether it writes, the typed errors it can return and, for
business operations, the declared side effects). One fixed executor
(:mod:`pipeline.tools.executor`) interprets every spec; nothing generated is executed.

The surface is what a real API of the domain would expose, 30 to 60 tools whatever the
size of the schema:

* main records: ``get_<entity>``, ``list_<table>`` (typed filters, sorting, paging),
  ``create_<entity>``, ``update_<entity>`` (status only along the blueprint's
  transitions) and ``delete_<entity>`` for detail records nothing depends on;
* lookup lists (a fixed set of rows) and status histories (written only by the
  operations): ``list_<table>`` alone; link records (two references and little else):
  list, create and delete, never a generic update;
* one guarded transition tool per blueprint operation (:mod:`pipeline.tools.operations`);
* up to three statistics tools over the main amount-carrying records
  (:mod:`pipeline.tools.stats`), never one SQL-like tool over any table.

A large schema then drops, in this order, until at most 60 remain: single-record reads of
detail records (their list filters by id), deletes, generic updates of detail records,
creates of leaf detail records, any remaining update without a status, history lists.
"""

from __future__ import annotations

from typing import Any

from pipeline.tools.model import (
    DEFAULT_PAGE_SIZE,
    ERROR_STATUS,
    ERRORS,
    MAX_ID,
    MAX_PAGE_SIZE,
    METRICS,
    AggregateTool,
    CascadeStatus,
    CreateTool,
    DeleteTool,
    Effect,
    GetTool,
    ListTool,
    Restock,
    StatusTool,
    ToolKind,
    Toolset,
    ToolSpec,
    TransitionTool,
    UpdateTool,
    filter_props,
    filterable,
    group_columns,
    id_param,
    measure_columns,
    movable_status,
    object_schema,
    options,
    row_schema,
    rules_text,
    tool_name,
    value_schema,
    what,
    writable,
)
from pipeline.tools.operations import RELEASE_VALUES, STOCK_NAMES, operation_tools
from pipeline.tools.stats import report_tables, statistics_tool
from pipeline.world.naming import with_article
from pipeline.world.schema import Schema, Table

__all__ = [
    "DEFAULT_PAGE_SIZE",
    "ERRORS",
    "ERROR_STATUS",
    "MAX_ID",
    "MAX_PAGE_SIZE",
    "MAX_TOOLS",
    "METRICS",
    "MIN_TOOLS",
    "RELEASE_VALUES",
    "STOCK_NAMES",
    "AggregateTool",
    "CascadeStatus",
    "CreateTool",
    "DeleteTool",
    "Effect",
    "GetTool",
    "ListTool",
    "Restock",
    "StatusTool",
    "ToolKind",
    "ToolSpec",
    "Toolset",
    "TransitionTool",
    "UpdateTool",
    "build_toolset",
    "group_columns",
    "measure_columns",
    "row_schema",
    "table_role",
    "value_schema",
]

MIN_TOOLS, MAX_TOOLS = 30, 60
"""The size of every environment's tool surface."""


def _get_tool(table: Table) -> GetTool:
    return GetTool(
        name=tool_name("get", table.noun),
        kind="get",
        table=table.name,
        description=f"Fetch one {table.noun} ({what(table)}) by its numeric id. "
        f"Returns every field, or a not_found error if no {table.noun} has that id.",
        parameters=object_schema({"id": id_param(table)}, ["id"]),
        result=row_schema(table),
        errors=ERRORS["get"],
    )


def _list_tool(table: Table) -> ListTool:
    props = filter_props(table)
    props["order_by"] = {
        "type": "string",
        "enum": [c.name for c in table.columns],
        "description": "field to sort by (default id)",
    }
    props["descending"] = {"type": "boolean", "description": "sort from largest to smallest"}
    props["limit"] = {
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_PAGE_SIZE,
        "description": f"page size, at most {MAX_PAGE_SIZE} (default {DEFAULT_PAGE_SIZE})",
    }
    props["offset"] = {
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_ID,
        "description": "rows to skip: pass the previous page's next_offset",
    }
    result = object_schema(
        {
            "items": {"type": "array", "items": row_schema(table)},
            "total": {"type": "integer", "description": "number of matching rows over all pages"},
            "next_offset": {
                "anyOf": [{"type": "integer"}, {"type": "null"}],
                "description": "offset of the next page, or null on the last page",
            },
        },
        ["items", "total", "next_offset"],
    )
    return ListTool(
        name=tool_name("list", table.plural),
        kind="list",
        table=table.name,
        description=f"Search {table.plural} ({what(table)}). Every filter is optional and filters combine with "
        f"AND; results are sorted (order_by, descending) and paged: at most {MAX_PAGE_SIZE} per call, "
        "next_offset fetches the next page and 'total' counts all matches.",
        parameters=object_schema(props, []),
        result=result,
        errors=ERRORS["list"],
        columns=tuple(c.name for c in filterable(table)),
    )


def _create_tool(table: Table) -> CreateTool:
    cols = writable(table)
    props = {c.name: value_schema(c) for c in cols}
    required = [c.name for c in cols if not c.nullable]
    status = next((c for c in table.columns if c.semantic == "status" and c.values), None)
    starts = f" A new {table.noun} starts with {status.label} '{status.values[0]}'." if status and status.values else ""
    return CreateTool(
        name=tool_name("create", table.noun),
        kind="create",
        table=table.name,
        description=f"Create a new {table.noun}. Required: {', '.join(required) or 'nothing'}. "
        f"Referenced ids must exist; unique fields must not clash.{starts}{rules_text(table)} "
        "Returns the created record with its new id.",
        parameters=object_schema(props, required),
        result=row_schema(table),
        errors=ERRORS["create"],
        columns=tuple(c.name for c in cols),
    )


def _moves(transitions: dict[str, tuple[str, ...]]) -> str:
    return "; ".join(f"{src} -> {', '.join(dsts)}" for src, dsts in transitions.items())


def _update_tool(table: Table, schema: Schema) -> UpdateTool:
    cols = writable(table)
    props: dict[str, Any] = {"id": id_param(table)}
    props.update({c.name: value_schema(c) for c in cols})
    status = movable_status(table)
    errors = ERRORS["update"]
    note = " Status changes go through the dedicated operations."
    transitions, reserved = None, {}
    if status is not None:
        props[status.name] = value_schema(status)
        transitions = {k: tuple(v) for k, v in (status.transitions or {}).items()}
        reserved = {op.to: op.name for op in schema.operations if op.table == table.name and op.column == status.name}
        errors = (*errors, "forbidden_transition")
        own = "; ".join(f"'{to}' only through {name}" for to, name in reserved.items())
        note = f" Its {status.label} may only move along: {_moves(transitions)}" + (f" ({own})" if own else "") + "."
        finals = [v for v in status.values or () if not transitions.get(v)]
        if finals:
            a_noun = with_article(table.noun)
            note += f" {a_noun[:1].upper()}{a_noun[1:]} that is {options(finals)} is final and cannot be changed."
    return UpdateTool(
        name=tool_name("update", table.noun),
        kind="update",
        table=table.name,
        description=f"Change fields of an existing {table.noun} given its id; fields left out keep their "
        f"value.{note}{rules_text(table)} Returns the updated record.",
        parameters={**object_schema(props, ["id"]), "minProperties": 2},
        result=row_schema(table),
        errors=errors,
        columns=tuple(c.name for c in cols),
        status_column=status.name if status else None,
        transitions=transitions,
        reserved=reserved,
    )


def _delete_tool(table: Table) -> DeleteTool:
    return DeleteTool(
        name=tool_name("delete", table.noun),
        kind="delete",
        table=table.name,
        description=f"Delete one {table.noun} by its id, permanently. Returns the record as it was.",
        parameters=object_schema({"id": id_param(table)}, ["id"]),
        result=row_schema(table),
        errors=ERRORS["delete"],
    )


def _deletable(schema: Schema) -> list[Table]:
    """Detail records (they hang off a parent) nothing depends on, with no lifecycle of their own (those
    are cancelled, not deleted) and not part of a fixed list (a lookup or profile table keeps its rows)."""
    referenced = {c.references for t in schema.tables for c in t.foreign_keys}
    return [
        t
        for t in schema.tables
        if t.foreign_keys
        and t.name not in referenced
        and getattr(t, "scales", True)
        and not any(c.semantic == "status" for c in t.columns)
    ]


def table_role(table: Table) -> str:
    """``history`` (status changes, written by operations), ``lookup`` (a fixed list), ``link``
    (two references and at most one plain field) or ``record``."""
    if table.history is not None:
        return "history"
    if not table.scales:
        return "lookup"
    plain = [c for c in table.columns if not c.primary_key and not c.references and c.semantic != "timestamp"]
    if len(table.foreign_keys) >= 2 and len(plain) <= 1:
        return "link"
    return "record"


def _leaves(schema: Schema) -> set[str]:
    referenced = {c.references for t in schema.tables for c in t.foreign_keys}
    return {t.name for t in schema.tables if t.name not in referenced}


def _candidates(schema: Schema) -> list[ToolSpec]:
    """Every tool the roles allow, before the size budget."""
    tools: list[ToolSpec] = []
    deletable = {t.name for t in _deletable(schema)}
    for table in schema.tables:
        role = table_role(table)
        if role in ("history", "lookup"):
            tools.append(_list_tool(table))
            continue
        if role == "record":
            tools.append(_get_tool(table))
        tools += [_list_tool(table), _create_tool(table)]
        if role == "record":
            tools.append(_update_tool(table, schema))
        if table.name in deletable:
            tools.append(_delete_tool(table))
    tools += operation_tools(schema)
    tools += [statistics_tool(t) for t in report_tables(schema)]
    return tools


def _trim(schema: Schema, tools: list[ToolSpec]) -> list[ToolSpec]:
    """Drop the tools a large API would fold away, least needed first, until MAX_TOOLS remain."""
    leaves = _leaves(schema)
    details = {t.name for t in schema.tables if t.foreign_keys}
    roles = {t.name: table_role(t) for t in schema.tables}

    def plain_update(s: ToolSpec) -> bool:
        return isinstance(s, UpdateTool) and s.status_column is None

    stages = (
        lambda s: s.kind == "get" and s.table in leaves,
        lambda s: s.kind == "delete",
        lambda s: plain_update(s) and s.table in leaves,
        lambda s: s.kind == "get" and s.table in details,
        lambda s: plain_update(s) and s.table in details,
        lambda s: s.kind == "create" and s.table in leaves and s.table in details,
        lambda s: plain_update(s),
        lambda s: s.kind == "list" and roles[s.table] == "history",
        lambda s: s.kind == "aggregate",
    )
    for drop in stages:
        if len(tools) <= MAX_TOOLS:
            break
        doomed = [s for s in tools if drop(s)]
        # Within a stage, the largest tables' tools go last (they matter most), so drop from the small end.
        rows = {t.name: t.rows for t in schema.tables}
        doomed.sort(key=lambda s: (rows.get(s.table, 0), s.name))
        for spec in doomed[: len(tools) - MAX_TOOLS]:
            tools.remove(spec)
    return tools


def build_toolset(schema: Schema) -> Toolset:
    """The environment's tool surface (see the module docstring); names never clash."""
    tools = _trim(schema, _candidates(schema))
    names = [t.name for t in tools]
    clashes = sorted({n for n in names if names.count(n) > 1})
    if clashes:
        raise ValueError(f"schema {schema.name!r}: tool names clash: {clashes}")
    return Toolset(domain=schema.domain, tools=tuple(tools))
