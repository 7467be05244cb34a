"""DDL for every supported dialect, derived from the canonical schema by SQLAlchemy."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.schema import CreateIndex, CreateTable

if TYPE_CHECKING:
    from pipeline.schema import Column, Schema

DIALECTS = ("sqlite", "postgresql", "duckdb")


def _sa_type(column: Column) -> sa.types.TypeEngine:
    return {
        "INTEGER": sa.Integer(),
        "REAL": sa.Float(),
        "BOOLEAN": sa.Boolean(create_constraint=False),
        "TEXT": sa.Text(),
    }[column.sql_type]


def _quote_literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _checks(table_name: str, column: Column) -> list[sa.CheckConstraint]:
    """Explicit CHECKs: SQLite has no enum type, and ranges are part of the contract."""
    name = column.name
    checks = []
    if column.values:
        allowed = ", ".join(_quote_literal(v) for v in column.values)
        checks.append(sa.CheckConstraint(f'"{name}" IN ({allowed})', name=f"ck_{table_name}_{name}_values"))
    if column.sql_type in ("INTEGER", "REAL") and not column.references and not column.primary_key:
        if column.min is not None:
            checks.append(sa.CheckConstraint(f'"{name}" >= {column.min:g}', name=f"ck_{table_name}_{name}_min"))
        if column.max is not None:
            checks.append(sa.CheckConstraint(f'"{name}" <= {column.max:g}', name=f"ck_{table_name}_{name}_max"))
    if column.sql_type == "BOOLEAN":
        checks.append(sa.CheckConstraint(f'"{name}" IN (0, 1)', name=f"ck_{table_name}_{name}_bool"))
    if column.semantic == "timestamp":
        # ISO-8601 'YYYY-MM-DDTHH:MM:SS': fixed width keeps text ordering equal to time ordering.
        checks.append(sa.CheckConstraint(f'length("{name}") = 19', name=f"ck_{table_name}_{name}_iso"))
    if column.semantic == "date":
        checks.append(sa.CheckConstraint(f'length("{name}") = 10', name=f"ck_{table_name}_{name}_iso"))
    return checks


def metadata_for(schema: Schema) -> sa.MetaData:
    md = sa.MetaData()
    for table in schema.tables:
        items: list[sa.SchemaItem] = []
        for col in table.columns:
            args: list[sa.SchemaItem] = []
            if col.references:
                args.append(sa.ForeignKey(f"{col.references}.id", name=f"fk_{table.name}_{col.name}"))
            items.append(
                sa.Column(
                    col.name, _sa_type(col), *args,
                    primary_key=col.primary_key,
                    nullable=col.nullable and not col.primary_key,
                    autoincrement=col.primary_key,
                )
            )
            if col.unique:
                items.append(sa.UniqueConstraint(col.name, name=f"uq_{table.name}_{col.name}"))
            items.extend(_checks(table.name, col))
        t = sa.Table(table.name, md, *items)
        for col in table.foreign_keys:
            sa.Index(f"ix_{table.name}_{col.name}", t.c[col.name])
    return md


def _dialect(name: str) -> sa.engine.Dialect:
    if name == "sqlite":
        from sqlalchemy.dialects import sqlite

        return sqlite.dialect()
    if name in ("postgresql", "duckdb"):
        # DuckDB speaks PostgreSQL's DDL for everything we emit (keys, CHECK, UNIQUE).
        from sqlalchemy.dialects import postgresql

        return postgresql.dialect()
    raise ValueError(f"unknown dialect {name!r}; choose one of {', '.join(DIALECTS)}")


def ddl_statements(schema: Schema, dialect: str = "sqlite") -> list[str]:
    """CREATE TABLE / CREATE INDEX statements in dependency order."""
    md = metadata_for(schema)
    d = _dialect(dialect)
    out = []
    for table in md.sorted_tables:
        out.append(str(CreateTable(table).compile(dialect=d)).strip())
        for index in sorted(table.indexes, key=lambda i: i.name or ""):
            out.append(str(CreateIndex(index).compile(dialect=d)).strip())
    return out


def ddl_script(schema: Schema, dialect: str = "sqlite") -> str:
    return ";\n\n".join(ddl_statements(schema, dialect)) + ";\n"
