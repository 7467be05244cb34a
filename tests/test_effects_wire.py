"""An operation's side effects are one model per kind, and tools.json keeps the one record shape.

A cascade (an order's items cancelled with it) has no lines, item or quantity; a restock (its stock
returned) has no target status. Each kind holds only its own fields, while the file writes every
key of both (the empty ones empty), so bundles built before the split read the same and hash the
same; a key a kind does not have is refused when it holds a value.
"""

from __future__ import annotations

import json

import pytest
from pydantic import TypeAdapter, ValidationError

from pipeline.tools.specs import CascadeStatus, Effect, Restock

WIRE = TypeAdapter(Effect)
CASCADE = {
    "allowed_from": ["issued"],
    "column": "status",
    "item": None,
    "kind": "cascade_status",
    "lines": None,
    "quantity": None,
    "ref": "enrollment_id",
    "table": "certificates",
    "to": "revoked",
}
RESTOCK = {
    "allowed_from": [],
    "column": "stock",
    "item": "product_id",
    "kind": "restock",
    "lines": "order_items",
    "quantity": "quantity",
    "ref": "order_id",
    "table": "products",
    "to": None,
}


@pytest.mark.parametrize(("wire", "kind"), [(CASCADE, CascadeStatus), (RESTOCK, Restock)])
def test_each_kind_reads_and_writes_the_one_record_shape(wire: dict[str, object], kind: type) -> None:
    effect = WIRE.validate_python(wire)
    assert isinstance(effect, kind)
    assert json.loads(WIRE.dump_json(effect)) == wire


def test_a_field_of_the_other_kind_is_refused_when_it_holds_a_value() -> None:
    with pytest.raises(ValidationError):
        WIRE.validate_python({**CASCADE, "lines": "order_items"})
    with pytest.raises(ValidationError):
        WIRE.validate_python({**RESTOCK, "to": "cancelled"})
    with pytest.raises(ValidationError):  # each kind's own fields are required
        WIRE.validate_python({k: v for k, v in RESTOCK.items() if k != "item"})
