"""The one executor that interprets every tool spec.

Identifiers in SQL come only from the validated spec (table and column names of the
schema); every value an agent sends reaches SQLite as a bound parameter. Each call runs
in its own savepoint, so a failing call leaves the state exactly as it was. Every
failure is a :class:`ToolError` with a typed code and a message an agent can act on.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from jsonschema import Draft202012Validator

from pipeline.schema import Schema, Table
from pipeline.tools import DEFAULT_PAGE_SIZE, ToolSpec, Toolset


class ToolError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


def _q(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _describe(error: Any) -> str:
    where = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "additionalProperties":
        return error.message.replace("Additional properties are not allowed", "unknown argument(s)")
    if error.validator == "required":
        return error.message.replace("is a required property", "is required")
    return f"argument '{where}': {error.message}" if where else error.message


class Executor:
    """Runs tool calls against one SQLite connection (one session's state)."""

    def __init__(self, schema: Schema, toolset: Toolset, clock: str) -> None:
        self.schema = schema
        self.toolset = toolset
        self.clock = clock
        self._specs = {t.name: t for t in toolset.tools}
        self._validators = {t.name: Draft202012Validator(t.parameters) for t in toolset.tools}
        self._tables = {t.name: t for t in schema.tables}

    def spec(self, name: str) -> ToolSpec:
        spec = self._specs.get(name)
        if spec is None:
            raise ToolError("invalid_argument", f"unknown tool {name!r}; available tools: {', '.join(self._specs)}")
        return spec

    def validate(self, name: str, arguments: Any) -> ToolSpec:
        spec = self.spec(name)
        if not isinstance(arguments, dict):
            raise ToolError("invalid_argument", f"arguments of {name} must be a JSON object, got {type(arguments).__name__}")
        errors = sorted(self._validators[name].iter_errors(arguments), key=lambda e: list(e.absolute_path))
        if errors:
            raise ToolError("invalid_argument", f"{name}: " + "; ".join(_describe(e) for e in errors[:3]))
        return spec

    def call(self, conn: sqlite3.Connection, name: str, arguments: Any) -> Any:
        """Validate and run one call in its own savepoint; raise ToolError on any failure."""
        spec = self.validate(name, arguments)
        table = self._tables[spec.table]
        conn.execute("SAVEPOINT tool_call")
        try:
            result = getattr(self, f"_{spec.kind}")(conn, spec, table, arguments)
        except (ToolError, sqlite3.IntegrityError, OverflowError) as exc:
            conn.execute("ROLLBACK TO tool_call")
            conn.execute("RELEASE tool_call")
            raise _as_tool_error(name, table, exc) from None
        conn.execute("RELEASE tool_call")
        return result

    # -- kinds ---------------------------------------------------------------------------

    def _row(self, conn: sqlite3.Connection, table: Table, row_id: int) -> dict[str, Any]:
        cur = conn.execute(f"SELECT * FROM {_q(table.name)} WHERE id = ?", (row_id,))
        row = cur.fetchone()
        if row is None:
            raise ToolError("not_found", f"no {table.entity.replace('_', ' ')} with id {row_id}")
        return self._to_json(table, [d[0] for d in cur.description], row)

    def _to_json(self, table: Table, names: list[str], row: tuple[Any, ...]) -> dict[str, Any]:
        out = dict(zip(names, row))
        for c in table.columns:
            if c.sql_type == "BOOLEAN" and out.get(c.name) is not None:
                out[c.name] = bool(out[c.name])
        return out

    def _get(self, conn: sqlite3.Connection, spec: ToolSpec, table: Table, args: dict[str, Any]) -> dict[str, Any]:
        return self._row(conn, table, args["id"])

    def _list(self, conn: sqlite3.Connection, spec: ToolSpec, table: Table, args: dict[str, Any]) -> dict[str, Any]:
        where, params = [], []
        for col in spec.columns:
            if col in args:
                where.append(f"{_q(col)} = ?")
                params.append(args[col])
            for suffix, op in (("_min", ">="), ("_max", "<="), ("_from", ">="), ("_to", "<=")):
                if col + suffix in args:
                    where.append(f"{_q(col)} {op} ?")
                    params.append(args[col + suffix])
            if col + "_contains" in args:
                where.append(f"instr(lower({_q(col)}), lower(?)) > 0")
                params.append(args[col + "_contains"])
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        total = conn.execute(f"SELECT count(*) FROM {_q(table.name)}{clause}", params).fetchone()[0]
        order = args.get("order_by", "id")
        direction = "DESC" if args.get("descending") else "ASC"
        limit = args.get("limit", DEFAULT_PAGE_SIZE)
        offset = args.get("offset", 0)
        cur = conn.execute(
            f"SELECT * FROM {_q(table.name)}{clause} ORDER BY {_q(order)} {direction}, id ASC LIMIT ? OFFSET ?",
            [*params, limit, offset],
        )
        names = [d[0] for d in cur.description]
        items = [self._to_json(table, names, r) for r in cur.fetchall()]
        next_offset = offset + len(items) if offset + len(items) < total else None
        return {"items": items, "total": total, "next_offset": next_offset}

    def _check_refs(self, conn: sqlite3.Connection, table: Table, args: dict[str, Any]) -> None:
        for col in table.foreign_keys:
            value = args.get(col.name)
            if value is None or col.references is None:
                continue
            if conn.execute(f"SELECT 1 FROM {_q(col.references)} WHERE id = ?", (value,)).fetchone() is None:
                target = self._tables[col.references].entity.replace("_", " ")
                raise ToolError("not_found", f"{col.name}={value}: no {target} with id {value}")

    def _create(self, conn: sqlite3.Connection, spec: ToolSpec, table: Table, args: dict[str, Any]) -> dict[str, Any]:
        self._check_refs(conn, table, args)
        values = {c: args[c] for c in spec.columns if c in args}
        for col in table.columns:
            # A new record starts in its status's first value (the blueprint lists the initial state first).
            if col.semantic == "status" and col.values:
                values[col.name] = col.values[0]
        names = list(values)
        cur = conn.execute(
            f"INSERT INTO {_q(table.name)} ({', '.join(_q(n) for n in names)}) VALUES ({', '.join('?' for _ in names)})",
            [values[n] for n in names],
        )
        return self._row(conn, table, int(cur.lastrowid or 0))

    def _update(self, conn: sqlite3.Connection, spec: ToolSpec, table: Table, args: dict[str, Any]) -> dict[str, Any]:
        self._row(conn, table, args["id"])
        self._check_refs(conn, table, args)
        names = [c for c in spec.columns if c in args]
        conn.execute(
            f"UPDATE {_q(table.name)} SET {', '.join(f'{_q(n)} = ?' for n in names)} WHERE id = ?",
            [args[n] for n in names] + [args["id"]],
        )
        return self._row(conn, table, args["id"])

    def _transition(self, conn: sqlite3.Connection, spec: ToolSpec, table: Table, args: dict[str, Any]) -> dict[str, Any]:
        row = self._row(conn, table, args["id"])
        status_col = spec.status_column or "status"
        current = row[status_col]
        if current not in spec.allowed_from:
            allowed = " or ".join(f"'{v}'" for v in spec.allowed_from)
            raise ToolError(
                "forbidden_transition",
                f"{table.entity.replace('_', ' ')} {args['id']} is '{current}'; {spec.name} is allowed only from {allowed}",
            )
        sets = {status_col: spec.to}
        if spec.sets_time:
            sets[spec.sets_time] = self.clock
        conn.execute(
            f"UPDATE {_q(table.name)} SET {', '.join(f'{_q(k)} = ?' for k in sets)} WHERE id = ?",
            [*sets.values(), args["id"]],
        )
        return self._row(conn, table, args["id"])


def _as_tool_error(tool: str, table: Table, exc: Exception) -> ToolError:
    """Translate what SQLite refused into the typed error an agent can act on."""
    if isinstance(exc, ToolError):
        return exc
    if isinstance(exc, OverflowError):
        return ToolError("invalid_argument", f"{tool}: a number is outside the 64-bit integer range")
    text = str(exc)
    if text.startswith("UNIQUE"):
        cols = text.split(":", 1)[-1].strip()
        return ToolError("conflict", f"another {table.entity.replace('_', ' ')} already has this value of {cols}")
    if text.startswith("CHECK"):
        name = text.split(":", 1)[-1].strip()
        column = name.removeprefix(f"ck_{table.name}_").rsplit("_", 1)[0]
        col = next((c for c in table.columns if c.name == column), None)
        if col is not None and col.values:
            hint = f"must be one of {', '.join(col.values)}"
        elif col is not None and (col.min is not None or col.max is not None):
            hint = f"must be between {col.min:g} and {col.max:g}" if col.min is not None and col.max is not None else "is out of range"
        else:
            hint = "is not valid"
        return ToolError("constraint_violation", f"{column} {hint}")
    if text.startswith("NOT NULL"):
        return ToolError("invalid_argument", f"{text.split('.', 1)[-1]} is required")
    if text.startswith("FOREIGN KEY"):
        return ToolError("not_found", "a referenced record does not exist")
    return ToolError("constraint_violation", text)
