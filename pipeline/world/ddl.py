"""DDL for every supported dialect, derived from the canonical schema by SQLAlchemy.

SQLite is the environment state: it has no enum, boolean or timestamp types, so those
become TEXT/INTEGER with explicit CHECKs (values, 0/1, fixed-width ISO text). PostgreSQL
and DuckDB get their native BOOLEAN, TIMESTAMP and DATE types instead. DuckDB is
compiled with the PostgreSQL dialect, except that keys are plain INTEGER (DuckDB has no
SERIAL) and reals are DOUBLE (DuckDB's FLOAT is single precision).
"""

from __future__ import annotations

import hashlib
import sqlite3
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.schema import CreateIndex, CreateTable

from pipeline.world.sqlnames import quote_ident

if TYPE_CHECKING:
    from pipeline.world.schema import Column, Schema

DIALECTS = ("sqlite", "postgresql", "duckdb")
MAX_IDENTIFIER = 63
"""PostgreSQL's limit; longer constraint names are shortened with a stable hash."""


def _check_dialect(dialect: str) -> None:
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}; choose one of {', '.join(DIALECTS)}")


def _sa_type(column: Column, dialect: str) -> sa.types.TypeEngine:
    if dialect != "sqlite":
        if column.semantic == "timestamp":
            return sa.DateTime()
        if column.semantic == "date":
            return sa.Date()
        if column.sql_type == "REAL":
            return sa.Double()
    return {
        "INTEGER": sa.Integer(),
        "REAL": sa.Float(),
        "BOOLEAN": sa.Boolean(create_constraint=False),
        "TEXT": sa.Text(),
    }[column.sql_type]


def constraint_name(*parts: str) -> str:
    """``ck_orders_status_values``, or a hashed short form when that exceeds 63 characters."""
    name = "_".join(parts)
    if len(name) <= MAX_IDENTIFIER:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:10]
    return f"{name[: MAX_IDENTIFIER - 11]}_{digest}"


def _quote_literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _checks(table_name: str, column: Column, dialect: str) -> list[sa.CheckConstraint]:
    """Explicit CHECKs: SQLite has no enum type, and ranges are part of the contract."""
    name = column.name
    q = '"' + name.replace('"', '""') + '"'
    checks = []
    if column.values:
        if dialect == "sqlite":
            # Same meaning as IN (...), but SQLite builds an ephemeral table for every row it checks
            # an IN list against (7 µs a row); a chain of comparisons costs a tenth of that.
            allowed = " OR ".join(f"{q} = {_quote_literal(v)}" for v in column.values)
        else:
            allowed = f"{q} IN ({', '.join(_quote_literal(v) for v in column.values)})"
        checks.append(sa.CheckConstraint(allowed, name=constraint_name("ck", table_name, name, "values")))
    if column.sql_type in ("INTEGER", "REAL") and not column.references and not column.primary_key:
        if column.min is not None:
            checks.append(
                sa.CheckConstraint(f"{q} >= {column.min:g}", name=constraint_name("ck", table_name, name, "min"))
            )
        if column.max is not None:
            checks.append(
                sa.CheckConstraint(f"{q} <= {column.max:g}", name=constraint_name("ck", table_name, name, "max"))
            )
    if dialect == "sqlite":
        if column.sql_type == "BOOLEAN":
            checks.append(sa.CheckConstraint(f"{q} IN (0, 1)", name=constraint_name("ck", table_name, name, "bool")))
        if column.semantic == "timestamp":
            # ISO-8601 'YYYY-MM-DDTHH:MM:SS': fixed width keeps text ordering equal to time ordering.
            checks.append(sa.CheckConstraint(f"length({q}) = 19", name=constraint_name("ck", table_name, name, "iso")))
        if column.semantic == "date":
            checks.append(sa.CheckConstraint(f"length({q}) = 10", name=constraint_name("ck", table_name, name, "iso")))
    return checks


def metadata_for(schema: Schema, dialect: str = "sqlite") -> sa.MetaData:
    _check_dialect(dialect)
    md = sa.MetaData()
    for table in schema.tables:
        items: list[sa.SchemaItem] = []
        for col in table.columns:
            args: list[sa.SchemaItem] = []
            if col.references:
                args.append(sa.ForeignKey(f"{col.references}.id", name=constraint_name("fk", table.name, col.name)))
            items.append(
                sa.Column(
                    col.name,
                    _sa_type(col, dialect),
                    *args,
                    primary_key=col.primary_key,
                    nullable=col.nullable and not col.primary_key,
                    autoincrement=col.primary_key and dialect != "duckdb",
                )
            )
            if col.unique:
                items.append(sa.UniqueConstraint(col.name, name=constraint_name("uq", table.name, col.name)))
            items.extend(_checks(table.name, col, dialect))
        for group in table.unique_together:
            items.append(sa.UniqueConstraint(*group, name=constraint_name("uq", table.name, *group)))
        t = sa.Table(table.name, md, *items)
        for col in table.foreign_keys:
            sa.Index(constraint_name("ix", table.name, col.name), t.c[col.name])
    return md


def _dialect(name: str) -> sa.engine.Dialect:
    _check_dialect(name)
    if name == "sqlite":
        from sqlalchemy.dialects import sqlite

        return sqlite.dialect()
    from sqlalchemy.dialects import postgresql

    return postgresql.dialect()


def _compiled(schema: Schema, dialect: str) -> list[tuple[str, list[str]]]:
    md = metadata_for(schema, dialect)
    d = _dialect(dialect)
    return [
        (
            str(CreateTable(table).compile(dialect=d)).strip(),
            [str(CreateIndex(i).compile(dialect=d)).strip() for i in sorted(table.indexes, key=lambda i: i.name or "")],
        )
        for table in md.sorted_tables
    ]


