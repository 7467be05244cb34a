"""Derived values: the columns whose value follows from other rows.

Real data is internally consistent: an order's total is the sum of its lines, a line's
unit price is the product's price, a stay's total is nights times the room rate. A
blueprint can say so explicitly (``derive:`` on a field) and, where it does not, the
common shapes are inferred from names and types, so every domain gets the same
guarantees without per-domain code. Population enforces the rules and tests check them.

Syntax of ``derive``:

* ``sum(order_item.quantity * order_item.unit_price)``: the sum over the child rows
  that reference this row (through the child's only reference to this entity);
* ``product_id.price``: copied from the referenced row;
* ``quantity * product_id.price``: the referenced value times fields of this row;
* ``loan_id.member_id`` on a ref field: the same party as the referenced row's (a fine is
  owed by the member who had the loan), so one person never appears two ways on one record;
* ``none``: no rule, and no inference either.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from pipeline.world.fields import NUMERIC_TYPES as NUMERIC
from pipeline.world.fields import Entity, FieldSpec
from pipeline.world.formula import Rule, parse_derive

_TOTAL = re.compile(r"(^|_)(sub)?total(_|$)")
_UNIT_PRICE = re.compile(r"^(unit_)?(price|cost|rate)$")
_PRICE_SOURCE = re.compile(r"(^|_)(price|cost|rate|fee)$")
_QTY = re.compile(r"(^|_)(quantity|qty|units|nights|days|hours|seats|tickets)(_|$)")


class EntityLookup(Protocol):
    """What derivation needs of a blueprint: its entities, and one by name."""

    @property
    def entities(self) -> Sequence[Entity]: ...

    def entity(self, name: str) -> Entity: ...


def _refs_to(entity: Entity, target: str) -> list[str]:
    return [f.name for f in entity.fields if f.type == "ref" and f.ref == target]


def _numeric(entity: Entity, name: str) -> FieldSpec:
    try:
        field = entity.field(name)
    except KeyError:
        raise ValueError(f"entity {entity.name!r} has no field {name!r}") from None
    if field.type not in NUMERIC:
        raise ValueError(f"{entity.name}.{name} is not numeric")
    return field


def resolve(bp: EntityLookup, entity: Entity, field: FieldSpec, rule: Rule) -> Rule:
    """Check a rule against the blueprint and fill in what the syntax leaves implicit."""
    where = f"derive of {entity.name}.{field.name}"
    try:
        if rule.kind == "sum":
            child = bp.entity(str(rule.child))
            refs = _refs_to(child, entity.name)
            if len(refs) != 1:
                raise ValueError(f"{child.name!r} must reference {entity.name!r} exactly once, found {refs}")
            for name in rule.factors:
                _numeric(child, name)
            return Rule(kind="sum", child=child.name, via=refs[0], factors=rule.factors)
        if rule.kind == "copy":
            ref = entity.field(str(rule.via))
            if ref.type != "ref":
                raise ValueError(f"{rule.via!r} is not a ref field")
            if field.type == "ref":
                _same_party(bp, entity, field, ref, str(rule.source), rule.factors)
                return rule
            _numeric(bp.entity(str(ref.ref)), str(rule.source))
            for name in rule.factors:
                if name == field.name:
                    raise ValueError("a field cannot be a factor of itself")
                _numeric(entity, name)
        return rule
    except (KeyError, ValueError) as exc:
        raise ValueError(f"{where}: {exc}") from None


def _same_party(
    bp: EntityLookup, entity: Entity, field: FieldSpec, via: FieldSpec, source: str, factors: tuple[str, ...]
) -> None:
    """A copied reference must point where its source points, through another parent, with nothing to multiply."""
    if factors:
        raise ValueError("a copied reference takes no factors")
    if via.name == field.name:
        raise ValueError("a reference cannot be copied through itself")
    parent = bp.entity(str(via.ref))
    try:
        src = parent.field(source)
    except KeyError:
        raise ValueError(f"entity {parent.name!r} has no field {source!r}") from None
    if src.type != "ref" or src.ref != field.ref:
        raise ValueError(f"{parent.name}.{source} is not a reference to {field.ref!r}")
    if any(field.name in group for group in entity.unique_together):
        raise ValueError("a copied reference cannot be part of unique_together (copies repeat)")


def check_derive(bp: EntityLookup, entity: Entity, field: FieldSpec) -> None:
    resolve(bp, entity, field, parse_derive(str(field.derive)))


def _qty_field(entity: Entity) -> str | None:
    for f in entity.fields:
        if f.type == "quantity" and _QTY.search(f.name):
            return f.name
    for f in entity.fields:
        if f.type in ("quantity", "integer") and _QTY.search(f.name):
            return f.name
    return None


def _infer_total(bp: EntityLookup, entity: Entity, field: FieldSpec) -> Rule | None:
    """A ``total`` is the sum of its lines (quantity x unit price), else own quantity x a referenced rate."""
    for child in bp.entities:
        refs = _refs_to(child, entity.name)
        if len(refs) != 1 or child.name == entity.name:
            continue
        qty = _qty_field(child)
        prices = [f.name for f in child.fields if f.type == "money" and _UNIT_PRICE.match(f.name)]
        if qty and prices:
            return Rule(kind="sum", child=child.name, via=refs[0], factors=(qty, prices[0]))
    qty = _qty_field(entity)
    if qty is None:
        return None
    for ref in (f for f in entity.fields if f.type == "ref" and f.ref != entity.name):
        parent = bp.entity(str(ref.ref))
        sources = [
            f.name
            for f in parent.fields
            if f.type == "money" and _PRICE_SOURCE.search(f.name) and not _TOTAL.search(f.name)
        ]
        if sources:
            return Rule(kind="copy", via=ref.name, source=sources[0], factors=(qty,))
    return None


def _infer_unit_price(bp: EntityLookup, entity: Entity, field: FieldSpec) -> Rule | None:
    """A line's unit price is the referenced item's price (same name preferred)."""
    for ref in (f for f in entity.fields if f.type == "ref" and f.ref != entity.name):
        parent = bp.entity(str(ref.ref))
        sources = [
            f.name
            for f in parent.fields
            if f.type == "money" and _PRICE_SOURCE.search(f.name) and not _TOTAL.search(f.name)
        ]
        if field.name in sources:
            return Rule(kind="copy", via=ref.name, source=field.name)
        kind = field.name.removeprefix("unit_")
        same_kind = [s for s in sources if s.endswith(kind)]
        if same_kind:
            return Rule(kind="copy", via=ref.name, source=same_kind[0])
    return None


def derivations(bp: EntityLookup) -> dict[tuple[str, str], Rule]:
    """Every rule of the blueprint, explicit first, then inferred; keyed by (entity, field)."""
    out: dict[tuple[str, str], Rule] = {}
    for entity in bp.entities:
        for field in entity.fields:
            rule: Rule | None
            if field.derive is not None:
                rule = resolve(bp, entity, field, parse_derive(field.derive))
                if rule.kind == "none":
                    continue
            elif field.type != "money" or field.unique:
                continue
            elif _TOTAL.search(field.name):
                rule = _infer_total(bp, entity, field)
            elif _UNIT_PRICE.match(field.name):
                rule = _infer_unit_price(bp, entity, field)
            else:
                rule = None
            if rule is not None:
                out[(entity.name, field.name)] = rule
    return _acyclic(out)


def _acyclic(rules: dict[tuple[str, str], Rule]) -> dict[tuple[str, str], Rule]:
    """Drop inferred rules that would depend on each other in a circle (never expected, but cheap to rule out)."""

    def deps(key: tuple[str, str], rule: Rule) -> set[tuple[str, str]]:
        if rule.kind == "sum":
            return {(str(rule.child), f) for f in rule.factors}
        return {(key[0], f) for f in rule.factors}

    keep = dict(rules)
    changed = True
    while changed:
        changed = False
        for key in list(keep):
            seen, stack = set(), [key]
            while stack:
                node = stack.pop()
                for d in deps(node, keep[node]) if node in keep else ():
                    if d == key:
                        del keep[key]
                        changed = True
                        stack = []
                        break
                    if d not in seen:
                        seen.add(d)
                        stack.append(d)
                if key not in keep:
                    break
    return keep
