"""Isolated sessions over one initial state that pay only for what they write.

Two kinds of session share this class:

* **shared** (``shared=True``, what :class:`~pipeline.runtime.environment.Environment` and
  the server use): the initial state is loaded once per executor into an in-process
  SQLite ``memdb`` database that every session opens by name (``file:/NAME?vfs=memdb``),
  with ``nolock`` so sessions never wait on each other. A session holds one transaction
  open for its whole life and never commits: its writes stay in its own connection's page
  cache (``cache_spill`` off, journal in memory), invisible to every other connection, and
  ``reset`` is a ``ROLLBACK``, so it costs what the episode wrote, not the size of the
  state. A commit would publish the writes to every session, so it is refused by an
  authorizer, and a transaction SQLite ended on its own is reopened before the next call.
  Reads of unwritten pages are memory copies from the shared base into a small
  per-connection cache (:data:`PAGE_CACHE_KB`), so a thousand sessions cost a thousand
  small caches, not a thousand states.

  A state over :data:`~pipeline.bundle.format.IMAGE_LIMIT` (a
  :class:`~pipeline.bundle.format.StateFile`: SQLite caps a memdb database at 1 GiB) gets a
  file-backed base instead: one temporary copy of the state file with the write log built in
  (made when the first shared session opens), which sessions open with ``nolock`` and read
  through the OS page cache (the one shared copy); the verifier reads the state
  file itself through one immutable connection, and a private session is one temporary copy
  with the write log. The rest is the same: the never-committed transaction keeps each session's writes in its own cache
  (with ``cache_spill`` off nothing reaches the file), commits are refused, reset is a
  rollback. The file is removed when the last session of its executor is gone, or, if its
  process ended without finalizers, by the next base made on the host.
* **private** (the default): the session opens its own copy (in memory, or a temporary file
  for a state kept as a file), for build-time code that attaches other databases to the session's connection (SQLite
  cannot detach inside an open transaction).

Every session carries a write log: a table and, on every table of the schema, triggers
that record the id of each row any statement inserts, updates or deletes (side effects
of operations included; a refused call's savepoint rolls its entries back), and each value
a status column takes, in order, so the verifier sees the path a record took as well as
where it ended (a status the policy forbids it to reach, passed through on the way, fails the
task: ``RowChange.avoid``). They are
built once per initial state and executor (:func:`tracked_image`) and live in the base
every session starts from, so a session pays nothing for them. The verifier then
compares just the logged rows with the initial state, read from the shared base through
one read-only connection, so verify costs the same on a 10-row and a million-row table
and covers every table at once: a session that never wrote has nothing to compare, and
any row written outside the task's expected diff is found without scanning anything.

A verification that cannot run (the session is closed or corrupt, the task does not fit
its own initial state, an internal error) is an ``error`` verdict, never a silent 0.0.
"""

from __future__ import annotations

import glob
import itertools
import logging
import os
import socket
import sqlite3
import tempfile
import threading
import weakref
from contextlib import closing
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from pipeline.bundle.format import StateFile, open_state_file
from pipeline.runtime.diff import WRITE_LOG, Touched
from pipeline.runtime.verify import Verdict, Verifier, error_verdict, verify
from pipeline.tools.executor import Executor, ToolSpec, open_copy
from pipeline.world.schema import Schema
from pipeline.world.sqlnames import quote_ident, quote_literal

Watched = tuple[tuple[str, tuple[str, ...]], ...]
"""(table, its status columns) for every table the write log watches."""

log = logging.getLogger("synthenv.verify")

PAGE_CACHE_KB = 256
"""Page cache of each shared session's connection (clean pages; pages it wrote stay until reset)."""
_NAMES = itertools.count()


def _no_commit(action: int, arg1: str | None, *_: Any) -> int:
    """Authorizer of a shared session: a COMMIT would write the session's changes into the shared base."""
    if action == sqlite3.SQLITE_TRANSACTION and arg1 == "COMMIT":
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def _connect(uri: str) -> sqlite3.Connection:
    return sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)


