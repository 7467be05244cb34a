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
from collections import deque
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.schema import CreateIndex, CreateTable

from pipeline.world.sqlnames import quote_ident, quote_literal

if TYPE_CHECKING:
    from pipeline.world.schema import Column, Schema, Table

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
    by_sql_type: dict[str, sa.types.TypeEngine[Any]] = {
        "INTEGER": sa.Integer(),
        "REAL": sa.Float(),
        "BOOLEAN": sa.Boolean(create_constraint=False),
        "TEXT": sa.Text(),
    }
    return by_sql_type[column.sql_type]


def constraint_name(*parts: str) -> str:
    """``ck_orders_status_values``, or a hashed short form when that exceeds 63 characters."""
    name = "_".join(parts)
    if len(name) <= MAX_IDENTIFIER:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:10]
    return f"{name[: MAX_IDENTIFIER - 11]}_{digest}"


def _checks(table_name: str, column: Column, dialect: str) -> list[sa.CheckConstraint]:
    """Explicit CHECKs: SQLite has no enum type, and ranges are part of the contract."""
    name = column.name
    q = quote_ident(name)
    checks = []
    if column.values:
        if dialect == "sqlite":
            # Same meaning as IN (...), but SQLite builds an ephemeral table for every row it checks
            # an IN list against (7 µs a row); a chain of comparisons costs a tenth of that.
            allowed = " OR ".join(f"{q} = {quote_literal(v)}" for v in column.values)
        else:
            allowed = f"{q} IN ({', '.join(quote_literal(v) for v in column.values)})"
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
        items: list[sa.schema.SchemaItem] = []
        for col in table.columns:
            args: list[sa.schema.SchemaItem] = []
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
        label = next((c for c in table.columns if c.name == table.label), None)
        if label is not None and not (label.primary_key or label.unique or label.references):
            # Users find a row by its label, as a real system's lookup by name is indexed.
            sa.Index(constraint_name("ix", table.name, label.name), t.c[label.name])
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

    A declared index the state lacks is the one difference allowed: an index changes how fast a
    lookup runs, never what it returns, and a bundle built before the label indexes (ddl's
    ``metadata_for``) declares through its schema.json indexes its state never had; it must load.
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
        f"{_label(*key)} declared by schema.json is missing"
        for key in sorted(expected.keys() - actual.keys())
        if not (key[0] == "index" and expected[key][1] is not None)  # an index of CREATE INDEX, not a key's own
    ]
    problems += [
        f"{_label(*key)} differs from its definition in schema.json"
        for key in sorted(actual.keys() & expected.keys())
        if actual[key] != expected[key]
    ]
    return problems


_STORED: dict[str, str] = {
    "INTEGER": "typeof({c}) != 'integer' AND {c} IS NOT NULL",
    "BOOLEAN": "typeof({c}) != 'integer' AND {c} IS NOT NULL",
    "REAL": "typeof({c}) IN ('text', 'blob') OR abs({c}) > 1.7976931348623157e308",
    "TEXT": "typeof({c}) != 'text' AND {c} IS NOT NULL",
}
"""Per declared type, the stored values no tool can return as JSON (wrong storage class, infinity).
Written as one comparison and a NULL test rather than ``NOT IN (..., 'null')``: the same values,
about half the cost per row."""


def unreadable_values(schema: Schema, conn: sqlite3.Connection) -> list[str]:
    """Values in ``conn`` that break the schema or have no JSON form, one line per table column.

    The DDL matching (:func:`undeclared_objects`) says nothing about the rows: a state written
    with CHECK constraints switched off, bytes where text is declared, an infinite REAL, or
    text that is not UTF-8 (which sqlite3 cannot even hand to Python) would load and then fail
    some tool call mid-episode. ``PRAGMA quick_check`` re-validates NOT NULL and CHECK; then one
    SQL pass per table tests the storage classes, and the text columns are read once through
    sqlite3's own UTF-8 decoder, the one every tool call goes through (see :func:`_not_utf8`).
    """
    problems = [f"PRAGMA quick_check: {r[0]}" for r in conn.execute("PRAGMA quick_check").fetchall() if r[0] != "ok"]
    for table in schema.tables:
        problems += _wrong_storage(conn, table)
        # A column with a list of values holds, once quick_check has passed, only those literals.
        texts = [c.name for c in table.columns if c.sql_type == "TEXT" and not c.values]
        if texts:
            problems += _not_utf8(conn, table.name, texts)
    return problems


def _wrong_storage(conn: sqlite3.Connection, table: Table) -> list[str]:
    """Per column of ``table``, the values of a storage class it does not allow, or infinite:
    one cheap pass that only counts rows, and the per-column sums only when it found some."""
    t = quote_ident(table.name)
    tests = [_STORED[c.sql_type].format(c=quote_ident(c.name)) for c in table.columns]
    where = " OR ".join(f"({test})" for test in tests)
    if not conn.execute(f"SELECT count(*) FROM {t} WHERE {where}").fetchone()[0]:
        return []
    sums = ", ".join(f"coalesce(sum({test}), 0)" for test in tests)
    counts = conn.execute(f"SELECT {sums} FROM {t}").fetchone()
    return [
        f"{table.name}.{column.name}: {count} value(s) not {column.sql_type} or not finite"
        for column, count in zip(table.columns, counts)
        if count
    ]


def _not_utf8(conn: sqlite3.Connection, table: str, columns: list[str]) -> list[str]:
    """Per text column of ``table``, how many text values do not decode as UTF-8.

    Every row is read with ``text_factory = str``: sqlite3 decodes each text value in C with the
    strict decoder a tool's read uses, and raises on the first that fails. No SQL test stands in
    for it: ``GLOB '*[^\\x01-\\x7f]*'`` cost about 14 ns per byte (20 s on 1.5 GB of text) and,
    like ``length()``, stops at an embedded NUL, so it missed invalid bytes written after one.
    Only a state that fails is read a second time, as bytes, to count the values per column.
    """
    select = f"SELECT {', '.join(map(quote_ident, columns))} FROM {quote_ident(table)}"
    factory = conn.text_factory
    try:
        conn.text_factory = str
        deque(conn.execute(select), maxlen=0)
        return []
    except sqlite3.OperationalError as exc:
        failure = exc
    finally:
        conn.text_factory = factory
    bad = dict.fromkeys(columns, 0)
    conn.text_factory = bytes
    try:
        texts = ", ".join(f"iif(typeof({c}) = 'text', {c}, NULL)" for c in map(quote_ident, columns))
        for row in conn.execute(f"SELECT {texts} FROM {quote_ident(table)}"):
            for name, raw in zip(columns, row):
                if raw is not None:
                    try:
                        raw.decode("utf-8")
                    except UnicodeDecodeError:
                        bad[name] += 1
    finally:
        conn.text_factory = factory
    if not any(bad.values()):
        raise failure
    return [f"{table}.{name}: {n} text value(s) that are not UTF-8" for name, n in bad.items() if n]
