"""Isolated sessions over one initial state.

The initial database is serialised once; every session deserialises its own in-memory
copy (a memcpy, well under a millisecond for small states), so reset is cheap, sessions
never see each other and no episode needs its own process.

Before a session's first write, temporary triggers start recording the id of every row
any statement inserts, updates or deletes (side effects of operations included). The
verifier then compares just those rows with the initial state, so verify costs the same
on a 10-row and a million-row table; a session that never wrote has nothing to compare.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from pipeline.runtime.executor import Executor
from pipeline.verify import Touched, Verdict, Verifier, verify

LOG = "synthenv_touched"


def serialise(path: Path) -> bytes:
    src = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True)
    try:
        return src.serialize()
    finally:
        src.close()


def open_copy(initial: bytes) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    conn.deserialize(initial)
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


class Session:
    """One agent's private copy of the state, with the tools and verifier bound to it."""

    def __init__(self, initial: bytes, executor: Executor) -> None:
        self._initial = initial
        self.executor = executor
        self.conn = open_copy(initial)
        self._tracking = False

    def call(self, tool: str, arguments: Any) -> Any:
        if not self._tracking and self.executor.spec(tool).mode == "write":
            self._track_writes()
        return self.executor.call(self.conn, tool, arguments)

    def _track_writes(self) -> None:
        conn = self.conn
        conn.execute(f"CREATE TEMP TABLE {LOG} (tbl TEXT NOT NULL, id INTEGER NOT NULL)")
        for table in self.executor.schema.tables:
            name = table.name.replace('"', '""')
            label = table.name.replace("'", "''")
            for event, row in (("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD")):
                conn.execute(
                    f'CREATE TEMP TRIGGER "{LOG}_{name}_{event.lower()}" AFTER {event} ON main."{name}" '
                    f"BEGIN INSERT INTO {LOG} VALUES ('{label}', {row}.id); END"
                )
        self._tracking = True

    def touched(self) -> Touched:
        """Ids of rows written in this session, per table (empty before the first write)."""
        if not self._tracking:
            return {}
        out: Touched = {}
        for table, row_id in self.conn.execute(f"SELECT DISTINCT tbl, id FROM {LOG}"):
            out.setdefault(table, set()).add(row_id)
        return out

    def verify(self, verifier: Verifier, answer: Any) -> Verdict:
        self.conn.execute("ATTACH DATABASE ':memory:' AS init")
        try:
            self.conn.deserialize(self._initial, name="init")
            return verify(self.conn, verifier, answer, initial="init", touched=self.touched())
        finally:
            self.conn.execute("DETACH DATABASE init")

    def close(self) -> None:
        self.conn.close()
