"""Isolated sessions over one initial state.

The initial database is serialised once; every session deserialises its own in-memory
copy (a memcpy, well under a millisecond for small states), so reset is cheap, sessions
never see each other and no episode needs its own process.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from pipeline.runtime.executor import Executor
from pipeline.verify import Verdict, Verifier, verify


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

    def call(self, tool: str, arguments: Any) -> Any:
        return self.executor.call(self.conn, tool, arguments)

    def verify(self, verifier: Verifier, answer: Any) -> Verdict:
        self.conn.execute("ATTACH DATABASE ':memory:' AS init")
        try:
            self.conn.deserialize(self._initial, name="init")
            return verify(self.conn, verifier, answer, initial="init")
        finally:
            self.conn.execute("DETACH DATABASE init")

    def close(self) -> None:
        self.conn.close()
