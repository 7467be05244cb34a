"""Record verbs: the tool list a model reads, as six verbs over the bundle's tables plus its operations.

A bundle serves one tool per table and verb (``get_project``, ``list_projects``,
``create_project``, ``update_project``, ``project_statistics``...): 37 to 60 tools, and even in
their compact form (:mod:`pipeline.surface.tools`) 17 to 38 KB of tool list before the task
starts. A model needs each table's fields once, not once per verb, so this rendering shows:

* six record verbs, ``get_record``, ``list_records``, ``create_record``, ``update_record``,
  ``delete_record`` and ``record_statistics``, each taking ``table`` (only the verbs some
  table has are listed);
* one table catalog, in ``list_records``' description: per table its meaning, its fields with
  type, bounds and allowed values, which verbs it takes, how a new record starts, the status
  moves an update may make and the operation reserved for a status, and its business rules;
* the business operations (``award_project``...) as they are, since each carries its own rule.

:class:`Routes` translates a verb call back into the bundle tool it stands for
(:meth:`Routes.to_action`) and a bundle call into the verb a model would write
(:meth:`Routes.to_call`), so the verifier, the trajectory log and every exploit see exactly the
bundle's own tools, and a reference solution can be replayed through this surface.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.surface.tools import (
    FIELDS,
    LIST_CONTROLS,
    WHERE,
    _bounds_words,
    _type_word,
    compact_tool,
)
from pipeline.tools.model import ToolSpec, UpdateTool, filterable, value_schema
from pipeline.world.schema import Column, Schema, Table

TABLE = "table"
VERBS: dict[str, str] = {
    "get": "get_record",
    "list": "list_records",
    "create": "create_record",
    "update": "update_record",
    "delete": "delete_record",
    "aggregate": "record_statistics",
}
"""Tool kind -> the record verb that stands for it."""
VERB_NAMES = frozenset(VERBS.values())
KINDS: dict[str, str] = {verb: kind for kind, verb in VERBS.items()}
"""Record verb -> the tool kind it stands for."""
_SHORT = {
    "get": "get",
    "list": "list",
    "create": "create",
    "update": "update",
    "delete": "delete",
    "aggregate": "stats",
}


@dataclass(frozen=True)
class Routes:
    """Which bundle tool each (verb, table) pair stands for, both ways."""

    tools: dict[tuple[str, str], str]
    """(verb, table) -> bundle tool name."""
    verbs: dict[str, tuple[str, str]]
    """bundle tool name -> (verb, table)."""

    def tables(self, verb: str) -> list[str]:
        return sorted(t for v, t in self.tools if v == verb)

    def to_action(self, verb: str, arguments: Any) -> tuple[str, Any]:
        """A verb call as the bundle tool call it stands for. A call that names no table the verb takes
        stays a call of the verb itself, which no bundle has: the executor refuses it and
        :meth:`explain` says why in the surface's words."""
        if not isinstance(arguments, dict):
            return verb, arguments
        table = arguments.get(TABLE)
        tool = self.tools.get((verb, table)) if isinstance(table, str) else None
        if tool is None:
            return verb, arguments
        kind = KINDS[verb]
        if kind == "aggregate":  # the report tool takes its table as a fixed argument itself
            return tool, arguments
        rest = {k: v for k, v in arguments.items() if k != TABLE}
        fold = WHERE if kind == "list" else FIELDS if kind in ("create", "update") else None
        if fold is None or fold not in rest:
            return tool, rest
        inner, outer = rest[fold], {k: v for k, v in rest.items() if k != fold}
        if inner is None:
            return tool, outer
        if not isinstance(inner, dict) or set(inner) & set(outer):
            return tool, rest  # not a well-formed fold: the executor names the parameter at fault
        return tool, {**inner, **outer}

    def to_call(self, tool: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """A bundle tool call as a model writes it on this surface (a reference solution, replayed)."""
        if tool not in self.verbs:
            return tool, dict(arguments)
        verb, table = self.verbs[tool]
        kind = KINDS[verb]
        if kind == "aggregate":
            return verb, dict(arguments)
        if kind == "list":
            inner = {k: v for k, v in arguments.items() if k not in LIST_CONTROLS}
            rest = {k: v for k, v in arguments.items() if k in LIST_CONTROLS}
            return verb, {TABLE: table, **({WHERE: inner} if inner else {}), **rest}
        if kind in ("create", "update"):
            inner = {k: v for k, v in arguments.items() if k != "id"}
            rest = {k: v for k, v in arguments.items() if k == "id"}
            return verb, {TABLE: table, **rest, FIELDS: inner}
        return verb, {TABLE: table, **arguments}

    def explain(self, verb: str, arguments: Any) -> str:
        """Why a verb call was not routed, in the words of this surface."""
        takes = ", ".join(self.tables(verb))
        table = arguments.get(TABLE) if isinstance(arguments, dict) else None
        if table is None:
            return f"{verb} needs a '{TABLE}': one of {takes}"
        where = "" if verb == VERBS["list"] else f" (the tables are described in {VERBS['list']})"
        return f"{verb} takes {TABLE} one of {takes}; got {table!r}{where}"


def routes(tools: Sequence[ToolSpec]) -> Routes:
    pairs = {(VERBS[t.kind], t.table): t.name for t in tools if t.kind in VERBS}
    return Routes(tools=pairs, verbs={name: pair for pair, name in pairs.items()})


def _status(column: Column, kinds: dict[str, ToolSpec]) -> str:
    """``status (new: bidding; moves: bidding -> awarded, lost_bid; ...; only via: awarded award_project;
    final: closed_out, lost_bid)``: a lifecycle said once, where per-verb descriptions said it three times."""
    words = []
    if "create" in kinds and column.values:
        words.append(f"new: {column.values[0]}")
    update = kinds.get("update")
    if not isinstance(update, UpdateTool):
        update = None
    moves = (update.transitions or {}) if update is not None and update.status_column == column.name else {}
    if moves:
        words.append("moves: " + "; ".join(f"{a} -> {', '.join(moves[a])}" for a in _in_order(column, moves)))
        if update is not None and update.reserved:
            reserved = update.reserved
            words.append("only via: " + ", ".join(f"{to} {reserved[to]}" for to in _in_order(column, reserved)))
        finals = [v for v in column.values or () if not moves.get(v)]
        if finals:
            words.append("final: " + ", ".join(finals))
    elif column.values:
        words.append("|".join(column.values))
    return f"{column.name} ({'; '.join(words)})"


def _in_order(column: Column, by_status: Mapping[str, Sequence[str] | str]) -> list[str]:
    """The statuses ``by_status`` says something of, in the column's declared order (any others
    after, sorted).

    Not the mapping's own order: a bundle's ``tools.json`` is written with sorted keys, so a
    toolset read back lists its moves alphabetically while a fresh build lists them as declared;
    the text (and ``report.html``, which shows it) must be the same either way.
    """
    declared = [v for v in column.values or () if by_status.get(v)]
    return declared + sorted(k for k, v in by_status.items() if v and k not in declared)


def _field(column: Column, create: dict[str, Any] | None, filters: set[str]) -> str:
    """``contract_value number 250000-60000000``: a field with its type, bounds and markers."""
    schema = (create or {}).get(column.name) or value_schema(column)
    word = _type_word(schema)
    if column.references:  # ``author_id`` says nothing of crew_members; ``project_id`` needs no note
        named = column.name.removesuffix("_id")
        obvious = column.references in (named, named + "s", named + "es", named[:-1] + "ies")
        word = "id" if obvious else f"id of {column.references}"
    words = [] if column.references or schema.get("enum") else _bounds_words(schema)
    words = [w for w in words if w not in ("date", "date-time")]
    marks = []
    if column.nullable:
        marks.append("optional")
    if column.unique:
        marks.append("unique")
    if filters and column.name not in filters:
        marks.append("no filter")
    text = " ".join([column.name, *([] if word == "text" else [word]), *words])
    return text + (f" ({', '.join(marks)})" if marks else "")


def _table_entry(table: Table, kinds: dict[str, ToolSpec]) -> str:
    """One table of the catalog: meaning, fields (the lifecycle with the status), verbs, rules, report."""
    create = kinds.get("create")
    create_props = (create.parameters.get("properties") or {}) if create else None
    filters = {c.name for c in filterable(table)} if "list" in kinds else set()
    fields = [
        _status(c, kinds) if c.semantic == "status" else _field(c, create_props, filters)
        for c in table.columns
        if not c.primary_key
    ]
    verbs = " ".join(_SHORT[k] for k in VERBS if k in kinds)
    text = f"{table.name} [{verbs}]: {table.description.rstrip('.')}. {'; '.join(fields)}."
    said = list(dict.fromkeys(r.message for r in table.rules if r.message))
    if said:
        text += f" Rules: {'; '.join(said)}."
    report = kinds.get("aggregate")
    if report is not None:
        props = report.parameters.get("properties") or {}
        amounts = "/".join((props.get("column") or {}).get("enum") or [])
        groups = ", ".join((props.get("group_by") or {}).get("enum") or [])
        text += f" Stats of {amounts or 'count only'} by {groups}."
    return text


def catalog(schema: Schema, tools: Iterable[ToolSpec]) -> str:
    """The tables a model can reach through the record verbs, one entry each."""
    by_table: dict[str, dict[str, ToolSpec]] = {}
    for t in tools:
        if t.kind in VERBS:
            by_table.setdefault(t.table, {})[t.kind] = t
    entries = [_table_entry(table, by_table[table.name]) for table in schema.tables if table.name in by_table]
    return " ".join(entries)  # one line: a docstring (TRL's tools) keeps no line breaks


_VERB_TEXT = {
    "get": "Fetch one record of a table by id.",
    "list": "Search the records of one table. Tables [verbs]: fields, text unless typed (optional: may be left "
    "out on create; no filter: not in where); a status gives how records start, the moves an update may make, "
    "those only an operation makes, and final values. {catalog}",
    "create": "Create a record in a table; returns it with its new id.",
    "update": "Change fields of a record; returns it. A status moves only as its table says.",
    "delete": "Delete a record by id, permanently; returns it as it was.",
    "aggregate": "A report on one table: count, or sum/avg/min/max of an amount, optionally one figure per "
    "group (a table's Stats note names its amounts and group fields).",
}


def _table_param(kind: str, tables: list[str]) -> dict[str, Any]:
    """``list_records`` enumerates every table it takes; the other verbs point at the catalog's verb tags
    instead of repeating the names (a table list per verb was a kilobyte on the larger worlds)."""
    if kind == "list":
        return {"type": "string", "enum": tables, "description": "the table"}
    return {"type": "string", "description": f"a table tagged {_SHORT[kind]} in list_records"}


def verb_tools(schema: Schema, tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """The record verbs (those some table takes), then the bundle's other tools in their compact form."""
    paths = routes(tools)
    clash = VERB_NAMES & {t.name for t in tools}
    if clash:
        raise ValueError(f"the bundle has tools named {sorted(clash)}, which the record surface uses for its verbs")
    out: list[dict[str, Any]] = []
    for kind, verb in VERBS.items():
        tables = paths.tables(verb)
        if not tables:
            continue
        props: dict[str, Any] = {TABLE: _table_param(kind, tables)}
        required = [TABLE]
        if kind in ("get", "update", "delete"):
            props["id"] = {"type": "integer", "description": "id of the record"}
            required.append("id")
        if kind == "list":
            props[WHERE] = {"type": "object", "description": "filters by field, see the table's Fields"}
            props["order_by"] = {"type": "string", "description": "a field of the table (default id)"}
            props["descending"] = {"type": "boolean", "description": "largest first"}
            props["limit"] = {"type": "integer", "description": "1-50"}
            props["offset"] = {"type": "integer", "description": ">= 0: a page's next_offset"}
        if kind in ("create", "update"):
            what = "the fields to change, at least one" if kind == "update" else "the new record's fields"
            props[FIELDS] = {"type": "object", "description": what}
            required.append(FIELDS)
        if kind == "aggregate":
            props["metric"] = {
                "type": "string",
                "enum": ["count", "sum", "avg", "min", "max"],
                "description": "the figure",
            }
            props["column"] = {
                "type": "string",
                "description": "the amount summed, averaged or bounded (not for count)",
            }
            props["group_by"] = {"type": "string", "description": "one figure per value of this field"}
            props[WHERE] = {"type": "object", "description": "one value or _in list per group field"}
            props["descending"] = {"type": "boolean", "description": "groups by value, largest first"}
            props["limit"] = {"type": "integer", "description": "groups, 1-50"}
            required.append("metric")
        text = _VERB_TEXT[kind].format(catalog=catalog(schema, tools) if kind == "list" else "")
        out.append(
            {
                "name": verb,
                "description": text,
                "parameters": {"type": "object", "properties": props, "required": required},
            }
        )
    out += [
        compact_tool(t.model_dump(include={"name", "description", "parameters"})) for t in tools if t.kind not in VERBS
    ]
    return out
