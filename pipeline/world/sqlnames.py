"""One way to put a table or column name into SQL text.

Names come from schema.json, which a hostile bundle controls: every module that builds
SQL quotes identifiers through :func:`quote_ident`, so a name can never end the quoted
identifier and add SQL of its own.
"""

from __future__ import annotations


def quote_ident(name: str) -> str:
    """``orders`` -> ``"orders"``; an embedded ``"`` is doubled, as SQLite and DuckDB expect."""
    return '"' + name.replace('"', '""') + '"'
