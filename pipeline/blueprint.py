"""Domain blueprints: the typed description of a world that every later step reads.

A blueprint is data (YAML under ``templates/domains/``). It names entities, their fields
with *semantic types* (what a value means, so population can make it plausible and tasks
can phrase it), relations (``ref`` fields) and business operations (status transitions).
Validation happens here, once, so later steps can trust the structure.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from pipeline.derive import check_derive, parse_derive

SemanticType = Literal[
    # people and organisations
    "person_name", "first_name", "last_name", "email", "phone", "username", "company", "job_title",
    # places
    "address", "city", "country", "postcode",
    # names of things and text
    "product_name", "title", "word", "text", "color",
    # identifiers
    "sku", "code", "isbn", "license_plate", "url", "file_name",
    # numbers
    "money", "quantity", "integer", "rating", "percent", "decimal", "boolean",
    # time
    "date", "timestamp",
    # categorical
    "status", "enum",
    # relation
    "ref",
]
"""Every semantic type population knows how to generate; anything else is refused."""

TEXTUAL_TYPES = frozenset(
    {"person_name", "first_name", "last_name", "email", "phone", "username", "company", "job_title",
     "address", "city", "country", "postcode", "product_name", "title", "word", "text", "color",
     "sku", "code", "isbn", "license_plate", "url", "file_name"}
)
CATEGORICAL_TYPES = frozenset({"status", "enum"})
NUMERIC_TYPES = frozenset({"money", "quantity", "integer", "rating", "percent", "decimal"})
TIME_TYPES = frozenset({"date", "timestamp"})

_IDENT = re.compile(r"^[a-z][a-z0-9_]{0,40}$")


class FieldSpec(BaseModel):
    """One attribute of an entity."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    type: SemanticType
    description: str = ""
    nullable: bool = False
    unique: bool = False
    min: float | None = None
    max: float | None = None
    values: tuple[str, ...] | None = None
    """Allowed values of an ``enum``/``status`` field."""
    weights: tuple[float, ...] | None = None
    """Relative frequencies of ``values`` in populated data (for a ``ref`` to a fixed lookup
    entity: of its rows, in order)."""
    transitions: dict[str, tuple[str, ...]] | None = None
    """For ``status``: value -> values it may move to. Absent value = terminal."""
    ref: str | None = None
    """For ``ref``: the entity referred to."""
    after: str | None = None
    """For time fields: a field of the same entity this one never precedes."""
    optional: bool = False
    """The variant sampler may leave this field out."""
    derive: str | None = None
    """How the value follows from other rows (see :mod:`pipeline.derive`): ``sum(line.qty * line.price)``,
    ``product_id.price``, ``quantity * product_id.price``, or ``none`` to switch inference off."""
    initial: tuple[str, ...] | None = None
    """For a unique text field of a ``fixed_rows`` entity: the values of its rows, in order (a
    lookup table's list). Unlike ``values`` this is data, not a constraint: new rows may add more."""
    follows: str | None = None
    """For an enum with ``transitions``: an earlier enum of the same entity whose value this one is a
    legal next state of (a history row's ``to_status`` follows its ``from_status``)."""

    @model_validator(mode="after")
    def _check(self) -> FieldSpec:
        if not _IDENT.match(self.name):
            raise ValueError(f"field name {self.name!r} must be snake_case (a-z, 0-9, _)")
        if self.type in CATEGORICAL_TYPES:
            if not self.values or len(set(self.values)) != len(self.values):
                raise ValueError(f"field {self.name!r}: {self.type} needs distinct 'values'")
            if self.weights is not None and len(self.weights) != len(self.values):
                raise ValueError(f"field {self.name!r}: 'weights' must match 'values' in length")
            for src, dsts in (self.transitions or {}).items():
                unknown = {src, *dsts} - set(self.values)
                if unknown:
                    raise ValueError(f"field {self.name!r}: transitions name unknown values {sorted(unknown)}")
        elif self.values or self.transitions or (self.weights and self.type != "ref"):
            raise ValueError(f"field {self.name!r}: values/weights/transitions only apply to enum or status")
        if self.type == "ref" and not self.ref:
            raise ValueError(f"field {self.name!r}: a ref field needs 'ref: <entity>'")
        if self.type != "ref" and self.ref:
            raise ValueError(f"field {self.name!r}: 'ref' only applies to type ref")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"field {self.name!r}: min {self.min} > max {self.max}")
        if self.after is not None and self.type not in TIME_TYPES:
            raise ValueError(f"field {self.name!r}: 'after' only applies to date/timestamp fields")
        if self.derive is not None:
            if self.type not in NUMERIC_TYPES:
                raise ValueError(f"field {self.name!r}: 'derive' only applies to numeric fields")
            parse_derive(self.derive)
        if self.initial is not None and (self.type not in TEXTUAL_TYPES or not self.unique
                                         or len(set(self.initial)) != len(self.initial)):
            raise ValueError(f"field {self.name!r}: 'initial' needs a unique text field and distinct values")
        if self.follows is not None and (self.type not in CATEGORICAL_TYPES or not self.transitions):
            raise ValueError(f"field {self.name!r}: 'follows' needs an enum with 'transitions'")
        return self


