"""Domain blueprints: the typed description of a world that every later step reads.

A blueprint is data (YAML under ``templates/domains/``). It names entities, their fields
with *semantic types* (what a value means, so population can make it plausible and tasks
can phrase it), relations (``ref`` fields) and business operations (status transitions).
Validation happens here, once, so later steps can trust the structure.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, model_validator

from pipeline.world.derive import check_derive, derivations
from pipeline.world.fields import (
    CATEGORICAL_TYPES,
    NUMERIC_TYPES,
    TIME_TYPES,
    VOCABULARY_TYPES,
    Entity,
    Operation,
    identifier,
)
from pipeline.world.rules import operands, parse, split
from pipeline.world.vocab import check_vocab
from pipeline.world.yamlfile import load_yaml


class Blueprint(BaseModel):
    """A whole domain."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    title: str
    description: str
    entities: tuple[Entity, ...]
    operations: tuple[Operation, ...] = ()
    vocab: dict[str, str] = {}
    """Semantic type -> vocabulary for this domain's text fields that do not name their own."""

    def entity(self, name: str) -> Entity:
        for e in self.entities:
            if e.name == name:
                return e
        raise KeyError(f"blueprint {self.name!r} has no entity {name!r}")

    @model_validator(mode="after")
    def _check(self) -> Blueprint:
        identifier(self.name, "blueprint name")  # it becomes the bundle's name and path
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
                        raise ValueError(
                            f"blueprint {self.name!r}: {e.name}.{f.name}: weights of a ref need a "
                            f"fixed_rows target and one weight per row"
                        )
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
        _check_vocabularies(self)
        _check_rules(self)
        _check_histories(self)
        _check_settles(self)
        return self


def _check_vocabularies(bp: Blueprint) -> None:
    for semantic, name in bp.vocab.items():
        if semantic not in VOCABULARY_TYPES:
            raise ValueError(f"blueprint {bp.name!r}: vocab for {semantic!r}, which is not a text type")
        check_vocab(name, f"blueprint {bp.name!r}")
    for e in bp.entities:
        for f in e.fields:
            if f.vocab is not None:
                check_vocab(f.vocab, f"{e.name}.{f.name}")
            if f.vocab_by is not None:
                # References are drawn before any other column; an enum must come earlier in the list.
                names = [x.name for x in e.fields]
                by = e.field(f.vocab_by) if f.vocab_by in names else None
                if by is None or by.type not in ("enum", "ref"):
                    raise ValueError(f"{e.name}.{f.name}: vocab_by {f.vocab_by!r} must be an enum or a ref field")
                if by.type == "enum" and names.index(by.name) > names.index(f.name):
                    raise ValueError(f"{e.name}.{f.name}: vocab_by {f.vocab_by!r} must come before it")


def _check_rules(bp: Blueprint) -> None:
    """Every operand exists with a fitting type; the adjusted (left) field is free to move."""
    rules = derivations(bp)
    fixed = set(rules)
    for (entity, _field), rule in rules.items():
        if rule.kind == "sum":
            fixed.update((str(rule.child), f) for f in (*rule.factors, str(rule.via)))
        elif rule.kind == "copy":
            fixed.update((entity, f) for f in (*rule.factors, str(rule.via)))
            target = str(bp.entity(entity).field(str(rule.via)).ref)
            fixed.add((target, str(rule.source)))
    for e in bp.entities:
        names = [f.name for f in e.fields]
        for r in e.rules:
            where = f"{e.name} rule {r.check!r}"
            left, _, right = split(r.check)
            if left not in names:
                raise ValueError(f"{where}: {e.name!r} has no field {left!r}")
            kind = e.field(left).type
            if kind not in NUMERIC_TYPES and kind not in TIME_TYPES:
                raise ValueError(f"{where}: the left side must be a numeric or time field")
            if (e.name, left) in fixed:
                raise ValueError(f"{where}: {left!r} is derived or feeds a derivation; put a free field on the left")
            for ref in [*operands(right), *(operands(parse(r.when, condition=True)) if r.when else [])]:
                _operand_type(bp, e, ref.field, ref.via, where)
            for ref in operands(right):
                t = _operand_type(bp, e, ref.field, ref.via, where)
                if (kind in TIME_TYPES) != (t in TIME_TYPES) or t in CATEGORICAL_TYPES:
                    raise ValueError(f"{where}: {ref.field!r} cannot be compared with {left!r}")
                if kind in TIME_TYPES and ref.via is None and ref.field in names[names.index(left) :]:
                    raise ValueError(f"{where}: a time rule may only use earlier fields of the entity")
            if kind in TIME_TYPES and r.when is not None:
                raise ValueError(f"{where}: a time rule applies to every row (no 'when')")