def ddl_statements(schema: Schema, dialect: str = "sqlite") -> list[str]:
    """CREATE TABLE / CREATE INDEX statements in dependency order."""
    return [s for create, indexes in _compiled(schema, dialect) for s in (create, *indexes)]


def ddl_parts(schema: Schema, dialect: str = "sqlite") -> tuple[list[str], list[str]]:
    """(CREATE TABLE statements, CREATE INDEX statements): bulk loads build indexes after the rows."""
    compiled = _compiled(schema, dialect)
    return [c for c, _ in compiled], [i for _, idx in compiled for i in idx]


def ddl_script(schema: Schema, dialect: str = "sqlite") -> str:
    return ";\n\n".join(ddl_statements(schema, dialect)) + ";\n"


_OBJECTS = "SELECT type, name, tbl_name, sql FROM sqlite_master"


def _objects(conn: sqlite3.Connection) -> dict[tuple[str, str], tuple[str, str | None]]:
    return {(kind, name): (table, sql) for kind, name, table, sql in conn.execute(_OBJECTS)}


def _label(kind: str, name: str, limit: int = 60) -> str:
    text = repr(name)
    return f"{kind} {text if len(text) <= limit else text[: limit - 1] + '…'}"


def undeclared_objects(schema: Schema, conn: sqlite3.Connection) -> list[str]:
    """How the schema objects in ``conn`` differ from exactly those the schema's SQLite DDL creates.

    A state must hold the tables and indexes ``schema.json`` declares, with the same
    definitions, and nothing else: a trigger, view, table or index of its own would run
    or answer in every episode without any tool or task saying so. One line per difference.
    """
    reference = sqlite3.connect(":memory:")
    try:
        creates, indexes = ddl_parts(schema, "sqlite")
        for statement in (*creates, *indexes):
            reference.execute(statement)
        expected = _objects(reference)
    finally:
        reference.close()
    actual = _objects(conn)
    problems = [
        f"{_label(*key)} on {actual[key][0]!r} is not declared by schema.json"
        for key in sorted(actual.keys() - expected.keys())
    ]
    problems += [
        f"{_label(*key)} declared by schema.json is missing" for key in sorted(expected.keys() - actual.keys())
    ]
    problems += [
        f"{_label(*key)} differs from its definition in schema.json"
        for key in sorted(actual.keys() & expected.keys())
        if actual[key] != expected[key]
    ]
    return problems


_STORED: dict[str, str] = {
    "INTEGER": "typeof({c}) NOT IN ('integer', 'null')",
    "BOOLEAN": "typeof({c}) NOT IN ('integer', 'null')",
    "REAL": "typeof({c}) NOT IN ('real', 'integer', 'null') OR abs({c}) > 1.7976931348623157e308",
    "TEXT": "typeof({c}) NOT IN ('text', 'null')",
}
"""Per declared type, the stored values no tool can return as JSON (wrong storage class, infinity)."""


_NON_ASCII = "*[^" + chr(1) + "-" + chr(127) + "]*"


def unreadable_values(schema: Schema, conn: sqlite3.Connection) -> list[str]:
    """Values in ``conn`` that break the schema or have no JSON form, one line per table column.

    The DDL matching (:func:`undeclared_objects`) says nothing about the rows: a state written
    with CHECK constraints switched off, bytes where text is declared, an infinite REAL, or
    text that is not UTF-8 (which sqlite3 cannot even hand to Python) would load and then fail
    some tool call mid-episode. ``PRAGMA quick_check`` re-validates NOT NULL and CHECK; the
    rest is one scan per table (about 0.3 s for 300k rows), then a UTF-8 decode of only the
    non-ASCII text.
    """
    problems = [f"PRAGMA quick_check: {r[0]}" for r in conn.execute("PRAGMA quick_check").fetchall() if r[0] != "ok"]
    factory = conn.text_factory
    conn.text_factory = bytes
    try:
        for table in schema.tables:
            t = quote_ident(table.name)
            texts = [quote_ident(c.name) for c in table.columns if c.sql_type == "TEXT"]
            # Any character outside 1..127, as SQLite reads it: every non-UTF-8 byte run is one.
            wide = " OR ".join(f"({c} GLOB '{_NON_ASCII}')" for c in texts) or "0"
            tests = [_STORED[c.sql_type].format(c=quote_ident(c.name)) for c in table.columns]
            sums = ", ".join(f"coalesce(sum({test}), 0)" for test in [*tests, wide])
            *counts, non_ascii = conn.execute(f"SELECT {sums} FROM {t}").fetchone()
            problems += [
                f"{table.name}.{column.name}: {count} value(s) not {column.sql_type} or not finite"
                for column, count in zip(table.columns, counts)
                if count
            ]
            if non_ascii:
                problems += _not_utf8(conn, table.name, [c.name for c in table.columns if c.sql_type == "TEXT"], wide)
    finally:
        conn.text_factory = factory
    return problems


def _not_utf8(conn: sqlite3.Connection, table: str, columns: list[str], where: str) -> list[str]:
    """Per text column of ``table``, how many of the rows matching ``where`` do not decode (bytes rows)."""
    bad = dict.fromkeys(columns, 0)
    for row in conn.execute(f"SELECT {', '.join(map(quote_ident, columns))} FROM {quote_ident(table)} WHERE {where}"):
        for name, raw in zip(columns, row):
            if isinstance(raw, bytes):
                try:
                    raw.decode("utf-8")
                except UnicodeDecodeError:
                    bad[name] += 1
    return [f"{table}.{name}: {n} text value(s) that are not UTF-8" for name, n in bad.items() if n]
