"""The ``derive`` mini-language of blueprint fields, parsed into a :class:`Rule`.

Why the rules exist and how they are checked against a blueprint: :mod:`pipeline.world.derive`.
The grammar lives apart so field validation can parse without knowing blueprints.

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
* ``loan_id.member_id`` on a ref field: the referenced row's reference (the same party);
* ``none``: no rule, and no inference either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

_NAME = r"[a-z][a-z0-9_]*"
_SUM = re.compile(rf"^sum\(\s*({_NAME})\.({_NAME})((?:\s*\*\s*(?:{_NAME}\.)?{_NAME})*)\s*\)$")
_TERM = re.compile(rf"^({_NAME})(?:\.({_NAME}))?$")


@dataclass(frozen=True)
class Rule:
    """A derivation in blueprint terms (entity and field names, before any restyling)."""

    kind: Literal["sum", "copy", "none"]
    child: str | None = None
    """sum: the child entity whose rows are added up."""
    via: str | None = None
    """sum: the child's ref field to this entity; copy: this entity's ref field."""
    source: str | None = None
    """copy: the field of the referenced entity."""
    factors: tuple[str, ...] = ()
    """sum: child fields multiplied per child row; copy: own fields the copied value is multiplied by."""


def parse_derive(text: str) -> Rule:
    """Parse the ``derive`` mini-language; ``via`` of a sum is resolved later, against the blueprint."""
    text = text.strip()
    if text == "none":
        return Rule(kind="none")
    m = _SUM.match(text)
    if m:
        child, first, rest = m.group(1), m.group(2), m.group(3)
        factors = [first]
        for term in (t.strip() for t in rest.split("*") if t.strip()):
            owner, _, name = term.rpartition(".")
            if owner and owner != child:
                raise ValueError(f"derive {text!r}: every factor must belong to {child!r}")
            factors.append(name)
        return Rule(kind="sum", child=child, factors=tuple(factors))
    refs: list[tuple[str, str]] = []
    own: list[tuple[str, str]] = []
    for term in (t.strip() for t in text.split("*")):
        t = _TERM.match(term)
        if not t:
            raise ValueError(f"derive {text!r}: cannot read term {term!r}")
        (refs if t.group(2) else own).append((t.group(1), t.group(2)))
    if len(refs) != 1:
        raise ValueError(f"derive {text!r}: needs exactly one 'ref_field.field' term (or sum(...) or none)")
    return Rule(kind="copy", via=refs[0][0], source=refs[0][1], factors=tuple(name for name, _ in own))
