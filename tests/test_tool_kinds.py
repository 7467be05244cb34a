"""One tool-spec model per tool kind: each holds only its own fields, and tools.json keeps its shape."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from pydantic import ValidationError

from pipeline.tools.model import _KINDS, _WIRE
from pipeline.tools.specs import (
    AggregateTool,
    CreateTool,
    DeleteTool,
    GetTool,
    ListTool,
    Toolset,
    TransitionTool,
    UpdateTool,
    build_toolset,
)
from pipeline.world.blueprint import load_blueprint
from pipeline.world.schema import build_schema
from pipeline.world.variants import random_schema

WIRE_KEYS = {"name", "description", "kind", "table", "mode", "parameters", "result", "errors", *_WIRE}
"""Every key a tool record of tools.json has, whatever its kind (the shape bundles have always had)."""


@pytest.fixture(scope="module")
def toolset() -> Toolset:
    return build_toolset(build_schema(load_blueprint("online_store"), random.Random(0)))


def _wire(toolset: Toolset) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = json.loads(toolset.model_dump_json())["tools"]
    return tools


def _base(kind: str) -> dict[str, Any]:
    return {
        "name": f"a_{kind}",
        "description": "d",
        "kind": kind,
        "table": "orders",
        "parameters": {"type": "object"},
        "result": {"type": "object"},
        "errors": ["invalid_argument"],
    }


OWN: dict[str, dict[str, Any]] = {
    "get": {},
    "delete": {},
    "list": {"columns": ["status"]},
    "aggregate": {"columns": ["status"]},
    "create": {"columns": ["total"]},
    "update": {"columns": ["total"], "status_column": "status", "transitions": {"pending": ["paid"]}, "reserved": {}},
    "transition": {"status_column": "status", "to": "paid", "allowed_from": ["pending"], "sets_time": "paid_at"},
}
"""A valid value for every field each kind owns."""
FOREIGN = {
    "columns": ["total"],
    "status_column": "status",
    "to": "paid",
    "allowed_from": ["pending"],
    "sets_time": "paid_at",
    "transitions": {"pending": ["paid"]},
    "reserved": {"paid": "pay_order"},
    "effects": [{"kind": "restock", "table": "products", "column": "stock", "ref": "order_id"}],
}
"""A non-empty value for every field some kind has."""


def test_the_surface_holds_every_kind_as_its_own_model(toolset: Toolset) -> None:
    by_kind = {t.kind: type(t) for t in toolset.tools}
    assert by_kind == {
        "get": GetTool,
        "list": ListTool,
        "aggregate": AggregateTool,
        "create": CreateTool,
        "update": UpdateTool,
        "delete": DeleteTool,
        "transition": TransitionTool,
    }
    assert all(t.mode == ("read" if t.kind in ("get", "list", "aggregate") else "write") for t in toolset.tools)


@pytest.mark.parametrize("kind", sorted(OWN))
def test_a_kind_refuses_every_field_it_does_not_have(kind: str) -> None:
    model = _KINDS[kind]
    model.model_validate({**_base(kind), **OWN[kind]})
    foreign = [f for f in FOREIGN if f not in model.model_fields]
    assert foreign, kind
    for field in foreign:
        with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
            model.model_validate({**_base(kind), **OWN[kind], field: FOREIGN[field]})
        # Read from a bundle, an empty value of another kind's field is the shared record shape; a real one is not.
        with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
            Toolset.model_validate({"domain": "d", "tools": [{**_base(kind), **OWN[kind], field: FOREIGN[field]}]})


def test_a_get_tool_does_not_take_a_status() -> None:
    with pytest.raises(ValidationError):
        GetTool(**_base("get"), status_column="status")  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        ListTool(**_base("list"), columns=("status",), to="paid")  # type: ignore[call-arg]


def test_an_update_moves_a_status_only_with_its_transitions() -> None:
    with pytest.raises(ValidationError, match="go together"):
        UpdateTool.model_validate({**_base("update"), "columns": [], "status_column": "status"})
    with pytest.raises(ValidationError, match="go together"):
        UpdateTool.model_validate({**_base("update"), "columns": [], "reserved": {"paid": "pay_order"}})
    plain = UpdateTool.model_validate({**_base("update"), "columns": ["total"]})
    assert plain.status_column is None and plain.transitions is None and plain.reserved == {}


def test_a_transition_needs_its_status_and_target() -> None:
    with pytest.raises(ValidationError):
        TransitionTool.model_validate({**_base("transition"), "allowed_from": ["pending"]})


@pytest.mark.parametrize("build", ["online_store", "random-2"])
def test_tools_json_keeps_one_record_shape_and_reads_back_the_same(build: str) -> None:
    schema = random_schema(2) if build == "random-2" else build_schema(load_blueprint(build), random.Random(0))
    toolset = build_toolset(schema)
    wire = _wire(toolset)
    assert all(set(t) == WIRE_KEYS for t in wire)
    get = next(t for t in wire if t["kind"] == "get")
    assert (get["columns"], get["status_column"], get["effects"], get["reserved"]) == ([], None, [], {})
    back = Toolset.model_validate_json(toolset.model_dump_json())
    assert back == toolset
    assert [type(t) for t in back.tools] == [type(t) for t in toolset.tools]
    assert _wire(back) == wire


def test_get_by_kind(toolset: Toolset) -> None:
    assert isinstance(toolset.get("list_orders", ListTool), ListTool)
    assert toolset.get("cancel_order", TransitionTool).to == "cancelled"
    with pytest.raises(TypeError, match="list tool"):
        toolset.get("list_orders", CreateTool)
    with pytest.raises(KeyError):
        toolset.get("no_such_tool")
