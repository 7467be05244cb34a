"""Build-time proof of every tool, on a scratch copy of the populated state.

Each tool gets at least one valid call, whose result must match the tool's result
schema and do what the tool says (the record it names, the filter it applies, the
status it sets), and invalid calls (wrong type, missing field, unknown argument, unknown
id, unknown reference, duplicate unique value, forbidden transition) that must come back
as the right typed error and leave the state untouched. A tool that fails any probe fails
the build with a message naming it.

Which probes a tool gets is a function of its spec alone (:func:`plan`), so the manifest
can record the counts without re-running them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from jsonschema import Draft202012Validator

from pipeline.tools.executor import Executor, ToolError, open_copy
from pipeline.tools.probe_plan import EXPECTED, VALID, ProbeReport, plan
from pipeline.tools.specs import (
    CascadeStatus,
    CreateTool,
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
from pipeline.world.sqlnames import quote_literal
from pipeline.world.timeline import passed_through, stamps_of, terminal


class ProbeFailure(ValueError):
    """One or more tools did not behave as their specs say; the message names each one."""


_K = TypeVar("_K")


class _Mismatch(Exception):
    """One probe saw something other than what the spec promises."""


class _Prober:
    """Runs one tool's plan on the scratch copy (inside a transaction the caller rolls back)."""

    def __init__(self, schema: Schema, executor: Executor, spec: ToolSpec, conn: sqlite3.Connection) -> None:
        self.schema, self.executor, self.spec, self.conn = schema, executor, spec, conn
        self.table = schema.table(spec.table) if spec.table else None
        self.result = Draft202012Validator(spec.result)
        self.arguments = Draft202012Validator(spec.parameters)
        self.subjects: set[tuple[str, Any]] = set()
        """(table, id) of the records already handed to a prepared case: the refusals are all prepared
        before any runs, so a record put in another state for one case must not be one another case holds."""

    def of(self, kind: type[_K]) -> _K:
        """The spec as the kind a case is for (a case planned for another kind is a mismatch)."""
        if not isinstance(self.spec, kind):
            raise _Mismatch(f"a {self.spec.kind} tool has no {kind.__name__} case")
        return self.spec

    # -- state helpers -------------------------------------------------------------------

    def rows(
        self, table: Table, where: str = "", params: tuple[Any, ...] = (), limit: int = 50
    ) -> list[dict[str, Any]]:
        cur = self.conn.execute(f"SELECT * FROM {_q(table.name)} {where} ORDER BY id LIMIT ?", (*params, limit))
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    def missing_id(self, table: Table) -> int:
        return int(self.conn.execute(f"SELECT coalesce(max(id), 0) FROM {_q(table.name)}").fetchone()[0]) + 1000

    def force_status(self, table: Table, status: str, value: str) -> dict[str, Any]:
        """Put the first record no prepared case holds in a given state (scratch copy only) so a transition
        can be probed; the times its status implies are set or cleared with it, so the record is one the data
        could hold."""
        rows = self.rows(table, limit=len(self.subjects) + 1)
        row = next((r for r in rows if (table.name, r["id"]) not in self.subjects), rows[0])
        self.subjects.add((table.name, row["id"]))
        sets: dict[str, Any] = {status: value}
        column = table.column(status)
        for stamp in stamps_of(table, column):
            may, must = passed_through(column, str(stamp.stamp.value if stamp.stamp else ""))
            if value not in may:
                sets[stamp.name] = None
            elif value in must and row.get(stamp.name) is None:
                sets[stamp.name] = self.executor.clock[:10] if stamp.semantic == "date" else self.executor.clock
        assignments = ", ".join(f"{_q(k)} = ?" for k in sets)
        self.conn.execute(f"UPDATE {_q(table.name)} SET {assignments} WHERE id = ?", (*sets.values(), row["id"]))
        return {**row, **sets}

    def editable_row(self, table: Table) -> dict[str, Any]:
        """A record a generic update may change: not in a final status (one is put in an open status if none is)."""
        status = next((c for c in table.columns if c.semantic == "status" and c.transitions), None)
        if status is None:
            return self.rows(table, limit=1)[0]
        open_values = [v for v in status.values or () if not terminal(status, v)]
        return self.in_state(table, status.name, open_values)[0]

    def in_state(self, table: Table, status: str, values: tuple[str, ...] | list[str]) -> list[dict[str, Any]]:
        marks = ", ".join("?" for _ in values)
        rows = self.rows(table, f"WHERE {_q(status)} IN ({marks})", tuple(values), limit=20) if values else []
        if rows:
            self.subjects.add((table.name, rows[0]["id"]))  # the one a case takes
        return rows or ([self.force_status(table, status, values[0])] if values else [])

    # -- calls ---------------------------------------------------------------------------

    def ok(self, arguments: dict[str, Any]) -> Any:
        errors = list(self.arguments.iter_errors(arguments))
        if errors:
            raise _Mismatch(f"probe arguments {arguments} do not fit the tool's schema: {errors[0].message}")
        try:
            result = self.executor.call(self.conn, self.spec.name, arguments)
        except ToolError as exc:
            raise _Mismatch(f"valid call {arguments} failed: {exc.code}: {exc.message}") from None
        errors = list(self.result.iter_errors(result))
        if errors:
            raise _Mismatch(f"result of {arguments} does not match the result schema: {errors[0].message}")
        return result

    def refused(self, arguments: Any, code: str) -> None:
        try:
            self.executor.call(self.conn, self.spec.name, arguments)
        except ToolError as exc:
            if exc.code != code:
                raise _Mismatch(f"{arguments} gave {exc.code} ({exc.message}), expected {code}") from None
            if not exc.message:
                raise _Mismatch(f"{arguments} gave {code} without a message") from None
            return
        raise _Mismatch(f"{arguments} succeeded, expected {code}")

    # -- argument builders ---------------------------------------------------------------

    def create_args(self) -> dict[str, Any]:
        """Required fields copied from an existing record, with unique values made fresh."""
        table = self.need_table()
        row = self.rows(table, limit=1)[0]
        required = set(self.spec.parameters.get("required", []))
        args = {c: row[c] for c in self.of(CreateTool).columns if c in required and row.get(c) is not None}
        for c in table.columns:
            if c.name in args and c.sql_type == "BOOLEAN":
                args[c.name] = bool(args[c.name])
            if c.name in args and c.unique:
                args[c.name] = self.fresh(table, c.name, args[c.name])
        for group in getattr(table, "unique_together", ()):
            self.fresh_combination(table, group, args)
        # Times are set to now: never before the records referenced (which a varied reference may change).
        for c in table.columns:
            if c.name in args and c.semantic in ("timestamp", "date"):
                args[c.name] = self.executor.clock[:10] if c.semantic == "date" else self.executor.clock
        return args

    def fresh(self, table: Table, column: str, value: Any) -> Any:
        for i in range(1, 50):
            candidate = value + 100_000 + i if isinstance(value, int) else f"{value} {i}"
            if not self.conn.execute(f"SELECT 1 FROM {_q(table.name)} WHERE {_q(column)} = ?", (candidate,)).fetchone():
                return candidate
        raise _Mismatch(f"no fresh value for {table.name}.{column}")

    def fresh_combination(self, table: Table, group: tuple[str, ...], args: dict[str, Any]) -> None:
        """Vary one referenced id until the unique combination is new."""
        if not all(c in args for c in group):
            return
        for name in group:
            col = table.column(name)
            if not col.references:
                continue
            ids = [r[0] for r in self.conn.execute(f"SELECT id FROM {_q(col.references)} ORDER BY id LIMIT 500")]
            for candidate in ids:
                trial = {**args, name: candidate}
                where = " AND ".join(f"{_q(c)} = ?" for c in group)
                if not self.conn.execute(
                    f"SELECT 1 FROM {_q(table.name)} WHERE {where}", [trial[c] for c in group]
                ).fetchone():
                    args[name] = candidate
                    return
        raise _Mismatch(f"every combination of {list(group)} is taken")

    def need_table(self) -> Table:
        if self.table is None:
            raise _Mismatch("the tool names no table")
        return self.table

    def wrong_type(self) -> dict[str, Any]:
        props: dict[str, Any] = self.spec.parameters.get("properties", {})
        required = list(self.spec.parameters.get("required", [])) or list(props)
        name = required[0]
        kind = props[name].get("type")
        bad: Any = 12345 if kind == "string" else "not-a-number" if kind in ("integer", "number") else "yes"
        return {name: bad}

    # -- the plan, per kind --------------------------------------------------------------

    def valid(self, case: str) -> None:
        getattr(self, f"valid_{self.spec.kind}")(case)

    def invalid_call(self, case: str) -> tuple[Any, str]:
        """Arguments for a refused call and the error it must give (may prepare a subject on the copy)."""
        code = EXPECTED[case]
        if case == "wrong_type":
            return self.wrong_type(), code
        if case == "missing_field":
            return {}, code
        if case == "unknown_argument":
            return {**self.some_valid_args(), "no_such_argument": 1}, code
        if case == "unknown_id":
            return {**self.some_valid_args(), "id": self.missing_id(self.need_table())}, code
        table = self.need_table()
        if case == "unknown_reference":
            args = self.create_args()
            fk = next(c for c in table.foreign_keys if c.name in self.of(CreateTool).columns)
            args[fk.name] = self.missing_id(self.schema.table(str(fk.references)))
            return args, code
        if case == "duplicate_unique":
            args = self.create_args()
            writes = self.of(CreateTool).columns
            col = next(c for c in table.columns if c.unique and c.name in writes and not c.references)
            taken = self.conn.execute(
                f"SELECT {_q(col.name)} FROM {_q(table.name)} WHERE {_q(col.name)} IS NOT NULL ORDER BY id LIMIT 1"
            ).fetchone()
            if taken is None:
                raise _Mismatch(f"no existing {col.name} to clash with")
            args[col.name] = bool(taken[0]) if col.sql_type == "BOOLEAN" else taken[0]
            return args, code
        if case == "forbidden_transition":
            return self.forbidden(), code
        if case == "final_record":
            status = str(self.of(UpdateTool).status_column)
            final = next(v for v in table.column(status).values or () if terminal(table.column(status), v))
            row = self.in_state(table, status, [final])[0]
            return {"id": row["id"], **self.update_change(row)}, code
        raise _Mismatch(f"unknown probe case {case!r}")

    def some_valid_args(self) -> dict[str, Any]:
        kind = self.spec.kind
        if kind == "aggregate":
            return {"table": self.spec.table, "metric": "count"}
        if kind == "list":
            return {"limit": 1}
        if kind == "create":
            return self.create_args()
        row = self.rows(self.need_table(), limit=1)[0]
        if kind == "update":
            return {"id": row["id"], **self.update_change(row)}
        return {"id": row["id"]}

    def valid_get(self, case: str) -> None:
        row = self.rows(self.need_table(), limit=1)[0]
        if self.ok({"id": row["id"]})["id"] != row["id"]:
            raise _Mismatch("returned another record")

    def valid_list(self, case: str) -> None:
        table = self.need_table()
        total = self.conn.execute(f"SELECT count(*) FROM {_q(table.name)}").fetchone()[0]
        if case == VALID:
            page = self.ok({"limit": 2})
            if page["total"] != total or len(page["items"]) != min(2, total):
                raise _Mismatch(f"unfiltered page: total {page['total']} (table has {total})")
            return
        row = self.rows(table, limit=1)[0]
        filters = self.of(ListTool).columns
        col = next(
            (
                c
                for c in table.columns
                if c.name in filters
                and row[c.name] is not None
                and (c.values or c.references or c.sql_type == "BOOLEAN")
            ),
            None,
        ) or table.column("id")
        value = bool(row[col.name]) if col.sql_type == "BOOLEAN" else row[col.name]
        page = self.ok({col.name: value, "limit": 5})
        expected = self.conn.execute(
            f"SELECT count(*) FROM {_q(table.name)} WHERE {_q(col.name)} = ?", (row[col.name],)
        ).fetchone()[0]
        if page["total"] != expected or any(r[col.name] != value for r in page["items"]):
            raise _Mismatch(f"filter {col.name}={value!r} returned rows that do not match")

    def valid_aggregate(self, case: str) -> None:
        name = case.split(":", 1)[1]
        if name != "grouped":
            total = self.conn.execute(f"SELECT count(*) FROM {_q(name)}").fetchone()[0]
            result = self.ok({"table": name, "metric": "count"})
            if result["groups"] != [{"key": None, "count": total, "value": total}]:
                raise _Mismatch(f"count of {name} is {result['groups']}, the table has {total} rows")
            return
        table = self.need_table()
        measure, group = measure_columns(table)[0].name, group_columns(table)[0].name
        result = self.ok({"table": table.name, "metric": "sum", "column": measure, "group_by": group, "limit": 50})
        expected = self.conn.execute(f"SELECT count(*) FROM {_q(table.name)}").fetchone()[0]
        if result["total_groups"] <= 50 and sum(g["count"] for g in result["groups"]) != expected:
            raise _Mismatch("grouped counts do not add up to the table's rows")

    def valid_create(self, case: str) -> None:
        args = self.create_args()
        created = self.ok(args)
        wrong = [k for k, v in args.items() if created.get(k) != v]
        if wrong:
            raise _Mismatch(f"created record differs from the arguments in {wrong}")

    def update_change(self, row: dict[str, Any]) -> dict[str, Any]:
        """One field set to a value another record has (or its own), never a unique clash."""
        table, spec = self.need_table(), self.of(UpdateTool)
        others = self.rows(table, "WHERE id != ?", (row["id"],), limit=1)
        candidates = [
            (c, others[0][c.name] if others and not c.unique and others[0][c.name] is not None else row[c.name])
            for c in table.columns
            if c.name in spec.columns and row[c.name] is not None
        ]
        # Prefer a real change (another record's value); a unique field can only take its own value again.
        candidates.sort(key=lambda cv: cv[0].unique)
        for c, value in candidates:
            value = bool(value) if c.sql_type == "BOOLEAN" else value
            if not list(self.arguments.iter_errors({"id": row["id"], c.name: value})):
                return {c.name: value}
        status = spec.status_column
        if status is not None:
            return {status: row[status]}
        raise _Mismatch("no field this update can set")

    def valid_update(self, case: str) -> None:
        row = self.editable_row(self.need_table())
        change = self.update_change(row)
        try:
            updated = self.ok({"id": row["id"], **change})
        except _Mismatch:
            # Another record's value may break one of this record's rules: its own value never does.
            change = {k: row[k] for k in change}
            updated = self.ok({"id": row["id"], **change})
        if any(updated[k] != v for k, v in change.items()):
            raise _Mismatch(f"update {change} did not take")

    def valid_delete(self, case: str) -> None:
        table = self.need_table()
        row = self.rows(table, limit=1)[0]
        self.ok({"id": row["id"]})
        if self.conn.execute(f"SELECT 1 FROM {_q(table.name)} WHERE id = ?", (row["id"],)).fetchone():
            raise _Mismatch("the record is still there")

    def valid_transition(self, case: str) -> None:
        table, spec = self.need_table(), self.of(TransitionTool)
        status = spec.status_column
        last = ""
        for row in self.in_state(table, status, list(spec.allowed_from)):
            try:
                result = self.executor.call(self.conn, spec.name, {"id": row["id"]})
            except ToolError as exc:
                last = f"{exc.code}: {exc.message}"
                continue
            errors = list(self.result.iter_errors(result))
            if errors:
                raise _Mismatch(f"result does not match the result schema: {errors[0].message}")
            if result[status] != spec.to:
                raise _Mismatch(f"status is {result[status]!r}, expected {spec.to!r}")
            if spec.sets_time and result[spec.sets_time] != self.executor.clock:
                raise _Mismatch(f"{spec.sets_time} was not set to the clock")
            self.check_cascades(row["id"])
            return
        raise _Mismatch(f"no record in an allowed state could take the transition ({last})")

    def check_cascades(self, row_id: int) -> None:
        for e in self.of(TransitionTool).effects:
            if not isinstance(e, CascadeStatus):
                continue
            marks = ", ".join("?" for _ in e.allowed_from)
            left = self.conn.execute(
                f"SELECT count(*) FROM {_q(e.table)} WHERE {_q(e.ref)} = ? AND {_q(e.column)} IN ({marks})",
                (row_id, *e.allowed_from),
            ).fetchone()[0]
            if left:
                raise _Mismatch(f"{left} {e.table} were not moved to {e.to!r}")

    def forbidden(self) -> dict[str, Any]:
        table, spec = self.need_table(), self.spec
        if isinstance(spec, TransitionTool):
            values = tuple(table.column(spec.status_column).values or ())
            bad = next(v for v in values if v not in spec.allowed_from)
            return {"id": self.in_state(table, spec.status_column, [bad])[0]["id"]}
        update = self.of(UpdateTool)
        status = str(update.status_column)
        values = tuple(table.column(status).values or ())
        transitions = update.transitions or {}
        src, dst = next(
            (s, d)
            for s in values
            for d in values
            if d != s and (d in update.reserved or d not in transitions.get(s, ()))
        )
        return {"id": self.in_state(table, status, [src])[0]["id"], status: dst}


