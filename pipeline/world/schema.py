"""Step 1: blueprint -> relational schema, with DDL emitted through SQLAlchemy.

The canonical form is the typed :class:`Schema` (serialised as ``schema.json``); DDL for
SQLite (the environment state), DuckDB and PostgreSQL is derived from it, never written
by hand, so the three can never disagree about keys or constraints. The schema also
carries what population must honour beyond SQL constraints: derived values (totals,
copied prices), timestamps a status implies, and legal status pairs.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pipeline.world.blueprint import Blueprint
from pipeline.world.derive import derivations
from pipeline.world.fields import TIME_TYPES, VOCABULARY_TYPES, Entity, FieldSpec, RuleSpec
from pipeline.world.formula import Rule
from pipeline.world.naming import Naming, pluralise, readable_field
from pipeline.world.rules import restyle
from pipeline.world.vocab import resolve_vocab

SqlType = Literal["INTEGER", "REAL", "TEXT", "BOOLEAN"]

_SQL_TYPES: dict[str, SqlType] = {
    "money": "REAL",
    "decimal": "REAL",
    "percent": "REAL",
    "quantity": "INTEGER",
    "integer": "INTEGER",
    "rating": "INTEGER",
    "ref": "INTEGER",
    "boolean": "BOOLEAN",
}
NON_NEGATIVE = frozenset({"money", "quantity"})
"""Semantic types that can never go below zero (prices, stock): a CHECK says so even when the blueprint is silent."""


class Derivation(BaseModel):
    """How a column's value follows from other rows (resolved to table and column names)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["sum", "copy"]
    via: str
    """sum: the child table's FK column to this table; copy: this table's FK column."""
    table: str | None = None
    """sum: the child table whose rows are added up."""
    column: str | None = None
    """copy: the referenced table's column."""
    factors: tuple[str, ...] = ()
    """sum: child columns multiplied per child row; copy: own columns the copied value is multiplied by."""


