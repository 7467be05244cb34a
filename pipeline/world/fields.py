"""The parts of a blueprint: fields with semantic types, entities and operations.

Each part validates itself; :mod:`pipeline.world.blueprint` checks how they fit together.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from pipeline.world.formula import parse_derive
from pipeline.world.rules import parse

SemanticType = Literal[
    # people and organisations
    "person_name",
    "first_name",
    "last_name",
    "email",
    "phone",
    "username",
    "company",
    "job_title",
    # places
    "address",
    "city",
    "country",
    "postcode",
    # names of things and text
    "product_name",
    "title",
    "word",
    "text",
    "color",
    # identifiers
    "sku",
    "code",
    "isbn",
    "license_plate",
    "url",
    "file_name",
    # numbers
    "money",
    "quantity",
    "integer",
    "rating",
    "percent",
    "decimal",
    "boolean",
    # time
    "date",
    "timestamp",
    # categorical
    "status",
    "enum",
    # relation
    "ref",
]
"""Every semantic type population knows how to generate; anything else is refused."""

TEXTUAL_TYPES = frozenset(
    {
        "person_name",
        "first_name",
        "last_name",
        "email",
        "phone",
        "username",
        "company",
        "job_title",
        "address",
        "city",
        "country",
        "postcode",
        "product_name",
        "title",
        "word",
        "text",
        "color",
        "sku",
        "code",
        "isbn",
        "license_plate",
        "url",
        "file_name",
    }
)
CATEGORICAL_TYPES = frozenset({"status", "enum"})
NUMERIC_TYPES = frozenset({"money", "quantity", "integer", "rating", "percent", "decimal"})
TIME_TYPES = frozenset({"date", "timestamp"})

_IDENT = re.compile(r"^[a-z][a-z0-9_]{0,40}$")
VOCABULARY_TYPES = frozenset({"product_name", "title", "word", "text", "job_title", "company", "color"})
"""Free-text types a blueprint may give its own vocabulary (structured ones keep their formats)."""
MAX_VOCABULARY = 500
MAX_VOCABULARY_VALUE = 300
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def identifier(value: str, what: str) -> str:
    """``value`` if it is a snake_case identifier (it becomes a table, column or tool name)."""
    if not _IDENT.match(value):
        raise ValueError(f"{what} {value!r} must be snake_case (a-z, 0-9, _; at most 41 characters)")
    return value


def _check_vocabulary(field: FieldSpec) -> None:
    words = field.vocabulary or ()
    if field.type not in VOCABULARY_TYPES or field.initial is not None:
        raise ValueError(f"field {field.name!r}: 'vocabulary' applies to {sorted(VOCABULARY_TYPES)} fields only")
    if not 1 <= len(words) <= MAX_VOCABULARY or len(set(words)) != len(words):
        raise ValueError(f"field {field.name!r}: 'vocabulary' needs 1..{MAX_VOCABULARY} distinct values")
    for w in words:
        if not w.strip() or w != w.strip() or len(w) > MAX_VOCABULARY_VALUE or _CONTROL.search(w):
            raise ValueError(
                f"field {field.name!r}: vocabulary value {w[:40]!r} must be trimmed, non-empty text of at most "
                f"{MAX_VOCABULARY_VALUE} characters without control characters"
            )


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
    """How the value follows from other rows (see :mod:`pipeline.world.derive`): ``sum(line.qty * line.price)``,
    ``product_id.price``, ``quantity * product_id.price``, or ``none`` to switch inference off."""
    initial: tuple[str, ...] | None = None
    """For a unique text field of a ``fixed_rows`` entity: the values of its rows, in order (a
    lookup table's list). Unlike ``values`` this is data, not a constraint: new rows may add more."""
    follows: str | None = None
    """For an enum with ``transitions``: an earlier enum of the same entity whose value this one is a
    legal next state of (a history row's ``to_status`` follows its ``from_status``)."""
    vocabulary: tuple[str, ...] | None = None
    """For a free-text field (names of things, titles, words, text, jobs, companies): the values
    population draws from instead of its built-in pools. Data only: strings, stored as written."""
    vocab: str | None = None
    """For a text field: the vocabulary (``templates/vocab/<name>.yaml``) its values come from; by default
    the blueprint's vocabulary for the field's semantic type, else the catalogue default for the type."""
    vocab_by: str | None = None
    """A field of the same entity (an enum, or a ref whose label is used) picking the vocabulary's group:
    product names per category."""

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
            if self.type not in NUMERIC_TYPES and self.type != "ref":
                raise ValueError(f"field {self.name!r}: 'derive' only applies to numeric and ref fields")
            parse_derive(self.derive)
        if self.initial is not None and (
            self.type not in TEXTUAL_TYPES or not self.unique or len(set(self.initial)) != len(self.initial)
        ):
            raise ValueError(f"field {self.name!r}: 'initial' needs a unique text field and distinct values")
        if self.follows is not None and (self.type not in CATEGORICAL_TYPES or not self.transitions):
            raise ValueError(f"field {self.name!r}: 'follows' needs an enum with 'transitions'")
        if self.vocabulary is not None:
            _check_vocabulary(self)
        if (self.vocab is not None or self.vocab_by is not None) and self.type not in VOCABULARY_TYPES:
            raise ValueError(f"field {self.name!r}: 'vocab' applies to text fields, not {self.type}")
        if self.vocab is not None and self.vocabulary is not None:
            raise ValueError(f"field {self.name!r}: give 'vocab' (a named list) or 'vocabulary' (values), not both")
        if self.vocab_by is not None and self.vocab is None:
            raise ValueError(f"field {self.name!r}: 'vocab_by' needs 'vocab'")
        return self


class RuleSpec(BaseModel):
    """A cross-field business rule of an entity (syntax and meaning: :mod:`pipeline.world.rules`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    check: str
    """One comparison, its left side a numeric or time field of the entity: ``insurance_covered <= amount``."""
    when: str | None = None
    """The rows it applies to: ``movement == 'contemporary'``; every row when absent."""
    message: str = ""
    """What a refused write is told, in the domain's words."""

    @model_validator(mode="after")
    def _check(self) -> RuleSpec:
        parse(self.check)
        if self.when is not None:
            parse(self.when, condition=True)
        return self


class SettlesSpec(BaseModel):
    """This entity's rows pay off a parent's amount (payments of an order, payouts of a claim).

    Why it is declared: a cap per row (``amount <= order_id.total``) still lets three payments
    add up to twice the order, and leaves delivered orders unpaid. With this, population splits
    each parent's amount over its children by the parent's status: exactly (to the cent) for a
    settled parent, strictly less for an open one, none for a parent that takes no payment, and at
    most the amount for any other status; the realism check counts each violation.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    parent: str
    """The entity's ref field to the parent (``order_id``)."""
    amount: str
    """The entity's money field that is paid (``amount``)."""
    total: str
    """The parent's numeric field the children pay off (``total``, derived or not)."""
    status: str | None = None
    """The parent's status field; when absent, the parent's only one."""
    paid: tuple[str, ...]
    """Statuses of a parent paid in full: 1-3 children whose amounts sum exactly to the total."""
    open: tuple[str, ...] = ()
    """Statuses of a parent paid in part so far: 0-2 children summing to strictly less than the total."""
    none: tuple[str, ...] = ()
    """Statuses of a parent that has taken no payment: no children."""

    @model_validator(mode="after")
    def _check(self) -> SettlesSpec:
        if not self.paid:
            raise ValueError("settles: 'paid' needs at least one status")
        groups = [*self.paid, *self.open, *self.none]
        twice = sorted({v for v in groups if groups.count(v) > 1})
        if twice:
            raise ValueError(f"settles: statuses listed in more than one group: {twice}")
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
    rules: tuple[RuleSpec, ...] = ()
    """Business rules every row obeys (population draws them, write tools refuse breaking them)."""
    history_of: str | None = None
    """``entity.status_field`` whose changes this entity records, one row per change (from, to, when);
    population writes each row's path through the state machine, and operations add a row."""
    settles: SettlesSpec | None = None
    """The rows are payments of a parent's amount (:class:`SettlesSpec`)."""

    @field_validator("rules", mode="before")
    @classmethod
    def _rule_text(cls, value: object) -> object:
        if isinstance(value, list | tuple):
            return [{"check": v} if isinstance(v, str) else v for v in value]
        return value

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
        if self.plural is not None:
            identifier(self.plural, f"entity {self.name!r}: plural")
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
                    raise ValueError(
                        f"entity {self.name!r}: field {f.name!r} follows unknown or later field {f.follows!r}"
                    )
                if self.field(f.follows).values != f.values:
                    raise ValueError(f"entity {self.name!r}: {f.name!r} and {f.follows!r} need the same values")
        for f in self.fields:
            if f.initial is not None and (not self.fixed_rows or len(f.initial) != self.rows):
                raise ValueError(
                    f"entity {self.name!r}: field {f.name!r} lists initial values, so the entity needs "
                    f"fixed_rows and rows equal to their number"
                )
        if self.settles is not None:
            s = self.settles
            if s.parent not in names or self.field(s.parent).type != "ref":
                raise ValueError(f"entity {self.name!r}: settles parent {s.parent!r} is not one of its ref fields")
            if s.amount not in names or self.field(s.amount).type != "money":
                raise ValueError(f"entity {self.name!r}: settles amount {s.amount!r} is not one of its money fields")
            if self.field(s.amount).derive is not None or self.history_of is not None:
                raise ValueError(f"entity {self.name!r}: a settling amount is drawn, not derived or a history")
            if any(s.parent in g for g in self.unique_together):
                raise ValueError(f"entity {self.name!r}: settles parent {s.parent!r} is in a unique_together group")
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

    @model_validator(mode="after")
    def _check(self) -> Operation:
        identifier(self.name, "operation name")  # it becomes a tool name
        return self


def _pluralise(word: str) -> str:
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"