_LOG = "synthenv_probe_log"


def _log_writes(conn: sqlite3.Connection, schema: Schema) -> None:
    """Temporary triggers recording every row written in ``conn`` (this connection only, never the bundle)."""
    conn.execute(f"CREATE TEMP TABLE {_LOG} (tbl TEXT NOT NULL, id INTEGER)")
    for i, table in enumerate(schema.tables):
        label = quote_literal(table.name)
        for event, row in (("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD")):
            conn.execute(
                f"CREATE TEMP TRIGGER {_LOG}_{i}_{event.lower()} AFTER {event} ON main.{_q(table.name)} "
                f"BEGIN INSERT INTO {_LOG} VALUES ({label}, {row}.id); END"
            )


def _writes(conn: sqlite3.Connection) -> int:
    return int(conn.execute(f"SELECT count(*) FROM {_LOG}").fetchone()[0])


def run_probes(schema: Schema, toolset: Toolset, initial: bytes, clock: str) -> ProbeReport:
    """Probe every tool from the initial state; raise :class:`ProbeFailure` naming each tool that fails.

    All tools share one copy of the state: each tool's probes run inside a transaction rolled
    back afterwards, so every tool starts from the initial state and the build pays for one
    copy of the database, not one per tool.
    """
    executor = Executor(schema, toolset, clock)
    report = ProbeReport()
    conn = open_copy(initial)
    try:
        _log_writes(conn, schema)
        for spec in toolset.tools:
            conn.execute("BEGIN")
            try:
                _probe_tool(schema, executor, spec, conn, report)
            finally:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
    finally:
        conn.close()
    if report.failures:
        raise ProbeFailure(f"{len(report.failures)} tool probe(s) failed:\n  " + "\n  ".join(report.failures))
    return report


