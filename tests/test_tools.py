"""Step 3: declarative tools, one executor, typed errors, bound parameters only."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.blueprint import list_domains, load_blueprint
from pipeline.populate import populate
from pipeline.runtime.executor import Executor, ToolError
from pipeline.runtime.session import Session, serialise
from pipeline.schema import build_schema
from pipeline.tools import MAX_PAGE_SIZE, build_toolset, openapi_document, validate_openapi

CLOCK = "2026-01-15T12:00:00"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory):
    schema = build_schema(load_blueprint("online_store"))
    toolset = build_toolset(schema)
    path = populate(schema, 1, tmp_path_factory.mktemp("tools") / "s.sqlite").path
    return schema, toolset, Executor(schema, toolset, CLOCK), serialise(path)


@pytest.mark.parametrize("domain", list_domains())
def test_every_entity_has_the_four_tools(domain: str) -> None:
    schema = build_schema(load_blueprint(domain))
    toolset = build_toolset(schema)
    names = set(toolset.names)
    for t in schema.tables:
        assert {f"get_{t.entity}", f"list_{t.name}", f"create_{t.entity}", f"update_{t.entity}"} <= names
    assert len(names) == len(toolset.tools)
    assert len({t.description for t in toolset.tools}) == len(toolset.tools)


STARTERS = ("online_store", "clinic_appointments", "library_loans")


@pytest.mark.parametrize(
    "domain", [d if d in STARTERS else pytest.param(d, marks=pytest.mark.slow) for d in list_domains()]
)
def test_openapi_document_is_valid(domain: str) -> None:
    schema = build_schema(load_blueprint(domain))
    validate_openapi(openapi_document(build_toolset(schema), schema.title, "1.0.0"))


def test_get_list_create_update_and_transition(store) -> None:
    schema, toolset, executor, initial = store
    s = Session(initial, executor)
    order = s.call("get_order", {"id": 1})
    page = s.call("list_orders", {"status": order["status"], "limit": 2})
    assert page["total"] >= 1 and len(page["items"]) <= 2
    assert all(r["status"] == order["status"] for r in page["items"])
    if page["total"] > 2:
        assert page["next_offset"] == 2
    cat = s.call("create_category", {"name": "Zzz Test Category"})
    assert cat["id"] > 0 and cat["name"] == "Zzz Test Category"
    updated = s.call("update_product", {"id": 1, "stock": 5})
    assert updated["stock"] == 5
    pending = s.call("list_orders", {"status": "pending", "limit": 1})["items"]
    if pending:
        cancelled = s.call("cancel_order", {"id": pending[0]["id"]})
        assert cancelled["status"] == "cancelled"


@pytest.mark.parametrize(
    "tool, args, code",
    [
        ("get_order", {"id": 10**9}, "not_found"),
        ("get_order", {"id": "1"}, "invalid_argument"),
        ("get_order", {}, "invalid_argument"),
        ("list_orders", {"limit": MAX_PAGE_SIZE + 1}, "invalid_argument"),
        ("list_orders", {"status": "teleported"}, "invalid_argument"),
        ("create_category", {"name": None}, "invalid_argument"),
        ("create_order_item", {"order_id": 10**6, "product_id": 1, "line_number": "OI-1", "quantity": 1,
                               "unit_price": 3.0}, "not_found"),
        ("update_product", {"id": 1}, "invalid_argument"),
        ("no_such_tool", {}, "invalid_argument"),
    ],
)
def test_bad_calls_get_typed_errors_and_change_nothing(store, tool: str, args: dict, code: str) -> None:
    _, _, executor, initial = store
    s = Session(initial, executor)
    with pytest.raises(ToolError) as exc:
        s.call(tool, args)
    assert exc.value.code == code
    assert exc.value.message
    assert s.conn.serialize() == Session(initial, executor).conn.serialize()


def test_unique_clash_is_a_conflict_and_forbidden_transition_explains(store) -> None:
    _, _, executor, initial = store
    s = Session(initial, executor)
    first = s.call("get_category", {"id": 1})
    with pytest.raises(ToolError) as exc:
        s.call("create_category", {"name": first["name"]})
    assert exc.value.code == "conflict"
    delivered = s.call("list_orders", {"status": "delivered", "limit": 1})["items"][0]
    with pytest.raises(ToolError) as exc:
        s.call("cancel_order", {"id": delivered["id"]})
    assert exc.value.code == "forbidden_transition"
    assert "'delivered'" in exc.value.message and "'pending'" in exc.value.message


def test_sql_fragments_are_data_not_code(store) -> None:
    _, _, executor, initial = store
    s = Session(initial, executor)
    evil = "x'); DROP TABLE orders; --"
    assert s.call("list_customers", {"full_name": evil})["total"] == 0
    assert s.call("list_customers", {"full_name_contains": "' OR 1=1 --"})["total"] == 0
    created = s.call("create_category", {"name": evil})
    assert s.call("get_category", {"id": created["id"]})["name"] == evil
    assert s.call("list_orders", {"limit": 1})["total"] > 0


def test_result_matches_its_declared_schema(store) -> None:
    from jsonschema import Draft202012Validator

    _, toolset, executor, initial = store
    s = Session(initial, executor)
    for name, args in [("get_customer", {"id": 2}), ("list_products", {"limit": 3})]:
        Draft202012Validator(toolset.get(name).result).validate(s.call(name, args))


def test_sessions_are_isolated(store, tmp_path: Path) -> None:
    _, _, executor, initial = store
    a, b = Session(initial, executor), Session(initial, executor)
    a.call("update_product", {"id": 1, "stock": 0})
    b.call("update_product", {"id": 1, "stock": 7})
    assert a.call("get_product", {"id": 1})["stock"] == 0
    assert b.call("get_product", {"id": 1})["stock"] == 7
