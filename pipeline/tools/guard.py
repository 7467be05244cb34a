"""What every write must keep true, and the bookkeeping a status change implies.

The executor asks the guard three things. Before a generic update: is the record in a final
status (a paid invoice, a voided order), which no generic update may edit? After any write:
do the rows it wrote, and the rows that read them (children whose rules or creation times
refer to them), still pass every row check of :mod:`pipeline.world.checks` (declared
business rules, time order, status times)? The check is the same SQL the realism check runs
over a whole generated database, here restricted to the written rows, inside the call's
savepoint, so a refused write leaves nothing behind. And when a status changes: which
status-history rows to write (from, to, when, by whom), so the history tells the same story
as the record.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Iterable

from pipeline.world.checks import RowCheck, row_checks
from pipeline.world.schema import Schema, Table, code_prefix
from pipeline.world.sqlnames import quote_ident as _q
from pipeline.world.timeline import terminal

API_ACTOR = "api"
"""Who a status-history row written through the tools names as having made the change."""

Touched = dict[str, set[int]]


class Guard:
    """Row checks, final statuses and status histories of one schema, ready for the executor."""

    def __init__(self, schema: Schema, clock: str) -> None:
        self.schema, self.clock = schema, clock
        self._own: dict[str, list[RowCheck]] = defaultdict(list)
        self._readers: dict[str, list[tuple[RowCheck, str]]] = defaultdict(list)
        for check in row_checks(schema):
            self._own[check.table].append(check)
            for fk, parent in check.parents:
                self._readers[parent].append((check, fk))
        self._histories: dict[tuple[str, str], list[Table]] = defaultdict(list)
        for t in schema.tables:
            if t.history is not None:
                self._check_history_table(t)
                self._histories[(t.history.of, t.history.status)].append(t)

    # -- final statuses ----------------------------------------------------------------------

    def final_status(self, table: Table, row: dict[str, object]) -> tuple[str, str] | None:
        """(status column, value) when the record sits in a status with no way out."""
        for c in table.columns:
            if c.semantic == "status" and c.transitions and terminal(c, str(row.get(c.name))):
                return c.name, str(row[c.name])
        return None

    # -- row checks ----------------------------------------------------------------------------

    def violation(self, conn: sqlite3.Connection, touched: Touched) -> str | None:
        """The message of the first check a written row (or a row reading it) now breaks, else None."""
        for table, ids in touched.items():
            if not ids:
                continue
            marks = ", ".join("?" for _ in ids)
            params = sorted(ids)
            for check in self._own.get(table, ()):
                sql = f"SELECT r.id FROM {_q(table)} r WHERE r.id IN ({marks}) AND ({check.sql}) LIMIT 1"
                hit = conn.execute(sql, params).fetchone()
                if hit is not None:
                    return f"{self._noun(table)} {hit[0]}: {check.message}"
            for check, fk in self._readers.get(table, ()):
                sql = f"SELECT r.id FROM {_q(check.table)} r WHERE r.{_q(fk)} IN ({marks}) AND ({check.sql}) LIMIT 1"
                hit = conn.execute(sql, params).fetchone()
                if hit is not None:
                    return f"{self._noun(check.table)} {hit[0]} would break a rule: {check.message}"
        return None

    def _noun(self, table: str) -> str:
        return self.schema.table(table).noun

    # -- status history ------------------------------------------------------------------------

    def _check_history_table(self, table: Table) -> None:
        h = table.history
        if h is None:
            return
        known = {h.via, h.source, h.target, h.at, "id"}
        for c in table.columns:
            fillable = c.nullable or c.semantic in ("code", "username", "timestamp", "date", "boolean")
            if c.name not in known and not fillable:
                raise ValueError(f"status history {table.name}: no value to write for required column {c.name!r}")

    def record(
        self, conn: sqlite3.Connection, table: Table, status: str, changes: Iterable[tuple[int, str, str]]
    ) -> Touched:
        """Write one history row per (record id, from, to) into every history of ``table.status``."""
        touched: Touched = defaultdict(set)
        for history in self._histories.get((table.name, status), ()):
            h = history.history
            if h is None:
                continue
            for record_id, source, target in changes:
                values: dict[str, object] = {h.via: record_id, h.source: source, h.target: target, h.at: self.clock}
                for c in history.columns:
                    if c.name in values or c.primary_key:
                        continue
                    if c.semantic == "code" and c.unique:
                        values[c.name] = self._next_code(conn, history, c.name, h.via, record_id)
                    elif c.semantic == "username":
                        values[c.name] = API_ACTOR
                    elif c.semantic == "timestamp":
                        values[c.name] = self.clock
                    elif c.semantic == "date":
                        values[c.name] = self.clock[:10]
                    elif c.semantic == "boolean" and not c.nullable:
                        values[c.name] = 0
                names = list(values)
                cur = conn.execute(
                    f"INSERT INTO {_q(history.name)} ({', '.join(_q(n) for n in names)}) "
                    f"VALUES ({', '.join('?' for _ in names)})",
                    [values[n] for n in names],
                )
                touched[history.name].add(int(cur.lastrowid or 0))
        return touched

    def _next_code(self, conn: sqlite3.Connection, history: Table, column: str, via: str, record_id: int) -> str:
        """``ASC-1042-3``: the record and its change number, as population writes them; never another record's."""
        prefix = code_prefix(history)
        step = int(
            conn.execute(f"SELECT count(*) FROM {_q(history.name)} WHERE {_q(via)} = ?", (record_id,)).fetchone()[0]
        )
        while True:
            step += 1
            code = f"{prefix}-{record_id}-{step}"
            if conn.execute(f"SELECT 1 FROM {_q(history.name)} WHERE {_q(column)} = ?", (code,)).fetchone() is None:
                return code
