"""Step 1: blueprint -> relational schema, with DDL emitted through SQLAlchemy.

The canonical form is the typed :class:`Schema` (serialised as ``schema.json``); DDL for
SQLite (the environment state), DuckDB and PostgreSQL is derived from it, never written
by hand, so the three can never disagree about keys or constraints.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import BaseModel, ConfigDict

from pipeline.blueprint import CATEGORICAL_TYPES, Blueprint, FieldSpec

SqlType = Literal["INTEGER", "REAL", "TEXT", "BOOLEAN"]

_SQL_TYPES: dict[str, SqlType] = {
    "money": "REAL", "decimal": "REAL", "percent": "REAL",
    "quantity": "INTEGER", "integer": "INTEGER", "rating": "INTEGER", "ref": "INTEGER",
    "boolean": "BOOLEAN",
}


class Column(BaseModel):
    """A column with the semantics population and task generation need."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    sql_type: SqlType
    semantic: str
    """The blueprint semantic type, or ``id`` for the primary key."""
    nullable: bool = False
    unique: bool = False
    primary_key: bool = False
    references: str | None = None
    """Target table of a foreign key (always its ``id``)."""
    values: tuple[str, ...] | None = None
    weights: tuple[float, ...] | None = None
    transitions: dict[str, tuple[str, ...]] | None = None
    min: float | None = None
    max: float | None = None
    after: str | None = None
    field: str | None = None
    """Blueprint field this column came from (names may be restyled)."""
    description: str = ""


class Table(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    entity: str
    """Singular noun used in tool names and instructions."""
    description: str
    label: str
    """Column a user names a row by."""
    rows: int
    columns: tuple[Column, ...]

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(f"table {self.name!r} has no column {name!r}")

    @property
    def foreign_keys(self) -> tuple[Column, ...]:
        return tuple(c for c in self.columns if c.references)


class Operation(BaseModel):
    """A blueprint operation resolved to table and column names."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    table: str
    column: str
    to: str
    allowed_from: tuple[str, ...]
    description: str
    sets_time: str | None = None


class Schema(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    domain: str
    title: str
    description: str
    tables: tuple[Table, ...]
    operations: tuple[Operation, ...] = ()

    def table(self, name: str) -> Table:
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(f"schema {self.name!r} has no table {name!r}")

    def to_sqlalchemy(self):  # -> sqlalchemy.MetaData (imported lazily: runtime need not pay for it)
        from pipeline.ddl import metadata_for

        return metadata_for(self)


def _column_for(field: FieldSpec, table_of: dict[str, str]) -> Column:
    name = field.name
    references = None
    if field.type == "ref":
        references = table_of[str(field.ref)]
    return Column(
        name=name,
        sql_type=_SQL_TYPES.get(field.type, "TEXT"),
        semantic=field.type,
        nullable=field.nullable,
        unique=field.unique,
        references=references,
        values=field.values,
        weights=field.weights,
        transitions=field.transitions,
        min=field.min,
        max=field.max,
        after=field.after,
        field=field.name,
        description=field.description,
    )


def build_schema(blueprint: Blueprint, rng: random.Random | None = None) -> Schema:
    """Turn a blueprint into a schema: one table per entity, ``id`` keys, FK per ``ref``.

    ``rng`` is accepted so that variant sampling (optional entities and fields, naming
    styles) slots in without changing the step's signature; the default keeps every
    entity and field as written.
    """
    del rng
    table_of = {e.name: e.plural_name for e in blueprint.entities}
    tables = []
    for entity in blueprint.entities:
        columns = [Column(name="id", sql_type="INTEGER", semantic="id", primary_key=True)]
        columns += [_column_for(f, table_of) for f in entity.fields]
        tables.append(
            Table(
                name=table_of[entity.name],
                entity=entity.name,
                description=entity.description or entity.name.replace("_", " "),
                label=entity.label,
                rows=entity.rows,
                columns=tuple(columns),
            )
        )
    operations = []
    for op in blueprint.operations:
        field = blueprint.entity(op.entity).field(op.field)
        allowed = tuple(src for src, dsts in (field.transitions or {}).items() if op.to in dsts)
        operations.append(
            Operation(
                name=op.name, table=table_of[op.entity], column=op.field, to=op.to,
                allowed_from=allowed, description=op.description, sets_time=op.sets_time,
            )
        )
    return Schema(
        name=blueprint.name, domain=blueprint.name, title=blueprint.title,
        description=blueprint.description, tables=tuple(tables), operations=tuple(operations),
    )


def insertion_order(schema: Schema) -> list[Table]:
    """Parents before children, so every FK target exists when a row is inserted."""
    done: list[Table] = []
    names: set[str] = set()
    pending = list(schema.tables)
    while pending:
        ready = [t for t in pending if all(c.references in names or c.references == t.name for c in t.foreign_keys)]
        if not ready:
            raise ValueError(f"schema {schema.name!r}: foreign keys form a cycle among {[t.name for t in pending]}")
        for t in ready:
            done.append(t)
            names.add(t.name)
            pending.remove(t)
    return done


def is_categorical(column: Column) -> bool:
    return column.semantic in CATEGORICAL_TYPES
