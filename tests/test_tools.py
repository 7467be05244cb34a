"""Step 3: declarative tools, one executor, typed errors, bound parameters only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pipeline.bundle.format import serialise
from pipeline.data.populate import populate
from pipeline.runtime.session import Session
from pipeline.tools.executor import Executor, ToolError
from pipeline.tools.openapi import (
    openapi_document,
    validate_argument_schemas,
    validate_openapi,
)
from pipeline.tools.specs import MAX_PAGE_SIZE, MAX_TOOLS, MIN_TOOLS, build_toolset, table_role
from pipeline.tools.stats import report_tables
from pipeline.world.blueprint import list_domains, load_blueprint
from pipeline.world.schema import build_schema

CLOCK = "2026-01-15T12:00:00"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory):
    schema = build_schema(load_blueprint("online_store"))
    toolset = build_toolset(schema)
    path = populate(schema, 1, tmp_path_factory.mktemp("tools") / "s.sqlite").path
    return schema, toolset, Executor(schema, toolset, CLOCK), serialise(path)


@pytest.mark.parametrize("domain", list_domains())
def test_every_entity_has_a_list_and_records_their_writes(domain: str) -> None:
    schema = build_schema(load_blueprint(domain))
    toolset = build_toolset(schema)
    names = set(toolset.names)
    for t in schema.tables:
        assert f"list_{t.name}" in names
        if table_role(t) in ("history", "lookup"):
            assert not any(s.table == t.name and s.mode == "write" for s in toolset.tools if s.kind != "transition")
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
    _schema, _toolset, executor, initial = store
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


def test_a_list_s_total_and_next_offset_are_the_count_at_every_page(store) -> None:
    """The count is read from a page that ends short of its limit; a full page, or one past the
    last match, still asks for it: every page must report what a separate count says."""
    _schema, _toolset, executor, initial = store
    s = Session(initial, executor)
    statuses = [r[0] for r in s.conn.execute("SELECT DISTINCT status FROM orders ORDER BY status")]
    cases: list[tuple[dict[str, Any], str]] = [({}, "")]
    cases += [({"status": v}, f"status = '{v}'") for v in statuses]
    cases.append(({"placed_at_from": "2999-01-01T00:00:00"}, "placed_at >= '2999'"))
    for args, where in cases:
        want = s.conn.execute(f"SELECT count(*) FROM orders{' WHERE ' + where if where else ''}").fetchone()[0]
        for limit in (1, 2, 7, 50):
            for offset in (0, 1, max(0, want - limit), max(0, want - 1), want, want + 3):
                page = s.call("list_orders", {**args, "limit": limit, "offset": offset})
                assert page["total"] == want, (args, limit, offset)
                assert len(page["items"]) == max(0, min(limit, want - offset))
                end = offset + len(page["items"])
                assert page["next_offset"] == (end if end < want else None)


@pytest.mark.parametrize(
    "tool, args, code",
    [
        ("get_order", {"id": 10**9}, "not_found"),
        ("get_order", {"id": "1"}, "invalid_argument"),
        ("get_order", {}, "invalid_argument"),
        ("list_orders", {"limit": MAX_PAGE_SIZE + 1}, "invalid_argument"),
        ("list_orders", {"status": "teleported"}, "invalid_argument"),
        ("create_category", {"name": None}, "invalid_argument"),
        (
            "create_order_item",
            {"order_id": 10**6, "product_id": 1, "line_number": "OI-1", "quantity": 1, "unit_price": 3.0},
            "not_found",
        ),
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


# -- synthesis breadth: aggregates, deletes, guarded updates, effects ------------------------


@pytest.mark.parametrize(
    "domain", [d if d in STARTERS else pytest.param(d, marks=pytest.mark.slow) for d in list_domains()]
)
def test_tool_count_and_kinds(domain: str) -> None:
    schema = build_schema(load_blueprint(domain))
    toolset = build_toolset(schema)
    kinds = {t.kind for t in toolset.tools}
    assert MIN_TOOLS <= len(toolset.tools) <= MAX_TOOLS
    assert {"get", "list", "create", "update"} <= kinds
    assert ("aggregate" in kinds) == bool(report_tables(schema))
    validate_argument_schemas(toolset)
    for t in toolset.tools:
        assert t.errors and t.description and t.mode == ("read" if t.kind in ("get", "list", "aggregate") else "write")


def test_openapi_routes_take_the_session_header_and_list_errors(store) -> None:
    _, toolset, _, _ = store
    doc = openapi_document(toolset, "Online store", "1.0.0")
    assert set(doc["paths"]) == {f"/tools/{n}" for n in toolset.names}
    for t in toolset.tools:
        op = doc["paths"][f"/tools/{t.name}"]["post"]
        assert op["parameters"][0]["name"] == "X-Session-Id" and op["x-synthenv-errors"] == list(t.errors)


def test_argument_schemas_are_checked() -> None:
    schema = build_schema(load_blueprint("online_store"))
    toolset = build_toolset(schema)
    broken = toolset.model_copy(
        update={"tools": (toolset.tools[0].model_copy(update={"parameters": {"type": "nope"}}),)}
    )
    with pytest.raises(ValueError, match=toolset.tools[0].name):
        validate_argument_schemas(broken)


def test_statistics_count_sum_and_group(store) -> None:
    _, _, executor, initial = store
    s = Session(initial, executor)
    total = s.call("list_orders", {"limit": 1})["total"]
    count = s.call("order_statistics", {"table": "orders", "metric": "count"})
    assert count["groups"] == [{"key": None, "count": total, "value": total}]
    by_status = s.call("order_statistics", {"table": "orders", "metric": "count", "group_by": "status", "limit": 50})
    for group in by_status["groups"]:
        assert group["count"] == s.call("list_orders", {"status": group["key"], "limit": 1})["total"]
    paid = s.call(
        "order_statistics", {"table": "orders", "metric": "sum", "column": "total", "where": {"status": "paid"}}
    )
    rows = s.call("list_orders", {"status": "paid", "limit": 50})["items"]
    assert len(rows) < 50 and paid["groups"][0]["value"] == pytest.approx(sum(r["total"] for r in rows))
    top = s.call(
        "order_item_statistics",
        {
            "table": "order_items",
            "metric": "sum",
            "column": "quantity",
            "group_by": "product_id",
            "descending": True,
            "limit": 3,
        },
    )
    values = [g["value"] for g in top["groups"]]
    assert values == sorted(values, reverse=True) and top["total_groups"] >= len(values)


@pytest.mark.parametrize(
    "args",
    [
        {"table": "orders", "metric": "sum"},
        {"table": "orders", "metric": "avg", "column": "status"},
        {"table": "orders", "metric": "count", "group_by": "total"},
        {"table": "orders", "metric": "count", "where": {"colour": "red"}},
        {"table": "orders", "metric": "count", "where": {"placed_at_from": "2024-01-01T00:00:00"}},
        {"table": "customers", "metric": "count"},
        {"table": "no_such_table", "metric": "count"},
    ],
)
def test_statistics_refuse_what_a_report_does_not_offer(store, args: dict) -> None:
    _, _, executor, initial = store
    with pytest.raises(ToolError) as exc:
        Session(initial, executor).call("order_statistics", args)
    assert exc.value.code == "invalid_argument" and exc.value.message


def test_list_filters_by_enum_membership(store) -> None:
    _, _, executor, initial = store
    s = Session(initial, executor)
    both = s.call("list_orders", {"status_in": ["pending", "paid"], "limit": 1})["total"]
    assert both == sum(s.call("list_orders", {"status": v, "limit": 1})["total"] for v in ("pending", "paid"))
    with pytest.raises(ToolError):
        s.call("list_orders", {"status_in": []})


def test_delete_only_detail_records(store) -> None:
    _schema, toolset, executor, initial = store
    deletable = {t.table for t in toolset.tools if t.kind == "delete"}
    assert "reviews" in deletable and "orders" not in deletable and "categories" not in deletable
    s = Session(initial, executor)
    review = s.call("get_review", {"id": 1})
    assert s.call("delete_review", {"id": 1}) == review
    with pytest.raises(ToolError) as exc:
        s.call("delete_review", {"id": 1})
    assert exc.value.code == "not_found"


def test_update_moves_status_only_along_transitions(store) -> None:
    _, _, executor, initial = store
    s = Session(initial, executor)
    pending = s.call("list_orders", {"status": "pending", "limit": 1})["items"][0]
    assert s.call("update_order", {"id": pending["id"], "status": "paid"})["status"] == "paid"
    delivered = s.call("list_orders", {"status": "delivered", "limit": 1})["items"][0]
    with pytest.raises(ToolError) as exc:
        s.call("update_order", {"id": delivered["id"], "status": "pending"})
    assert exc.value.code == "forbidden_transition" and "'delivered' is final" in exc.value.message
    with pytest.raises(ToolError) as exc:
        s.call("update_order", {"id": pending["id"], "status": "cancelled"})
    assert exc.value.code == "forbidden_transition" and "cancel_order" in exc.value.message
    # A record in a final status is not edited by a generic update at all, not even to the same values.
    with pytest.raises(ToolError) as exc:
        s.call("update_order", {"id": delivered["id"], "status": "delivered"})
    assert exc.value.code == "conflict" and "final" in exc.value.message


def test_cancel_order_restocks_in_one_transaction(store) -> None:
    _, toolset, executor, initial = store
    assert [e.kind for e in toolset.get("cancel_order").effects] == ["restock"]
    s = Session(initial, executor)
    for order in s.call("list_orders", {"status_in": ["pending", "paid"], "limit": 50})["items"]:
        lines = s.call("list_order_items", {"order_id": order["id"], "limit": 50})["items"]
        before = {ln["product_id"]: s.call("get_product", {"id": ln["product_id"]})["stock"] for ln in lines}
        try:
            s.call("cancel_order", {"id": order["id"]})
        except ToolError as exc:
            assert exc.code == "constraint_violation" and "nothing was changed" in exc.message
            assert s.call("get_order", {"id": order["id"]})["status"] == order["status"]  # rolled back whole
            continue
        for product, stock in before.items():
            returned = sum(ln["quantity"] for ln in lines if ln["product_id"] == product)
            assert s.call("get_product", {"id": product})["stock"] == stock + returned
        if lines:
            return
    pytest.fail("no cancellable order with lines")


def test_cancelling_cascades_to_dependent_records(tmp_path: Path) -> None:
    schema = build_schema(load_blueprint("clinic_appointments"))
    toolset = build_toolset(schema)
    spec = toolset.get("cancel_appointment")
    cascade = {e.table: e for e in spec.effects if e.kind == "cascade_status"}
    assert "prescriptions" in cascade and "prescriptions" in spec.description
    executor = Executor(schema, toolset, CLOCK)
    s = Session(serialise(populate(schema, 3, tmp_path / "c.sqlite").path), executor)
    effect = cascade["prescriptions"]
    live = s.call("list_prescriptions", {f"{effect.column}_in": list(effect.allowed_from), "limit": 50})["items"]
    for p in live:
        appointment = s.call("get_appointment", {"id": p[effect.ref]})
        if appointment["status"] in spec.allowed_from:
            s.call("cancel_appointment", {"id": appointment["id"]})
            assert s.call("get_prescription", {"id": p["id"]})[effect.column] == effect.to
            return
    pytest.skip("no live prescription under a cancellable appointment in this state")


def test_executor_refuses_specs_naming_unknown_columns(store) -> None:
    schema, toolset, _, _ = store
    bad = toolset.get("list_orders").model_copy(update={"columns": ("status", "no_such_column")})
    with pytest.raises(ValueError, match="no_such_column"):
        Executor(schema, toolset.model_copy(update={"tools": (bad,)}), CLOCK)
