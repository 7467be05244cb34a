"""Where a session's state differs from the initial state: the rows each table gained, changed and lost.

The verifier (:mod:`pipeline.runtime.verify`) judges these differences; the task proof
(:mod:`pipeline.tasks.proof`) reads them to learn what a reference solution writes. With the
session's write log only the rows it names are compared, so the cost is what the episode wrote.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pipeline.world.sqlnames import quote_ident as _q

WRITE_LOG = "synthenv_touched"
"""The session's write log (see :mod:`pipeline.runtime.session`): bookkeeping, not state."""


@contextmanager
def read_only(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    conn.execute("PRAGMA query_only = ON")
    try:
        yield conn
    finally:
        conn.execute("PRAGMA query_only = OFF")


def _rows(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
    cur = conn.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


Touched = dict[str, set[int]]
"""Ids of rows each table's triggers saw written in this session (see runtime.session)."""

Initial = str | sqlite3.Connection
"""Where the initial state is: the name of a schema attached to the session's connection, or a
(read-only) connection of its own, which spares attaching a copy for every verification."""


def initial_table(conn: sqlite3.Connection, initial: Initial, table: str) -> tuple[sqlite3.Connection, str]:
    """The connection holding the initial state and the qualified name of ``table`` in it."""
    if isinstance(initial, str):
        return conn, f"{_q(initial)}.{_q(table)}"
    return initial, f"main.{_q(table)}"


_NO_CHANGE: dict[str, Any] = {"inserted": [], "updated": [], "deleted": [], "written": []}


def user_tables(conn: sqlite3.Connection, schema: str = "main") -> list[str]:
    return [
        r[0]
        for r in conn.execute(
            f"SELECT name FROM {_q(schema)}.sqlite_master "
            "WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
        if r[0] != WRITE_LOG
    ]


def table_diff(
    conn: sqlite3.Connection, table: str, initial: Initial = "init", touched: Touched | None = None
) -> dict[str, Any]:
    """Rows of ``table`` inserted, updated (before and after) and deleted relative to ``initial``.

    With ``touched`` (ids recorded by the session's write triggers) only those rows are
    compared, which keeps verification cost independent of table size, and ``written``
    lists the ids written without a net change; without it the whole table is compared
    (and ``written`` is always empty), which needs ``initial`` attached to ``conn``.
    """
    if touched is not None:
        return _touched_diff(conn, _q(table), *initial_table(conn, initial, table), sorted(touched.get(table, ())))
    if not isinstance(initial, str):
        raise ValueError("comparing whole tables needs the initial state attached to the same connection")
    t, i = _q(table), f"{_q(initial)}.{_q(table)}"
    same = conn.execute(
        f"SELECT NOT EXISTS (SELECT * FROM main.{t} EXCEPT SELECT * FROM {i}) "
        f"AND NOT EXISTS (SELECT * FROM {i} EXCEPT SELECT * FROM main.{t})"
    ).fetchone()[0]
    if same:
        return {k: [] for k in _NO_CHANGE}
    inserted = _rows(conn, f"SELECT * FROM main.{t} WHERE id NOT IN (SELECT id FROM {i}) ORDER BY id")
    deleted = _rows(conn, f"SELECT * FROM {i} WHERE id NOT IN (SELECT id FROM main.{t}) ORDER BY id")
    after = _rows(
        conn,
        f"SELECT * FROM (SELECT * FROM main.{t} EXCEPT SELECT * FROM {i}) WHERE id IN (SELECT id FROM {i}) ORDER BY id",
    )
    before = (
        {
            r["id"]: r
            for r in _rows(
                conn, f"SELECT * FROM {i} WHERE id IN ({','.join('?' * len(after))}) ", tuple(r["id"] for r in after)
            )
        }
        if after
        else {}
    )
    updated = [(before[r["id"]], r) for r in after]
    return {"inserted": inserted, "updated": updated, "deleted": deleted, "written": []}


def _touched_diff(conn: sqlite3.Connection, t: str, init: sqlite3.Connection, i: str, ids: list[int]) -> dict[str, Any]:
    if not ids:
        return {k: [] for k in _NO_CHANGE}
    marks = ",".join("?" * len(ids))
    now = {r["id"]: r for r in _rows(conn, f"SELECT * FROM main.{t} WHERE id IN ({marks})", tuple(ids))}
    then = {r["id"]: r for r in _rows(init, f"SELECT * FROM {i} WHERE id IN ({marks})", tuple(ids))}
    return {
        "inserted": [now[k] for k in ids if k in now and k not in then],
        "updated": [(then[k], now[k]) for k in ids if k in now and k in then and now[k] != then[k]],
        "deleted": [then[k] for k in ids if k in then and k not in now],
        "written": [k for k in ids if now.get(k) == then.get(k)],
    }