@dataclass(eq=False)
class _Prepared:
    initial: bytes
    tables: Watched
    """The schema's tables and their status columns (what the write log's triggers watch)."""
    uri: str
    """Where sessions open the shared base when it is in memory (a memdb database)."""
    reference: sqlite3.Connection
    """A read-only connection to the initial state (in memory: the shared base itself, which it
    keeps alive; a state file: the file, opened immutable), which every verification reads."""
    resolved: dict[tuple[str, str], int] = field(default_factory=dict)
    """Natural keys of expected changes already resolved to ids in the (immutable) initial state."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @cached_property
    def image(self) -> bytes:
        """The in-memory base serialised: what each private session deserialises."""
        return self.reference.serialize()

    @property
    def on_file(self) -> bool:
        return isinstance(self.initial, StateFile)

    @cached_property
    def base_file(self) -> Path:
        """The shared base of a state file, made when the first shared session opens: a temporary
        copy with the write log built in, removed when this object is collected."""
        assert isinstance(self.initial, StateFile)
        _sweep_stale_bases()
        fd, name = tempfile.mkstemp(prefix=f"{_base_prefix()}{os.getpid()}-", suffix=".sqlite")
        os.close(fd)
        path = Path(name)
        try:
            conn = self.initial.copy(to=path)
            try:
                _add_write_log(conn, self.tables)
            finally:
                conn.close()
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        weakref.finalize(self, path.unlink, missing_ok=True)
        return path

    def connect(self) -> sqlite3.Connection:
        """A new connection to the shared base, for a shared session."""
        if self.on_file:
            with self._lock:
                base = self.base_file
            return open_state_file(base, nolock=True)
        return _connect(self.uri)

    def private(self) -> sqlite3.Connection:
        """A private copy of the base, for a private session."""
        if self.on_file:
            conn = open_copy(self.initial)
            try:
                _add_write_log(conn, self.tables)
            except BaseException:
                conn.close()
                raise
            return conn
        return open_copy(self.image)


def _base_prefix() -> str:
    return f"synthenv-base-{socket.gethostname()}-"


def _sweep_stale_bases() -> None:
    """Remove the base files of this host's processes that are gone.

    A base is removed when its last session is, but a process that ends without running
    finalizers (a ``serve --workers`` worker ends with ``os._exit``; a killed one) leaves its
    copy of the state behind; the file names its host and process, so the next one sweeps it.
    """
    prefix = _base_prefix()
    for path in Path(tempfile.gettempdir()).glob(f"{glob.escape(prefix)}*-*.sqlite"):
        pid = path.name[len(prefix) :].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_PREPARED: weakref.WeakKeyDictionary[Executor, _Prepared] = weakref.WeakKeyDictionary()
"""Per executor (one per loaded bundle): what its sessions share, kept as long as the executor lives, so
a process that builds many bundles holds one base per live bundle at most."""


def _prepared(initial: bytes, executor: Executor) -> _Prepared:
    hit = _PREPARED.get(executor)
    if hit is not None and (hit.initial is initial or hit.initial == initial):
        return hit
    tables = watched(executor.schema)
    if isinstance(initial, StateFile):
        initial.check()
        reference = open_state_file(initial.path, readonly=True)
        uri = ""
    else:
        uri = f"file:/synthenv-{os.getpid()}-{next(_NAMES)}?vfs=memdb&nolock=1"
        with closing(tracked_connection(initial, executor)) as source:
            reference = _connect(uri)
            try:
                source.backup(reference)
            except BaseException:  # not yet owned by anything that would close it
                reference.close()
                raise
    try:
        reference.execute("PRAGMA query_only = ON")
    except BaseException:
        reference.close()
        raise
    prepared = _Prepared(initial, tables, uri, reference)
    # Closed when the bundle's executor (and every session on it) is gone, not left to the garbage
    # collector: an unclosed connection is a ResourceWarning on Python 3.13.
    weakref.finalize(prepared, reference.close)
    _PREPARED[executor] = prepared
    return prepared


def tracked_connection(initial: bytes, executor: Executor) -> sqlite3.Connection:
    """A private copy of ``initial`` plus the write log and its triggers on every table of the schema.

    Building the triggers costs about 0.5 ms per table, so it is done once per state, not per session.
    """
    conn = open_copy(initial)
    try:
        _add_write_log(conn, watched(executor.schema))
    except BaseException:
        conn.close()
        raise
    return conn


def watched(schema: Schema) -> Watched:
    """Every table of ``schema`` with its status columns (:meth:`Schema.status_columns`), whose
    history the write log keeps."""
    return tuple((table.name, tuple(c.name for c in schema.status_columns(table))) for table in schema.tables)


def _add_write_log(conn: sqlite3.Connection, tables: Watched) -> None:
    """The write log table and, on every one of ``tables``, its triggers, committed: one row per row
    written (``col`` null), and one per change of a status column with the value it took, so the
    verifier sees every status a record passed through, not only where it ended."""
    try:
        conn.execute("BEGIN")
        conn.execute(f"CREATE TABLE main.{WRITE_LOG} (tbl TEXT NOT NULL, id INTEGER NOT NULL, col TEXT, val)")
        for i, (table, statuses) in enumerate(tables):
            name, label = quote_ident(table), quote_literal(table)
            for event, row in (("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD")):
                conn.execute(
                    f'CREATE TRIGGER main."{WRITE_LOG}_{i}_{event.lower()}" AFTER {event} ON main.{name} '
                    f"BEGIN INSERT INTO {WRITE_LOG} (tbl, id) VALUES ({label}, {row}.id); END"
                )
            for j, column in enumerate(statuses):
                col, word = quote_ident(column), quote_literal(column)
                conn.execute(
                    f'CREATE TRIGGER main."{WRITE_LOG}_{i}_status_{j}" AFTER UPDATE OF {col} ON main.{name} '
                    f"WHEN NEW.{col} IS NOT OLD.{col} "
                    f"BEGIN INSERT INTO {WRITE_LOG} VALUES ({label}, NEW.id, {word}, NEW.{col}); END"
                )
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def tracked_image(initial: bytes, executor: Executor) -> bytes:
    """``initial`` plus the write log and its triggers, serialised."""
    conn = tracked_connection(initial, executor)
    try:
        return conn.serialize()
    finally:
        conn.close()


def _close_each(conns: list[sqlite3.Connection]) -> None:
    for conn in conns:
        conn.close()


class Session:
    """One agent's view of the state, with the tools and verifier bound to it (see the module docstring)."""

    def __init__(self, initial: bytes, executor: Executor, *, shared: bool = False) -> None:
        self._initial = initial
        self.executor = executor
        self.shared = shared
        self._prepared = _prepared(initial, executor)
        # The connection a session holds is closed when the session goes, even unclosed: a trainer's
        # environment factory (TRL's) makes instances and never closes them.
        self._held: list[sqlite3.Connection] = []
        self._finalizer = weakref.finalize(self, _close_each, self._held)
        self.conn = self._open()

    def _open(self) -> sqlite3.Connection:
        conn = self._connect()
        self._held[:] = [conn]
        return conn

    def _connect(self) -> sqlite3.Connection:
        if not self.shared:
            return self._prepared.private()
        conn = self._prepared.connect()
        try:
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KB}")
            conn.execute("PRAGMA cache_spill = OFF")
            conn.execute("PRAGMA journal_mode = MEMORY")
            conn.execute("PRAGMA temp_store = MEMORY")
            conn.set_authorizer(_no_commit)
            conn.execute("BEGIN")
        except BaseException:
            conn.close()
            raise
        return conn

    def _in_episode(self) -> sqlite3.Connection:
        """The connection, inside the session's transaction (reopened if SQLite ended it after an error)."""
        conn = self.conn
        if self.shared and not conn.in_transaction:
            conn.execute("BEGIN")
        return conn

    def reset(self) -> None:
        """Back to the initial state: a rollback when shared (costs what was written), else a fresh copy."""
        if self.shared:
            try:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                self.conn.execute("BEGIN")
                return
            except sqlite3.Error:  # closed or broken: start over on a new connection
                log.warning("session connection unusable; reopening it")
        self.conn.close()
        self.conn = self._open()

    def call(self, tool: str, arguments: Any) -> Any:
        """Validate and run one tool call."""
        return self.executor.call(self._in_episode(), tool, arguments)

    def run(self, spec: ToolSpec, arguments: dict[str, Any]) -> Any:
        """Run a call whose arguments :meth:`Executor.validate` already accepted."""
        return self.executor.run(self._in_episode(), spec, arguments)

    def touched(self) -> Touched:
        """Ids of rows written in this session, per table."""
        out: Touched = {}
        for table, row_id in self.conn.execute(f"SELECT DISTINCT tbl, id FROM {WRITE_LOG}"):
            out.setdefault(table, set()).add(row_id)
        return out

    def verify(self, verifier: Verifier, answer: Any) -> Verdict:
        """The verdict on the current state and ``answer``; status ``error`` if it could not be reached.

        Reads only the rows this session wrote, here and through the shared read-only connection to
        the initial state, so it attaches nothing and works inside an open savepoint too.
        """
        try:
            return verify(
                self.conn,
                verifier,
                answer,
                initial=self._prepared.reference,
                touched=self.touched(),
                resolved=self._prepared.resolved,
            )
        except Exception as exc:  # reported as an error verdict so a trainer can mask it
            log.warning("verification could not run: %s", exc)
            return error_verdict(exc)

    def close(self) -> None:
        self._finalizer()  # closes the connection, once
