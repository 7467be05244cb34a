"""One way to put a table or column name, or a text value, into SQL text.

Names come from schema.json, which a hostile bundle controls: every module that builds
SQL quotes identifiers through :func:`quote_ident` and text through :func:`quote_literal`,
so a name or a value can never end its quotes and add SQL of its own.
"""

from __future__ import annotations


def quote_ident(name: str) -> str:
    """``orders`` -> ``"orders"``; an embedded ``"`` is doubled, as SQLite and DuckDB expect."""
    return '"' + name.replace('"', '""') + '"'


def quote_literal(value: str) -> str:
    """``O'Brien`` -> ``'O''Brien'``: a text value as an SQL string literal (an embedded ``'`` doubled)."""
    return "'" + value.replace("'", "''") + "'"