class Entity(BaseModel):
    """A kind of thing in the domain; becomes one table."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    plural: str | None = None
    description: str = ""
    label: str
    """The field a user names a row by (a person's name, a product's title)."""
    rows: int = Field(default=40, ge=1, le=1000)
    """Rows at scale 1."""
    fields: tuple[FieldSpec, ...]
    optional: bool = False
    fixed_rows: bool = False
    """``rows`` is exact and never scaled (a lookup table listing a fixed set of values)."""
    unique_together: tuple[tuple[str, ...], ...] = ()
    """Field combinations that are unique together (a link table's pair of references)."""

    @property
    def plural_name(self) -> str:
        return self.plural or _pluralise(self.name)

    def field(self, name: str) -> FieldSpec:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"entity {self.name!r} has no field {name!r}")

    @model_validator(mode="after")
    def _check(self) -> Entity:
        if not _IDENT.match(self.name):
            raise ValueError(f"entity name {self.name!r} must be snake_case")
        names = [f.name for f in self.fields]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"entity {self.name!r}: duplicate fields {dupes}")
        if "id" in names:
            raise ValueError(f"entity {self.name!r}: 'id' is implicit, do not declare it")
        if self.label not in names:
            raise ValueError(f"entity {self.name!r}: label {self.label!r} is not one of its fields")
        if self.field(self.label).type in CATEGORICAL_TYPES:
            raise ValueError(f"entity {self.name!r}: label {self.label!r} is a category; a label must name one row")
        for i, f in enumerate(self.fields):
            if f.after is not None and f.after not in names[:i]:
                raise ValueError(
                    f"entity {self.name!r}: field {f.name!r} must come after the field it follows ({f.after!r})"
                )
            if f.follows is not None:
                if f.follows not in names[:i]:
                    raise ValueError(f"entity {self.name!r}: field {f.name!r} follows unknown or later field {f.follows!r}")
                if self.field(f.follows).values != f.values:
                    raise ValueError(f"entity {self.name!r}: {f.name!r} and {f.follows!r} need the same values")
        for f in self.fields:
            if f.initial is not None and (not self.fixed_rows or len(f.initial) != self.rows):
                raise ValueError(f"entity {self.name!r}: field {f.name!r} lists initial values, so the entity needs "
                                 f"fixed_rows and rows equal to their number")
        for group in self.unique_together:
            unknown = sorted(set(group) - set(names))
            if len(group) < 2 or unknown:
                raise ValueError(f"entity {self.name!r}: unique_together {list(group)} needs 2+ known fields")
        return self


class Operation(BaseModel):
    """A business operation: a guarded status transition, optionally with side effects."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    entity: str
    field: str
    to: str
    description: str
    sets_time: str | None = None
    """A timestamp field of the entity set to the frozen clock when the operation runs."""


class Blueprint(BaseModel):
    """A whole domain."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    title: str
    description: str
    entities: tuple[Entity, ...]
    operations: tuple[Operation, ...] = ()

    def entity(self, name: str) -> Entity:
        for e in self.entities:
            if e.name == name:
                return e
        raise KeyError(f"blueprint {self.name!r} has no entity {name!r}")

    @model_validator(mode="after")
    def _check(self) -> Blueprint:
        names = [e.name for e in self.entities]
        if len(set(names)) != len(names):
            raise ValueError(f"blueprint {self.name!r}: duplicate entity names")
        for e in self.entities:
            for f in e.fields:
                if f.type == "ref" and f.ref not in names:
                    raise ValueError(f"blueprint {self.name!r}: {e.name}.{f.name} refers to unknown entity {f.ref!r}")
                if f.type == "ref" and f.weights is not None:
                    target = self.entity(str(f.ref))
                    if not target.fixed_rows or len(f.weights) != target.rows:
                        raise ValueError(f"blueprint {self.name!r}: {e.name}.{f.name}: weights of a ref need a "
                                         f"fixed_rows target and one weight per row")
        for op in self.operations:
            if op.entity not in names:
                raise ValueError(f"operation {op.name!r}: unknown entity {op.entity!r}")
            field = self.entity(op.entity).field(op.field)
            if field.type != "status" or op.to not in (field.values or ()):
                raise ValueError(f"operation {op.name!r}: {op.entity}.{op.field} is not a status with value {op.to!r}")
            if op.sets_time is not None and self.entity(op.entity).field(op.sets_time).type not in TIME_TYPES:
                raise ValueError(f"operation {op.name!r}: sets_time {op.sets_time!r} is not a time field")
        _check_acyclic(self)
        for e in self.entities:
            for f in e.fields:
                if f.derive is not None:
                    check_derive(self, e, f)
        return self


def _check_acyclic(bp: Blueprint) -> None:
    """Population inserts parents first, so required references must form a DAG."""
    deps = {e.name: {f.ref for f in e.fields if f.type == "ref" and f.ref != e.name} for e in bp.entities}
    done: set[str] = set()
    while len(done) < len(deps):
        ready = [n for n, d in deps.items() if n not in done and d <= done]
        if not ready:
            cycle = sorted(n for n in deps if n not in done)
            raise ValueError(f"blueprint {bp.name!r}: references form a cycle among {cycle}")
        done.update(ready)


def _pluralise(word: str) -> str:
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def templates_dir() -> Path:
    """``templates/`` beside the packages (source checkout or editable install)."""
    return Path(__file__).resolve().parent.parent / "templates"


def domains_dir() -> Path:
    return templates_dir() / "domains"


def load_blueprint_file(path: Path) -> Blueprint:
    with path.open(encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a blueprint must be a YAML mapping")
    try:
        return Blueprint.model_validate(data)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from exc


def list_domains() -> list[str]:
    return sorted(p.stem for p in domains_dir().glob("*.yaml"))


@cache
def load_blueprint(name: str) -> Blueprint:
    path = domains_dir() / f"{name}.yaml"
    if not path.is_file():
        known = ", ".join(list_domains()) or "none"
        raise ValueError(f"unknown domain {name!r}; known domains: {known}")
    return load_blueprint_file(path)
