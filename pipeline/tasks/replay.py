"""One copy of the initial state for every replay a proof needs, each undone by a rollback.

Proving a task replays its reference and the exploit library's attempts, dozens of times
per task. Giving each replay a fresh copy of the state costs a copy of the whole
database (a memcpy that grows with the rows), so a million-row state spent most of its
build copying. Here one tracked session (the runtime's own :class:`Session`, write log
included) holds the state; a replay runs inside a transaction that is rolled back when
another replay needs the connection, which costs only what the replayed calls wrote.
What a replay sees is exactly what a fresh copy would show: the rollback restores every
row, the write log and the next auto id.

Argument validation is a pure function of (tool, arguments), and a replay repeats the
same few calls hundreds of times, so :class:`ReplayExecutor` validates each distinct call
once. A read made while the session still holds the initial state (nothing written since the
replay began, which SQLite's count of changed rows shows) is a pure function of the call too:
the exploit library's attempts replay the reference's listings over and over, each a scan of a
large table, so such a read is run once per build and its result handed out as a copy.
"""

from __future__ import annotations

import json
import pickle
import sqlite3
from collections.abc import Iterable
from typing import Any

from pipeline.runtime.session import Session
from pipeline.runtime.task import ToolCall
from pipeline.tools.executor import READ_KINDS, Executor, ToolError, open_reading
from pipeline.tools.specs import ToolSpec
from pipeline.world.sqlnames import quote_ident

Rows = dict[str, dict[int, tuple[Any, ...]]]
"""Per table, the rows a replay wrote as they are afterwards (a deleted row is absent)."""


class ReplayExecutor(Executor):
    """The same executor, remembering which calls already passed validation (build time only)."""

    def __init__(self, executor: Executor) -> None:
        super().__init__(executor.schema, executor.toolset, executor.clock)
        self._valid: dict[str, ToolSpec] = {}
        self._initial: tuple[sqlite3.Connection, int] | None = None
        """The replay connection and its count of changed rows when it last held the initial state."""
        self._reads: dict[str, bytes] = {}
        """Results of reads made on the initial state, pickled (each caller unpickles its own copy)."""

    def at_initial(self, conn: sqlite3.Connection) -> None:
        """``conn`` holds the initial state now: until it changes a row, its reads may be shared."""
        self._initial = (conn, conn.total_changes)

    def run(self, conn: sqlite3.Connection, spec: ToolSpec, arguments: dict[str, Any]) -> Any:
        initial = self._initial
        if spec.kind not in READ_KINDS or initial is None or initial[0] is not conn or conn.total_changes != initial[1]:
            return super().run(conn, spec, arguments)
        try:
            key = json.dumps([spec.name, arguments], sort_keys=True, allow_nan=False)
        except (TypeError, ValueError):
            return super().run(conn, spec, arguments)
        held = self._reads.get(key)
        if held is not None:
            return pickle.loads(held)
        result = super().run(conn, spec, arguments)
        self._reads[key] = pickle.dumps(result, pickle.HIGHEST_PROTOCOL)
        return result

    def validate(self, name: str, arguments: Any, *, plain_json: bool = False) -> ToolSpec:
        try:
            key = json.dumps([name, arguments], sort_keys=True, allow_nan=False)
        except (TypeError, ValueError):
            return super().validate(name, arguments, plain_json=plain_json)
        spec = self._valid.get(key)
        if spec is None:
            spec = super().validate(name, arguments)
            self._valid[key] = spec
        return spec


def replay_executor(executor: Executor) -> Executor:
    return executor if isinstance(executor, ReplayExecutor) else ReplayExecutor(executor)


def _written(conn: sqlite3.Connection, touched: dict[str, set[int]]) -> Rows:
    out: Rows = {}
    for table, ids in touched.items():
        marks = ",".join("?" * len(ids))
        cur = conn.execute(f"SELECT * FROM {quote_ident(table)} WHERE id IN ({marks})", sorted(ids))
        out[table] = {r[0]: tuple(r) for r in cur.fetchall()}
    return out