def _operand_type(bp: Blueprint, e: Entity, field: str, via: str | None, where: str) -> str:
    try:
        if via is None:
            return e.field(field).type
        ref = e.field(via)
        if ref.type != "ref":
            raise ValueError(f"{via!r} is not a ref field")
        return bp.entity(str(ref.ref)).field(field).type
    except KeyError as exc:
        raise ValueError(f"{where}: {exc.args[0]}") from None


def _check_histories(bp: Blueprint) -> None:
    """A history entity: one ref to its subject, from/to enums of the subject's status values, a time."""
    for e in bp.entities:
        if e.history_of is None:
            continue
        where = f"{e.name}: history_of {e.history_of!r}"
        subject, _, field = e.history_of.partition(".")
        try:
            status = bp.entity(subject).field(field)
        except KeyError:
            raise ValueError(f"{where}: no such entity field") from None
        if status.type != "status" or not status.transitions:
            raise ValueError(f"{where}: not a status with transitions")
        refs = [f for f in e.fields if f.type == "ref" and f.ref == subject]
        moves = [f for f in e.fields if f.follows is not None]
        times = [f for f in e.fields if f.type == "timestamp" and not f.nullable]
        if len(refs) != 1 or len(moves) != 1 or not times:
            raise ValueError(f"{where}: needs one ref to {subject!r}, one from/to pair (follows) and a timestamp")
        if moves[0].values != status.values:
            raise ValueError(f"{where}: its from/to values must be the status values")


def _check_settles(bp: Blueprint) -> None:
    """A settling entity pays a numeric field of its parent, grouped by statuses the parent has."""
    rules = derivations(bp)
    feeds = {(str(r.child), f) for r in rules.values() if r.kind == "sum" for f in (*r.factors, str(r.via))}
    for e in bp.entities:
        s = e.settles
        if s is None:
            continue
        where = f"{e.name}: settles"
        if (e.name, s.amount) in feeds or (e.name, s.amount) in rules:
            raise ValueError(f"{where}: {s.amount!r} is derived or feeds a derivation")
        parent = bp.entity(str(e.field(s.parent).ref))
        names = [f.name for f in parent.fields]
        if s.total not in names or parent.field(s.total).type not in ("money", "decimal"):
            raise ValueError(f"{where}: total {s.total!r} is not a money field of {parent.name!r}")
        statuses = [f.name for f in parent.fields if f.type == "status"]
        status = s.status or (statuses[0] if len(statuses) == 1 else None)
        if status is None or status not in statuses:
            raise ValueError(f"{where}: name the status field of {parent.name!r} (one of {statuses})")
        values = set(parent.field(status).values or ())
        unknown = sorted(v for v in (*s.paid, *s.open, *s.none) if v not in values)
        if unknown:
            raise ValueError(f"{where}: {parent.name}.{status} has no values {unknown}")


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


def templates_dir() -> Path:
    """``templates/`` beside the packages (source checkout or editable install)."""
    return Path(__file__).resolve().parents[2] / "templates"


def domains_dir() -> Path:
    return templates_dir() / "domains"


def load_blueprint_file(path: Path) -> Blueprint:
    with path.open(encoding="utf-8") as fh:
        data = load_yaml(fh)
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
