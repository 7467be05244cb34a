"""The one executor that interprets every tool spec.

Identifiers in SQL come only from the schema (table and column names, checked against
it when the executor is built, and again per call for names an agent picks from an
enum); every value an agent sends reaches SQLite as a bound parameter. Each call runs in
its own savepoint, so a failing call leaves the state exactly as it was. Every failure
is a :class:`ToolError` with a typed code and a message an agent can act on.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator

from pipeline.bundle.format import StateFile, open_state_file
from pipeline.tools.errors import ToolError, as_tool_error, describe, leaf_errors, nice, options
from pipeline.tools.guard import Guard, Touched
from pipeline.tools.jsonvalues import json_problem
from pipeline.tools.specs import (
    DEFAULT_PAGE_SIZE,
    AggregateTool,
    CascadeStatus,
    CreateTool,
    DeleteTool,
    Effect,
    GetTool,
    ListTool,
    Toolset,
    ToolSpec,
    TransitionTool,
    UpdateTool,
    group_columns,
    measure_columns,
)
from pipeline.world.schema import Schema, Table
from pipeline.world.sqlnames import quote_ident as _q

_SQL_METRIC = {"count": "count", "sum": "sum", "avg": "avg", "min": "min", "max": "max"}
READ_KINDS = frozenset({"get", "list", "aggregate"})
"""Tool kinds that only read: a replay may share their results while the state is unchanged."""
_RANGE_SUFFIXES = (("_min", ">="), ("_max", "<="), ("_from", ">="), ("_to", "<="))


def open_copy(initial: bytes) -> sqlite3.Connection:
    """A private copy of a state, foreign keys enforced, autocommit: in memory from a serialised
    image, or a temporary file for a :class:`~pipeline.bundle.format.StateFile` (a state too large
    for an image)."""
    if isinstance(initial, StateFile):
        conn = initial.copy()
    else:
        conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    try:
        if not isinstance(initial, StateFile):
            conn.deserialize(initial)
        conn.execute("PRAGMA foreign_keys = ON")
    except BaseException:  # not a state image: the caller never gets the connection to close
        conn.close()
        raise
    return conn


def open_reading(initial: bytes) -> sqlite3.Connection:
    """A read-only view of a state: the file itself, opened immutable, for a
    :class:`~pipeline.bundle.format.StateFile` (no copy of a large state), else an in-memory copy."""
    if isinstance(initial, StateFile):
        initial.check()
        conn = open_state_file(initial.path, readonly=True)
    else:
        conn = open_copy(initial)
    try:
        conn.execute("PRAGMA query_only = ON")
    except BaseException:
        conn.close()
        raise
    return conn


def contains_sql(column: str) -> str:
    """The ``<column>_contains`` filter's condition (one bound parameter): SQLite's ``lower`` folds
    ASCII letters only, so whoever counts the same matches must ask SQLite, not ``str.lower``."""
    return f"instr(lower({_q(column)}), lower(?)) > 0"


class Executor:
    """Runs tool calls against one SQLite connection (one session's state)."""

    def __init__(self, schema: Schema, toolset: Toolset, clock: str) -> None:
        self.schema = schema
        self.toolset = toolset
        self.clock = clock
        self._tables = {t.name: t for t in schema.tables}
        self._booleans = {t.name: [c.name for c in t.columns if c.sql_type == "BOOLEAN"] for t in schema.tables}
        for spec in toolset.tools:
            self._check_spec(spec)
        self._specs = {t.name: t for t in toolset.tools}
        self._validators = {t.name: Draft202012Validator(t.parameters) for t in toolset.tools}
        # Compiled once per tool: a few microseconds per call where the pure-Python validator takes
        # a tenth of a millisecond. It only accepts; a refusal is explained by the validator above,
        # which stays the reference (if it finds nothing wrong, the call goes through).
        self._fast = {t.name: jsonschema_rs.Draft202012Validator(t.parameters) for t in toolset.tools}
        self.guard = Guard(schema, clock)

    def _check_spec(self, spec: ToolSpec) -> None:
        """Refuse a spec naming anything the schema does not have: SQL identifiers come from here."""

        def need(table: str, *columns: str | None) -> None:
            t = self._tables.get(table)
            if t is None:
                raise ValueError(f"tool {spec.name}: unknown table {table!r}")
            names = {c.name for c in t.columns}
            for col in columns:
                if col is not None and col not in names:
                    raise ValueError(f"tool {spec.name}: table {table!r} has no column {col!r}")

        if isinstance(spec, AggregateTool):
            return
        if isinstance(spec, (ListTool, CreateTool)):
            need(spec.table, *spec.columns)
        elif isinstance(spec, UpdateTool):
            need(spec.table, *spec.columns, spec.status_column)
        elif isinstance(spec, TransitionTool):
            need(spec.table, spec.status_column, spec.sets_time)
        else:
            need(spec.table)
        for e in spec.effects if isinstance(spec, TransitionTool) else ():
            if isinstance(e, CascadeStatus):
                need(e.table, e.column, e.ref)
            else:
                need(e.table, e.column)
                need(e.lines, e.ref, e.item, e.quantity)

    def spec(self, name: str) -> ToolSpec:
        spec = self._specs.get(name)
        if spec is None:
            raise ToolError("invalid_argument", f"unknown tool {name!r}; available tools: {', '.join(self._specs)}")
        return spec

    def validate(self, name: str, arguments: Any, *, plain_json: bool = False) -> ToolSpec:
        """The tool's spec once ``arguments`` fit its parameters; ToolError naming what is wrong otherwise.

        ``plain_json``: the caller has already checked the arguments with
        :func:`~pipeline.tools.jsonvalues.json_problem` (``Environment.step`` checks the whole action).
        """
        spec = self.spec(name)
        if not isinstance(arguments, dict):
            raise ToolError(
                "invalid_argument", f"arguments of {name} must be a JSON object, got {type(arguments).__name__}"
            )
        if not plain_json:
            problem = json_problem(arguments, "arguments")
            if problem is not None:
                raise ToolError("invalid_argument", f"{name}: {problem}")
        if self._fast[name].is_valid(arguments):
            return spec
        errors = leaf_errors(list(self._validators[name].iter_errors(arguments)))
        if errors:
            errors.sort(key=lambda e: [str(p) for p in e.absolute_path])
            messages = list(dict.fromkeys(describe(e) for e in errors))
            raise ToolError("invalid_argument", f"{name}: " + "; ".join(messages[:3]))
        return spec

    def call(self, conn: sqlite3.Connection, name: str, arguments: Any) -> Any:
        """Validate and run one call in its own savepoint; raise ToolError on any failure."""
        return self.run(conn, self.validate(name, arguments), arguments)

    def run(self, conn: sqlite3.Connection, spec: ToolSpec, arguments: dict[str, Any]) -> Any:
        """Run one call :meth:`validate` accepted, in its own savepoint; raise ToolError on any failure.

        Reads (get, list, aggregate) write nothing, so they need no savepoint to undo.
        """
        if spec.kind in READ_KINDS:
            try:
                return getattr(self, f"_{spec.kind}")(conn, spec, arguments)
            except (ToolError, sqlite3.IntegrityError, OverflowError) as exc:
                raise as_tool_error(spec, self._tables.get(spec.table), exc) from None
        outermost = not conn.in_transaction
        conn.execute("SAVEPOINT tool_call")
        try:
            result = getattr(self, f"_{spec.kind}")(conn, spec, arguments)
        except (ToolError, sqlite3.IntegrityError, OverflowError) as exc:
            _undo(conn, outermost)
            raise as_tool_error(spec, self._tables.get(spec.table), exc) from None
        except BaseException:
            _undo(conn, outermost)
            raise
        conn.execute("RELEASE tool_call")
        return result

    # -- helpers -------------------------------------------------------------------------

    def _row(self, conn: sqlite3.Connection, table: Table, row_id: int) -> dict[str, Any]:
        cur = conn.execute(f"SELECT * FROM {_q(table.name)} WHERE id = ?", (row_id,))
        row = cur.fetchone()
        if row is None:
            raise ToolError("not_found", f"no {nice(table.entity)} with id {row_id}")
        return self._to_json(table, [d[0] for d in cur.description], row)

    def _to_json(self, table: Table, names: list[str], row: tuple[Any, ...]) -> dict[str, Any]:
        out = dict(zip(names, row))
        for name in self._booleans[table.name]:
            if out.get(name) is not None:
                out[name] = bool(out[name])
        return out

    def _where(self, table: Table, args: dict[str, Any]) -> tuple[str, list[Any]]:
        """WHERE clause for the typed filters; column names come from the table, values are bound."""
        where, params = [], []
        for c in table.columns:
            if c.semantic == "text":
                continue
            col = c.name
            if col in args:
                where.append(f"{_q(col)} = ?")
                params.append(args[col])
            if col + "_in" in args and c.values:
                values = list(args[col + "_in"])
                where.append(f"{_q(col)} IN ({', '.join('?' for _ in values)})")
                params.extend(values)
            for suffix, op in _RANGE_SUFFIXES:
                if col + suffix in args:
                    where.append(f"{_q(col)} {op} ?")
                    params.append(args[col + suffix])
            if col + "_contains" in args:
                where.append(contains_sql(col))
                params.append(args[col + "_contains"])
        return (f" WHERE {' AND '.join(where)}" if where else ""), params

    def _column_name(self, table: Table, name: Any, argument: str) -> str:
        for c in table.columns:
            if c.name == name:
                return c.name
        raise ToolError("invalid_argument", f"{argument}: {table.name} has no field {name!r}")

    def _check_refs(self, conn: sqlite3.Connection, table: Table, args: dict[str, Any]) -> None:
        for col in table.foreign_keys:
            value = args.get(col.name)
            if value is None or col.references is None:
                continue
            if conn.execute(f"SELECT 1 FROM {_q(col.references)} WHERE id = ?", (value,)).fetchone() is None:
                target = nice(self._tables[col.references].entity)
                raise ToolError("not_found", f"{col.name}={value}: no {target} with id {value}")

    # -- kinds ---------------------------------------------------------------------------

    def _get(self, conn: sqlite3.Connection, spec: GetTool, args: dict[str, Any]) -> dict[str, Any]:
        return self._row(conn, self._tables[spec.table], args["id"])

    def _list(self, conn: sqlite3.Connection, spec: ListTool, args: dict[str, Any]) -> dict[str, Any]:
        table = self._tables[spec.table]
        clause, params = self._where(table, args)
        order = self._column_name(table, args.get("order_by", "id"), "order_by")
        direction = "DESC" if args.get("descending") else "ASC"
        limit = args.get("limit", DEFAULT_PAGE_SIZE)
        offset = args.get("offset", 0)
        cur = conn.execute(
            f"SELECT * FROM {_q(table.name)}{clause} ORDER BY {_q(order)} {direction}, id ASC LIMIT ? OFFSET ?",
            [*params, limit, offset],
        )
        names = [d[0] for d in cur.description]
        rows = cur.fetchall()
        # A page that ends short of its limit ends the matches, so it tells the total: the second
        # scan for the count is paid only when the page is full or starts past the last match.
        if 0 < len(rows) < limit or (not rows and offset == 0):
            total = offset + len(rows)
        else:
            total = conn.execute(f"SELECT count(*) FROM {_q(table.name)}{clause}", params).fetchone()[0]
        items = [self._to_json(table, names, r) for r in rows]
        next_offset = offset + len(items) if offset + len(items) < total else None
        return {"items": items, "total": total, "next_offset": next_offset}

    def _aggregate(self, conn: sqlite3.Connection, spec: AggregateTool, args: dict[str, Any]) -> dict[str, Any]:
        table = self._tables.get(args["table"])
        if table is None:
            raise ToolError("invalid_argument", f"unknown table {args['table']!r}; tables: {', '.join(self._tables)}")
        metric = args["metric"]
        column = args.get("column")
        numeric = [c.name for c in measure_columns(table)]
        if metric != "count" and column is None:
            raise ToolError(
                "invalid_argument", f"metric '{metric}' needs 'column', one of: {', '.join(numeric) or 'none'}"
            )
        if column is not None and column not in numeric:
            raise ToolError(
                "invalid_argument",
                f"column {column!r} is not a numeric field of {table.name}; use one of: {', '.join(numeric) or 'none'}",
            )
        group_by = args.get("group_by")
        if group_by is not None and group_by not in {c.name for c in group_columns(table)}:
            raise ToolError(
                "invalid_argument",
                f"group_by {group_by!r} is not a category, flag or reference of "
                f"{table.name}; use one of: {', '.join(c.name for c in group_columns(table))}",
            )
        clause, params = self._where(table, args.get("where", {}))
        value = "count(*)" if metric == "count" else f"{_SQL_METRIC[metric]}({_q(str(column))})"
        key = _q(group_by) if group_by else "NULL"
        grouped = f" GROUP BY {key}" if group_by else ""
        order = "value DESC, key ASC" if args.get("descending") else "key ASC"
        source = f"SELECT {key} AS key, count(*) AS n, {value} AS value FROM {_q(table.name)}{clause}{grouped}"
        total = conn.execute(f"SELECT count(*) FROM ({source})", params).fetchone()[0]
        rows = conn.execute(f"{source} ORDER BY {order} LIMIT ?", [*params, args.get("limit", DEFAULT_PAGE_SIZE)])
        as_bool = group_by is not None and table.column(group_by).sql_type == "BOOLEAN"
        groups = [{"key": bool(k) if as_bool and k is not None else k, "count": n, "value": v} for k, n, v in rows]
        return {
            "table": table.name,
            "metric": metric,
            "column": column,
            "group_by": group_by,
            "groups": groups,
            "total_groups": total,
        }

    def _create(self, conn: sqlite3.Connection, spec: CreateTool, args: dict[str, Any]) -> dict[str, Any]:
        table = self._tables[spec.table]
        self._check_refs(conn, table, args)
        values = {c: args[c] for c in spec.columns if c in args}
        for col in table.columns:
            # A new record starts in its status's first value (the blueprint lists the initial state first).
            if col.semantic == "status" and col.values:
                values[col.name] = col.values[0]
        names = list(values)
        cur = conn.execute(
            f"INSERT INTO {_q(table.name)} ({', '.join(_q(n) for n in names)}) "
            f"VALUES ({', '.join('?' for _ in names)})",
            [values[n] for n in names],
        )
        new_id = int(cur.lastrowid or 0)
        self._keep_rules(conn, {table.name: {new_id}})
        return self._row(conn, table, new_id)

    def _update(self, conn: sqlite3.Connection, spec: UpdateTool, args: dict[str, Any]) -> dict[str, Any]:
        table = self._tables[spec.table]
        row = self._row(conn, table, args["id"])
        status = spec.status_column
        moving = status is not None and status in args and args[status] != row[status]
        if moving and status is not None:
            self._check_move(spec, table, args["id"], str(row[status]), str(args[status]))
        final = self.guard.final_status(table, row)
        if final is not None:
            raise ToolError(
                "conflict",
                f"{nice(table.entity)} {args['id']} is '{final[1]}', a final {table.column(final[0]).label}: "
                "it can no longer be changed",
            )
        self._check_refs(conn, table, args)
        sets = {c: args[c] for c in spec.columns if c in args}
        touched: Touched = {table.name: {args["id"]}}
        if moving and status is not None:
            sets[status] = args[status]
            sets.update(self._stamps(table, row, status, str(args[status]), sets))
        if sets:
            conn.execute(
                f"UPDATE {_q(table.name)} SET {', '.join(f'{_q(n)} = ?' for n in sets)} WHERE id = ?",
                [*sets.values(), args["id"]],
            )
        if status is not None and status in sets:
            touched.update(self.guard.record(conn, table, status, [(args["id"], str(row[status]), str(sets[status]))]))
        self._keep_rules(conn, touched)
        return self._row(conn, table, args["id"])

    def _keep_rules(self, conn: sqlite3.Connection, touched: Touched) -> None:
        """Refuse the write (the call's savepoint undoes it) if a written row now breaks a row check."""
        message = self.guard.violation(conn, touched)
        if message is not None:
            raise ToolError("constraint_violation", f"{message}; nothing was changed")

    def _stamps(
        self, table: Table, row: dict[str, Any], status: str, value: str, already: dict[str, Any]
    ) -> dict[str, str]:
        """Times the schema ties to reaching a status value (``shipped_at`` for 'shipped'), set to now if empty."""
        out = {}
        for c in table.columns:
            stamp = getattr(c, "stamp", None)
            if (
                stamp is not None
                and stamp.column == status
                and stamp.value == value
                and row.get(c.name) is None
                and c.name not in already
            ):
                out[c.name] = self.clock[:10] if c.semantic == "date" else self.clock
        return out

    def _check_move(self, spec: UpdateTool, table: Table, row_id: int, current: str, new: str) -> None:
        subject = f"{nice(table.entity)} {row_id}"
        if new in spec.reserved:
            raise ToolError(
                "forbidden_transition",
                f"{spec.status_column} '{new}' is set only by {spec.reserved[new]}; call it instead",
            )
        allowed = (spec.transitions or {}).get(current, ())
        if new not in allowed:
            where = f"it can move only to {options(allowed)}" if allowed else f"'{current}' is final"
            raise ToolError(
                "forbidden_transition",
                f"{subject} is '{current}'; {spec.status_column} cannot become '{new}' ({where})",
            )

    def _delete(self, conn: sqlite3.Connection, spec: DeleteTool, args: dict[str, Any]) -> dict[str, Any]:
        table = self._tables[spec.table]
        row = self._row(conn, table, args["id"])
        conn.execute(f"DELETE FROM {_q(table.name)} WHERE id = ?", (args["id"],))
        return row

    def _transition(self, conn: sqlite3.Connection, spec: TransitionTool, args: dict[str, Any]) -> dict[str, Any]:
        table = self._tables[spec.table]
        row = self._row(conn, table, args["id"])
        status_col = spec.status_column
        current = row[status_col]
        if current not in spec.allowed_from:
            raise ToolError(
                "forbidden_transition",
                f"{nice(table.entity)} {args['id']} is '{current}'; {spec.name} is allowed only from "
                f"{options(spec.allowed_from)}",
            )
        sets: dict[str, Any] = {status_col: spec.to}
        if spec.sets_time:
            sets[spec.sets_time] = self.clock
        sets.update(self._stamps(table, row, status_col, str(spec.to), sets))
        conn.execute(
            f"UPDATE {_q(table.name)} SET {', '.join(f'{_q(k)} = ?' for k in sets)} WHERE id = ?",
            [*sets.values(), args["id"]],
        )
        touched: Touched = {table.name: {args["id"]}}
        touched.update(self.guard.record(conn, table, status_col, [(args["id"], str(current), str(spec.to))]))
        for effect in spec.effects:
            for name, ids in self._apply(conn, spec, effect, args["id"]).items():
                touched.setdefault(name, set()).update(ids)
        self._keep_rules(conn, touched)
        return self._row(conn, table, args["id"])

    def _apply(self, conn: sqlite3.Connection, spec: TransitionTool, e: Effect, row_id: int) -> Touched:
        if isinstance(e, CascadeStatus):
            marks = ", ".join("?" for _ in e.allowed_from)
            moved = conn.execute(
                f"SELECT id, {_q(e.column)} FROM {_q(e.table)} WHERE {_q(e.ref)} = ? AND {_q(e.column)} IN ({marks}) "
                "ORDER BY id",
                [row_id, *e.allowed_from],
            ).fetchall()
            child = self._tables[e.table]
            stamps = [
                c.name
                for c in child.columns
                if c.stamp is not None and c.stamp.column == e.column and c.stamp.value == e.to
            ]
            sets = [f"{_q(e.column)} = ?"] + [f"{_q(c)} = coalesce({_q(c)}, ?)" for c in stamps]
            stamp_values = [self.clock[:10] if child.column(c).semantic == "date" else self.clock for c in stamps]
            conn.execute(
                f"UPDATE {_q(e.table)} SET {', '.join(sets)} WHERE {_q(e.ref)} = ? AND {_q(e.column)} IN ({marks})",
                [e.to, *stamp_values, row_id, *e.allowed_from],
            )
            touched: Touched = {e.table: {int(i) for i, _ in moved}}
            for name, ids in self.guard.record(
                conn, child, e.column, [(int(i), str(v), str(e.to)) for i, v in moved]
            ).items():
                touched.setdefault(name, set()).update(ids)
            return touched
        lines = conn.execute(
            f"SELECT {_q(e.item)}, sum({_q(e.quantity)}) FROM {_q(e.lines)} "
            f"WHERE {_q(e.ref)} = ? AND {_q(e.item)} IS NOT NULL GROUP BY 1 ORDER BY 1",
            (row_id,),
        ).fetchall()
        target = self._tables[e.table]
        for item_id, qty in lines:
            try:
                conn.execute(
                    f"UPDATE {_q(e.table)} SET {_q(e.column)} = {_q(e.column)} + ? WHERE id = ?", (qty or 0, item_id)
                )
            except sqlite3.IntegrityError:
                cap = target.column(e.column).max
                limit = f" (at most {cap:g})" if cap is not None else ""
                raise ToolError(
                    "constraint_violation",
                    f"{spec.name}: returning {qty} to {nice(target.entity)} {item_id}'s "
                    f"{target.column(e.column).label} would break its limit{limit}; nothing was changed",
                ) from None
        return {e.table: {int(item_id) for item_id, _ in lines}}


def _undo(conn: sqlite3.Connection, outermost: bool) -> None:
    """Undo a failed call. When the call opened the transaction, roll all of it back, so a write that was
    refused after it ran (a broken rule) leaves the state byte for byte as it was, not just equal in content."""
    if outermost:
        conn.execute("ROLLBACK")
        return
    conn.execute("ROLLBACK TO tool_call")
    conn.execute("RELEASE tool_call")