class Stamp(BaseModel):
    """A time that exists exactly when a status has reached a value (``shipped_at`` and ``shipped``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    column: str
    value: str


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
    derived: Derivation | None = None
    stamp: Stamp | None = None
    follows: str | None = None
    """An enum column of the same table whose value this one is a legal next state of."""
    initial: tuple[str, ...] | None = None
    """Values of the populated rows, in order (a lookup table's list); data, not a constraint."""
    vocabulary: tuple[str, ...] | None = Field(default=None, exclude_if=lambda v: v is None)
    """Values population draws this text column from (a blueprint-supplied vocabulary). Left out of
    ``schema.json`` when absent, so schemas without one keep their bytes."""
    vocab: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """The vocabulary (``templates/vocab/<name>.yaml``) a text column's values come from."""
    vocab_by: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """The column of the same row whose value (or, for a reference, the referenced row's label) picks
    the vocabulary's group."""
    label: str = ""
    """How a person says the field: ``consultation fee``, ``parcel`` for ``parcelId``; never an identifier."""

    @model_validator(mode="after")
    def _readable(self) -> Column:
        if not self.label:
            object.__setattr__(self, "label", readable_field(self.field or self.name, bool(self.references)))
        return self


class BusinessRule(BaseModel):
    """A blueprint rule with the table's column names (``ref.field`` names the referenced table's column)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    check: str
    when: str | None = None
    message: str = ""


class History(BaseModel):
    """This table records the changes of another table's status, one row per change."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    of: str
    """The table whose status changes are recorded."""
    via: str
    """This table's reference to that table."""
    status: str
    """The recorded status column of that table."""
    source: str
    """The column holding the status before the change."""
    target: str
    """The column holding the status after the change."""
    at: str
    """When the change happened."""


class Settlement(BaseModel):
    """This table's ``amount`` pays off the ``total`` of the parent it refers to (``via``), as the parent's
    ``status`` says (:class:`pipeline.world.fields.SettlesSpec`); column names resolved."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    via: str
    amount: str
    total: str
    status: str
    paid: tuple[str, ...]
    open: tuple[str, ...] = ()
    none: tuple[str, ...] = ()


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
    scales: bool = True
    """False for a lookup table: its rows are a fixed list, whatever the size knob."""
    unique_together: tuple[tuple[str, ...], ...] = ()
    rules: tuple[BusinessRule, ...] = Field(default=(), exclude_if=lambda v: not v)
    history: History | None = Field(default=None, exclude_if=lambda v: v is None)
    settles: Settlement | None = Field(default=None, exclude_if=lambda v: v is None)
    """The rows are payments of a parent's amount; left out of ``schema.json`` when absent."""
    noun: str = ""
    """The readable singular: ``city department`` (whatever the table is called)."""
    plural: str = ""
    """The readable plural: ``city departments``."""

    @model_validator(mode="after")
    def _readable(self) -> Table:
        if not self.noun:
            object.__setattr__(self, "noun", self.entity.replace("_", " "))
        if not self.plural:
            object.__setattr__(self, "plural", pluralise(self.noun))
        return self

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

    def status_columns(self, table: Table) -> tuple[Column, ...]:
        """The status columns of ``table``, in column order: the enumerated ones an operation moves,
        whose moves are declared, or typed as a status. One definition for the write log's history,
        the verifier's forbidden detours and the tasks' "usual status" of a table."""
        moved = {op.column for op in self.operations if op.table == table.name}
        return tuple(
            c for c in table.columns if c.values and (c.name in moved or c.transitions or c.semantic == "status")
        )


def code_prefix(table: Table) -> str:
    """ORD-104233 for orders, OI-... for order items: readable, stable, per table."""
    parts = [w for w in table.entity.split("_") if w]
    if len(parts) == 1:
        return parts[0][:3].upper()
    return "".join(w[0] for w in parts).upper()


# -- building -------------------------------------------------------------------------------


def _stamps(entity: Entity, blueprint: Blueprint) -> dict[str, tuple[str, str]]:
    """Time field -> (status field, value): set by an operation, or named after the value (``delivered_at``)."""
    out: dict[str, tuple[str, str]] = {}
    for op in blueprint.operations:
        if op.entity == entity.name and op.sets_time and entity.field(op.sets_time).nullable:
            out.setdefault(op.sets_time, (op.field, op.to))
    statuses = [f for f in entity.fields if f.type == "status"]
    for f in entity.fields:
        if f.type not in TIME_TYPES or not f.nullable or f.name in out:
            continue
        for status in statuses:
            for value in status.values or ():
                if f.name in (f"{value}_at", f"{value}_on", f"{value}_date") and value != (status.values or ("",))[0]:
                    out[f.name] = (status.name, value)
    return out


def _range(
    field: FieldSpec, rule: Rule | None, blueprint: Blueprint, entity: Entity
) -> tuple[float | None, float | None]:
    """CHECK bounds: derived totals have no upper bound; copies take their source's range."""
    low, high = field.min, field.max
    if rule is not None:
        if rule.kind == "copy" and not rule.factors:
            source = blueprint.entity(str(entity.field(str(rule.via)).ref)).field(str(rule.source))
            low, high = source.min, source.max
        else:
            low, high = 0.0, None
    if low is None and field.type in NON_NEGATIVE:
        low = 0.0
    return low, high


def build_schema(
    blueprint: Blueprint,
    rng: random.Random | None = None,
    naming: Naming | None = None,
    name: str | None = None,
) -> Schema:
    """Turn a blueprint into a schema: one table per entity, ``id`` keys, FK per ``ref``.

    The blueprint is taken as written; variation (optional entities and fields, extra
    tables, enum sets, naming) happens before, in :mod:`pipeline.world.variants`. ``rng`` is
    accepted for callers of the original signature and is not used.
    """
    del rng
    naming = naming or Naming()
    table_of = {e.name: naming.table(e) for e in blueprint.entities}
    _check_names([*table_of.values()], f"blueprint {blueprint.name!r} tables")
    col = naming.column
    rules = derivations(blueprint)
    tables = []
    for entity in blueprint.entities:
        _check_names(["id", *(col(f.name) for f in entity.fields)], f"entity {entity.name!r} columns")
        stamps = _stamps(entity, blueprint)
        columns = [Column(name="id", sql_type="INTEGER", semantic="id", primary_key=True)]
        for f in entity.fields:
            rule = rules.get((entity.name, f.name))
            low, high = _range(f, rule, blueprint, entity)
            if entity.settles is not None and f.name == entity.settles.amount:
                # A share of the parent's amount: a large total is paid in one payment, a deposit may be small.
                low, high = 0.0, None
            derived = None
            if rule is not None:
                if rule.kind == "sum":
                    derived = Derivation(
                        kind="sum",
                        table=table_of[str(rule.child)],
                        via=col(str(rule.via)),
                        factors=tuple(col(x) for x in rule.factors),
                    )
                else:
                    derived = Derivation(
                        kind="copy",
                        via=col(str(rule.via)),
                        column=col(str(rule.source)),
                        factors=tuple(col(x) for x in rule.factors),
                    )
            stamp = stamps.get(f.name)
            # A field listing its own values (``vocabulary``) takes no named vocabulary, not even a default.
            named = f.type in VOCABULARY_TYPES and f.vocabulary is None
            vocab = resolve_vocab(f.vocab, f.type, blueprint.vocab) if named else None
            columns.append(
                Column(
                    name=col(f.name),
                    sql_type=_SQL_TYPES.get(f.type, "TEXT"),
                    semantic=f.type,
                    nullable=f.nullable,
                    unique=f.unique,
                    references=table_of[str(f.ref)] if f.type == "ref" else None,
                    values=f.values,
                    weights=f.weights,
                    transitions=f.transitions,
                    min=low,
                    max=high,
                    after=col(f.after) if f.after else None,
                    field=f.name,
                    description=f.description,
                    derived=derived,
                    stamp=Stamp(column=col(stamp[0]), value=stamp[1]) if stamp else None,
                    follows=col(f.follows) if f.follows else None,
                    initial=f.initial,
                    vocabulary=f.vocabulary,
                    vocab=vocab,
                    vocab_by=col(f.vocab_by) if f.vocab_by and vocab else None,
                    label=readable_field(f.name, f.type == "ref"),
                )
            )
        tables.append(
            Table(
                name=table_of[entity.name],
                entity=entity.name,
                description=entity.description or entity.name.replace("_", " "),
                label=col(entity.label),
                rows=entity.rows,
                columns=tuple(columns),
                scales=not entity.fixed_rows,
                unique_together=tuple(tuple(col(x) for x in g) for g in entity.unique_together),
                rules=tuple(_styled_rule(r, col) for r in entity.rules),
                history=_history(entity, table_of, col),
                settles=_settlement(entity, blueprint, col),
                noun=entity.name.replace("_", " "),
                plural=entity.plural_name.replace("_", " "),
            )
        )
    operations = []
    for op in blueprint.operations:
        field = blueprint.entity(op.entity).field(op.field)
        allowed = tuple(src for src, dsts in (field.transitions or {}).items() if op.to in dsts)
        operations.append(
            Operation(
                name=op.name,
                table=table_of[op.entity],
                column=col(op.field),
                to=op.to,
                allowed_from=allowed,
                description=op.description,
                sets_time=col(op.sets_time) if op.sets_time else None,
            )
        )
    return Schema(
        name=name or blueprint.name,
        domain=blueprint.name,
        title=blueprint.title,
        description=blueprint.description,
        tables=tuple(tables),
        operations=tuple(operations),
    )


def _styled_rule(rule: RuleSpec, col: Callable[[str], str]) -> BusinessRule:
    """The rule in column names (one naming style covers every table, so a referenced column is styled alike)."""

    def target(via: str, name: str) -> str:
        del via
        return col(name)

    return BusinessRule(
        check=restyle(rule.check, col, target),
        when=restyle(rule.when, col, target) if rule.when else None,
        message=rule.message,
    )


def _history(entity: Entity, table_of: dict[str, str], col: Callable[[str], str]) -> History | None:
    if entity.history_of is None:
        return None
    subject, _, status = entity.history_of.partition(".")
    ref = next(f for f in entity.fields if f.type == "ref" and f.ref == subject)
    target = next(f for f in entity.fields if f.follows is not None)
    at = next(f for f in entity.fields if f.type == "timestamp" and not f.nullable)
    return History(
        of=table_of[subject],
        via=col(ref.name),
        status=col(status),
        source=col(str(target.follows)),
        target=col(target.name),
        at=col(at.name),
    )


def _settlement(entity: Entity, blueprint: Blueprint, col: Callable[[str], str]) -> Settlement | None:
    s = entity.settles
    if s is None:
        return None
    parent = blueprint.entity(str(entity.field(s.parent).ref))
    status = s.status or next(f.name for f in parent.fields if f.type == "status")
    names = {"via": s.parent, "amount": s.amount, "total": s.total, "status": status}
    return Settlement(**{k: col(v) for k, v in names.items()}, paid=s.paid, open=s.open, none=s.none)


def _check_names(names: list[str], where: str) -> None:
    """SQL identifiers are case-insensitive in SQLite and DuckDB: refuse names that collide."""
    folded = [n.lower() for n in names]
    clashes = sorted({n for n in folded if folded.count(n) > 1})
    if clashes:
        raise ValueError(f"{where}: names collide (case-insensitively): {clashes}")


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
