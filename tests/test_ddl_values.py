"""``unreadable_values``: every stored value a tool could not return is reported, per column.

A one-table schema built in memory, rows written with the CHECK constraints switched off, so
each test holds exactly the hostile value it names. The text cases cover every way bytes fail
the strict UTF-8 decoder sqlite3 uses, wherever they sit in the value (first byte, last byte,
after an embedded NUL), and the valid text that must still pass.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from pipeline.world.ddl import ddl_statements, unreadable_values
from pipeline.world.schema import Schema

SCHEMA = Schema.model_validate(
    {
        "name": "values",
        "domain": "values",
        "title": "Values",
        "description": "One table with a column of every stored type.",
        "tables": [
            {
                "name": "items",
                "entity": "item",
                "description": "Items.",
                "label": "item",
                "rows": 3,
                "columns": [
                    {"name": "id", "sql_type": "INTEGER", "semantic": "id", "primary_key": True},
                    {"name": "title", "sql_type": "TEXT", "semantic": "text"},
                    {"name": "note", "sql_type": "TEXT", "semantic": "text", "nullable": True},
                    {"name": "status", "sql_type": "TEXT", "semantic": "enum", "values": ["open", "closed"]},
                    {"name": "price", "sql_type": "REAL", "semantic": "money", "min": 0},
                    {"name": "active", "sql_type": "BOOLEAN", "semantic": "flag"},
                    {"name": "stock", "sql_type": "INTEGER", "semantic": "count", "nullable": True},
                ],
            }
        ],
    }
)


@pytest.fixture
def conn() -> Iterator[sqlite3.Connection]:
    """The schema's table with three readable rows."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    for statement in ddl_statements(SCHEMA):
        db.execute(statement)
    db.executemany(
        "INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (1, "Lamp", None, "open", 9.5, 1, 4),
            (2, "Desk", "oak", "closed", 120.0, 0, None),
            (3, "Mug", "", "open", 0, 1, 0),
        ],
    )
    yield db
    db.close()


def _set(conn: sqlite3.Connection, column: str, sql_value: str, row: int = 1) -> None:
    """Write one value with the CHECK constraints off (then on again: quick_check skips them while off)."""
    conn.execute("PRAGMA ignore_check_constraints = ON")
    assert conn.execute(f"UPDATE items SET {column} = {sql_value} WHERE id = ?", (row,)).rowcount == 1
    conn.execute("PRAGMA ignore_check_constraints = OFF")


def test_a_readable_state_has_no_problems(conn: sqlite3.Connection) -> None:
    assert unreadable_values(SCHEMA, conn) == []


NOT_UTF8 = {
    "lead byte before ASCII": "X'C328'",
    "lead byte last": "'Lamp' || X'C3'",
    "continuation byte first": "X'80' || 'Lamp'",
    "continuation byte after ASCII": "'La' || X'BF' || 'mp'",
    "continuation after a whole character": "'caf' || X'C3A9' || X'A9'",
    "truncated three-byte sequence": "'x' || X'E282'",
    "overlong slash": "X'C0AF'",
    "surrogate": "X'EDA080'",
    "past U+10FFFF": "X'F4908080'",
    "byte FF": "X'FF'",
    "after an embedded NUL": "'a' || X'00' || X'FF'",
}


@pytest.mark.parametrize("case", list(NOT_UTF8))
def test_text_that_is_not_utf8_is_reported(conn: sqlite3.Connection, case: str) -> None:
    _set(conn, "title", f"CAST({NOT_UTF8[case]} AS TEXT)")
    assert unreadable_values(SCHEMA, conn) == ["items.title: 1 text value(s) that are not UTF-8"]


READABLE = {
    "accents and CJK": "'Crème brûlée 茶'",
    "four-byte character": "'mug ' || char(128512)",
    "replacement character": "char(65533)",
    "embedded NUL": "'a' || char(0) || 'b'",
    "empty": "''",
}


@pytest.mark.parametrize("case", list(READABLE))
def test_valid_text_passes(conn: sqlite3.Connection, case: str) -> None:
    _set(conn, "title", READABLE[case])
    _set(conn, "note", READABLE[case], row=2)
    assert unreadable_values(SCHEMA, conn) == []


def test_counts_are_per_column(conn: sqlite3.Connection) -> None:
    _set(conn, "title", "CAST(X'C328' AS TEXT)", row=1)
    _set(conn, "title", "CAST(X'80' AS TEXT)", row=2)
    _set(conn, "note", "CAST(X'FF' AS TEXT)", row=3)
    assert unreadable_values(SCHEMA, conn) == [
        "items.title: 2 text value(s) that are not UTF-8",
        "items.note: 1 text value(s) that are not UTF-8",
    ]


def test_bytes_in_a_value_list_column_are_refused_by_its_check(conn: sqlite3.Connection) -> None:
    """A column with a list of values is not decoded: its CHECK already admits only those literals."""
    _set(conn, "status", "CAST(X'6F70656EFF' AS TEXT)")
    problems = unreadable_values(SCHEMA, conn)
    assert len(problems) == 1
    assert problems[0].startswith("PRAGMA quick_check: CHECK constraint failed")


WRONG_STORAGE = {
    "blob in text": ("title", "X'00FF'", "items.title: 1 value(s) not TEXT or not finite"),
    "text in integer": ("stock", "'seven'", "items.stock: 1 value(s) not INTEGER or not finite"),
    "real in integer": ("stock", "2.5", "items.stock: 1 value(s) not INTEGER or not finite"),
    "blob in integer": ("stock", "X'07'", "items.stock: 1 value(s) not INTEGER or not finite"),
    "real in boolean": ("active", "0.5", "items.active: 1 value(s) not BOOLEAN or not finite"),
    "text in real": ("price", "'cheap'", "items.price: 1 value(s) not REAL or not finite"),
    "blob in real": ("price", "X'01'", "items.price: 1 value(s) not REAL or not finite"),
    "infinite real": ("price", "9e999", "items.price: 1 value(s) not REAL or not finite"),
    "negative infinity": ("price", "-9e999", "items.price: 1 value(s) not REAL or not finite"),
}


# (A number written to a TEXT column is stored as text: its affinity converts it.)


@pytest.mark.parametrize("case", list(WRONG_STORAGE))
def test_a_value_of_the_wrong_storage_class_is_reported(conn: sqlite3.Connection, case: str) -> None:
    column, value, expected = WRONG_STORAGE[case]
    _set(conn, column, value)
    problems = unreadable_values(SCHEMA, conn)
    assert expected in problems
    assert not [p for p in problems if "not UTF-8" in p]


def test_an_integer_stored_in_a_real_column_is_allowed(conn: sqlite3.Connection) -> None:
    _set(conn, "price", "CAST(7 AS INTEGER)")
    assert unreadable_values(SCHEMA, conn) == []


def test_null_where_the_schema_allows_it_passes(conn: sqlite3.Connection) -> None:
    _set(conn, "note", "NULL", row=2)
    _set(conn, "stock", "NULL", row=3)
    assert unreadable_values(SCHEMA, conn) == []


def test_the_connection_text_factory_is_restored(conn: sqlite3.Connection) -> None:
    conn.text_factory = bytes
    unreadable_values(SCHEMA, conn)
    assert conn.text_factory is bytes
    _set(conn, "title", "CAST(X'FF' AS TEXT)")
    conn.text_factory = str
    unreadable_values(SCHEMA, conn)
    assert conn.text_factory is str
