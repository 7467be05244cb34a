"""Names and text values put into SQL text: one quoting each, and neither can end its quotes."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest

from pipeline.world.sqlnames import quote_ident, quote_literal

HOSTILE = ["plain", 'with "double" quotes', "it's", "x'); DROP TABLE t; --", 'y"; DROP TABLE t; --', ""]


@pytest.mark.parametrize("value", HOSTILE)
def test_a_quoted_value_reads_back_as_itself(value: str) -> None:
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.execute("CREATE TABLE t (x)")
        assert conn.execute(f"SELECT {quote_literal(value)}").fetchone() == (value,)
        assert conn.execute("SELECT count(*) FROM t").fetchone() == (0,)  # nothing else ran


@pytest.mark.parametrize("name", [n for n in HOSTILE if n])
def test_a_quoted_name_names_exactly_that_table(name: str) -> None:
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.execute(f"CREATE TABLE {quote_ident(name)} ({quote_ident(name)} TEXT)")
        conn.execute(f"INSERT INTO {quote_ident(name)} VALUES ({quote_literal(name)})")
        assert conn.execute(f"SELECT {quote_ident(name)} FROM {quote_ident(name)}").fetchall() == [(name,)]
        tables = {r for (r,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert tables == {"t", name}