class Replayer:
    """The initial state, one tracked session over it, and a read-only reference copy.

    ``enter(key, calls)`` puts the session in the state those calls leave (replaying them
    after rolling back whatever was there, unless ``key`` is already live); ``reset()``
    returns it to the initial state. Only one replayed state is live at a time.
    """

    def __init__(self, initial: bytes, executor: Executor, reference: sqlite3.Connection | None = None) -> None:
        self.initial = initial
        self.executor = replay_executor(executor)
        self.session = Session(initial, self.executor)
        self._own_reference = reference is None
        self.reference = reference if reference is not None else open_reading(initial)
        self._key: str | None = None
        self.first_error: ToolError | None = None
        """The first call the live replay's tools refused (None when every call went through)."""
        self._seen: dict[str, ToolError | None] = {}
        """Keys replayed in full before, with their first refusal: entering one again replays only its
        writes (and required calls), since reads change nothing; the same state, without a read of a
        large table each time attempts take turns on the session."""

    @property
    def conn(self) -> sqlite3.Connection:
        return self.session.conn

    def reset(self) -> None:
        if self.session.conn.in_transaction:
            self.session.conn.execute("ROLLBACK")
        self._key = None
        self.first_error = None

    def enter(self, key: str, calls: Iterable[ToolCall], required: Iterable[int] | None = ()) -> bool:
        """Replay ``calls`` from the initial state; False when a call at ``required`` is refused
        (then the state is reset). ``required=None`` requires every call and raises its ToolError."""
        if self._key == key:
            return True
        self.reset()
        self.session.conn.execute("BEGIN")
        if isinstance(self.executor, ReplayExecutor):
            self.executor.at_initial(self.session.conn)
        self._key = key
        need = None if required is None else set(required)
        again = need is not None and key in self._seen
        for i, call in enumerate(calls):
            if again and need is not None and i not in need and self._reads(call.tool):
                continue  # a read changes nothing, and this replay's refusals are already known
            try:
                self.session.call(call.tool, dict(call.arguments))
            except ToolError as exc:
                if need is None:
                    self.reset()
                    raise
                if self.first_error is None:
                    self.first_error = exc
                if i in need:
                    self.reset()
                    return False
        if again:
            self.first_error = self._seen[key]
        elif need is not None:
            self._seen[key] = self.first_error
        return True

    def _reads(self, tool: str) -> bool:
        try:
            return self.executor.spec(tool).mode == "read"
        except ToolError:
            return False

    def written(self) -> tuple[dict[str, set[int]], Rows]:
        """The live state's write log and the rows it names as they are now."""
        touched = self.session.touched()
        return touched, _written(self.session.conn, touched)

    def same_as(self, other: tuple[dict[str, set[int]], Rows]) -> bool:
        """Whether the live state holds the same rows as the state ``other`` (from :meth:`written`) described.

        Only rows either state wrote can differ; a row the other state did not write is read
        from the reference copy of the initial state.
        """
        mine, theirs = self.session.touched(), other[0]
        for table in set(mine) | set(theirs):
            ids = sorted(mine.get(table, set()) | theirs.get(table, set()))
            select = f"SELECT * FROM {quote_ident(table)} WHERE id IN ({','.join('?' * len(ids))})"
            here = self.session.conn.execute(select + " ORDER BY id", ids)
            initial = {r[0]: tuple(r) for r in self.reference.execute(select, ids).fetchall()}
            wrote = theirs.get(table, set())
            rows = other[1].get(table, {})
            there = [row for i in ids if (row := rows.get(i) if i in wrote else initial.get(i)) is not None]
            if [tuple(r) for r in here.fetchall()] != there:
                return False
        return True

    def close(self) -> None:
        self.reset()
        self.session.close()
        if self._own_reference:
            self.reference.close()