_PROBE_ERRORS = (_Mismatch, ToolError, KeyError, IndexError, StopIteration, sqlite3.Error)


def _probe_tool(
    schema: Schema, executor: Executor, spec: ToolSpec, conn: sqlite3.Connection, report: ProbeReport
) -> None:
    prober = _Prober(schema, executor, spec, conn)
    cases = plan(spec, schema)

    def attempt(case: str, action: Callable[[], Any]) -> Any:
        try:
            return action()
        except _PROBE_ERRORS as exc:
            report.failures.append(f"tool {spec.name} ({case}): {exc}")
            return None

    refusals: list[tuple[str, Any, str]] = []
    for case in cases:
        report.calls[case.split(":")[0]] += 1
        if not case.startswith(VALID) and (found := attempt(case, partial(prober.invalid_call, case))) is not None:
            refusals.append((case, *found))
    # Refusals first, on the untouched copy (a valid delete may remove the only record); preparing their
    # subjects may write to the copy, so the count is taken after: the refused calls alone must write nothing
    # (a refused call's own savepoint takes its log entries with it; any write it left stays logged).
    before = _writes(conn)
    for case, arguments, code in refusals:
        attempt(case, partial(prober.refused, arguments, code))
    if refusals and _writes(conn) != before:
        report.failures.append(f"tool {spec.name}: a refused call changed the state")
    for case in cases:
        if case.startswith(VALID):
            attempt(case, partial(prober.valid, case))
