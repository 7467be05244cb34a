"""Step 1: every domain template becomes a schema with real keys and constraints, and its
DDL compiles for SQLite, DuckDB and PostgreSQL (SQLite and DuckDB DDL is executed)."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest

from pipeline.world.blueprint import Blueprint, list_domains, load_blueprint
from pipeline.world.ddl import (
    MAX_IDENTIFIER,
    constraint_name,
    ddl_script,
    ddl_statements,
)
from pipeline.world.derive import derivations
from pipeline.world.formula import Rule, parse_derive
from pipeline.world.naming import Naming, words
from pipeline.world.schema import build_schema

DOMAINS = list_domains()


def _duckdb():
    duckdb = pytest.importorskip("duckdb")
    return duckdb.connect(config={"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})


def test_at_least_thirty_domains() -> None:
    assert {"online_store", "clinic_appointments", "library_loans"} <= set(DOMAINS)
    assert len(DOMAINS) >= 30


@pytest.mark.parametrize("domain", DOMAINS)
def test_schema_has_keys_and_constraints(domain: str) -> None:
    schema = build_schema(load_blueprint(domain))
    assert len(schema.tables) >= 6
    assert all(t.columns[0].primary_key for t in schema.tables)
    assert sum(len(t.foreign_keys) for t in schema.tables) >= 4
    sql = ddl_script(schema, "sqlite")
    for fragment in ("PRIMARY KEY", "FOREIGN KEY", "UNIQUE", "CHECK", "NOT NULL"):
        assert fragment in sql, fragment


@pytest.mark.parametrize("domain", DOMAINS)
def test_ddl_compiles_for_every_dialect_and_runs_on_sqlite_and_duckdb(domain: str) -> None:
    schema = build_schema(load_blueprint(domain))
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.executescript(ddl_script(schema, "sqlite"))
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {t.name for t in schema.tables}
    postgres = ddl_statements(schema, "postgresql")
    assert all("CREATE TABLE" in s or "CREATE INDEX" in s for s in postgres)
    assert any("SERIAL" in s for s in postgres)
    duck = ddl_statements(schema, "duckdb")
    assert not any("SERIAL" in s for s in duck)
    con = _duckdb()
    for stmt in duck:
        con.execute(stmt)
    found = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert found == {t.name for t in schema.tables}


@pytest.mark.parametrize("domain", DOMAINS[:6])
def test_a_lookup_by_label_or_reference_searches_an_index(domain: str) -> None:
    """The list tools find a row by its label and children by their parent: neither scans the table."""
    schema = build_schema(load_blueprint(domain))
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.executescript(ddl_script(schema, "sqlite"))
        for table in schema.tables:
            for column in (table.label, *(c.name for c in table.foreign_keys)):
                plan = " ".join(
                    str(r[-1])
                    for r in conn.execute(
                        f'EXPLAIN QUERY PLAN SELECT count(*) FROM "{table.name}" WHERE "{column}" = 1'
                    )
                )
                assert "USING" in plan and "INDEX" in plan, (table.name, column, plan)


def test_duckdb_enforces_the_same_constraints() -> None:
    duckdb = pytest.importorskip("duckdb")
    con = _duckdb()
    for stmt in ddl_statements(build_schema(load_blueprint("online_store")), "duckdb"):
        con.execute(stmt)
    con.execute("INSERT INTO categories (id, name) VALUES (1, 'Kitchen')")
    with pytest.raises(duckdb.ConstraintException):
        con.execute("INSERT INTO categories (id, name) VALUES (2, 'Kitchen')")
    with pytest.raises(duckdb.ConstraintException):
        con.execute(
            "INSERT INTO customers (id, full_name, email, city, loyalty_tier, signed_up_at) "
            "VALUES (1, 'a', 'b', 'c', 'platinum', TIMESTAMP '2025-01-01 00:00:00')"
        )
    types = dict(
        con.execute(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'orders'"
        ).fetchall()
    )
    assert types["placed_at"] == "TIMESTAMP" and types["total"] == "DOUBLE" and types["id"] == "INTEGER"


def test_enum_check_is_enforced_by_sqlite() -> None:
    schema = build_schema(load_blueprint("online_store"))
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.executescript(ddl_script(schema, "sqlite"))
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            conn.execute("INSERT INTO categories (id, name) VALUES (1, 'x')")
            conn.execute(
                "INSERT INTO customers (full_name, email, city, loyalty_tier, signed_up_at) "
                "VALUES ('a', 'b', 'c', 'platinum', '2025-01-01T00:00:00')"
            )
        conn.execute(
            "INSERT INTO customers (full_name, email, city, loyalty_tier, signed_up_at) "
            "VALUES ('a', 'b', 'c', 'gold', '2025-01-01T00:00:00')"
        )


def test_money_and_quantities_are_never_negative() -> None:
    schema = build_schema(load_blueprint("online_store"))
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.executescript(ddl_script(schema, "sqlite"))
        conn.execute("INSERT INTO categories (id, name) VALUES (1, 'x')")
        with pytest.raises(sqlite3.IntegrityError, match="stock"):
            conn.execute(
                "INSERT INTO products (sku, title, category_id, price, stock, active) VALUES ('S', 'T', 1, 10, -1, 1)"
            )


@pytest.mark.parametrize(
    "mutation, message",
    [
        (lambda d: d["entities"][1]["fields"].append({"name": "x", "type": "nonsense"}), "type"),
        (lambda d: d["entities"][1].update(label="missing"), "label"),
        (
            lambda d: d["entities"][2]["fields"].append({"name": "bad_ref", "type": "ref", "ref": "ghost"}),
            "unknown entity",
        ),
        (lambda d: d["entities"][1]["fields"].append({"name": "tier2", "type": "enum"}), "values"),
        (lambda d: d["entities"][3]["fields"][-1].update(derive="sum(ghost.quantity)"), "ghost"),
        (lambda d: d["entities"][3]["fields"][-1].update(derive="sum(order_item.sku)"), "no field"),
        (lambda d: d["entities"][3]["fields"][-1].update(derive="quantity + price"), "cannot read"),
        (lambda d: d["entities"][1].update(unique_together=[["email"]]), "unique_together"),
    ],
)
def test_invalid_blueprints_are_refused_with_a_reason(mutation, message: str) -> None:
    data = load_blueprint("online_store").model_dump(mode="json", exclude_none=True)
    mutation(data)
    with pytest.raises(ValueError, match=message):
        Blueprint.model_validate(data)


def _fine_member(data: dict) -> dict:
    fine = next(e for e in data["entities"] if e["name"] == "fine")
    return next(f for f in fine["fields"] if f["name"] == "member_id")


@pytest.mark.parametrize(
    "derive, message",
    [
        ("loan_id.copy_id", "not a reference to 'member'"),
        ("loan_id.ghost", "no field 'ghost'"),
        ("member_id.member_id", "through itself"),
        ("amount * loan_id.member_id", "no factors"),
    ],
)
def test_a_copied_reference_must_name_the_same_party(derive: str, message: str) -> None:
    """A fine's member copied from its loan is a reference to a member through another parent; any
    other shape would copy a different kind of record or a number into a foreign key."""
    data = load_blueprint("library_loans").model_dump(mode="json", exclude_none=True)
    assert _fine_member(data)["derive"] == "loan_id.member_id"
    _fine_member(data)["derive"] = derive
    with pytest.raises(ValueError, match=message):
        Blueprint.model_validate(data)


def test_a_copied_reference_cannot_be_part_of_a_unique_group() -> None:
    data = load_blueprint("library_loans").model_dump(mode="json", exclude_none=True)
    fine = next(e for e in data["entities"] if e["name"] == "fine")
    fine["unique_together"] = [["loan_id", "member_id"]]
    with pytest.raises(ValueError, match="unique_together"):
        Blueprint.model_validate(data)


def test_derive_applies_to_numbers_and_references_only() -> None:
    data = load_blueprint("library_loans").model_dump(mode="json", exclude_none=True)
    fine = next(e for e in data["entities"] if e["name"] == "fine")
    next(f for f in fine["fields"] if f["name"] == "fine_number")["derive"] = "loan_id.member_id"
    with pytest.raises(ValueError, match="numeric and ref"):
        Blueprint.model_validate(data)


def test_unknown_domain_lists_known_ones() -> None:
    with pytest.raises(ValueError, match="online_store"):
        load_blueprint("no_such_domain")


def test_derive_syntax() -> None:
    assert parse_derive("none") == Rule(kind="none")
    assert parse_derive("sum(line.quantity * line.unit_price)") == Rule(
        kind="sum", child="line", factors=("quantity", "unit_price")
    )
    assert parse_derive("product_id.price") == Rule(kind="copy", via="product_id", source="price")
    assert parse_derive("nights * room_type_id.base_rate") == Rule(
        kind="copy", via="room_type_id", source="base_rate", factors=("nights",)
    )
    with pytest.raises(ValueError, match="exactly one"):
        parse_derive("quantity * price")


def test_derived_rules_are_explicit_or_inferred() -> None:
    store = derivations(load_blueprint("online_store"))
    assert store[("order", "total")] == Rule(
        kind="sum", child="order_item", via="order_id", factors=("quantity", "unit_price")
    )
    assert store[("order_item", "unit_price")] == Rule(kind="copy", via="product_id", source="price")
    inferred = {d: derivations(load_blueprint(d)) for d in DOMAINS}
    assert sum(len(r) for r in inferred.values()) >= 10
    assert sum(1 for r in inferred.values() if any(x.kind == "sum" for x in r.values())) >= 4
    schema = build_schema(load_blueprint("online_store"))
    total = schema.table("orders").column("total")
    assert total.derived is not None and total.derived.table == "order_items" and total.max is None


def test_statuses_stamp_their_times() -> None:
    schema = build_schema(load_blueprint("online_store"))
    stamp = schema.table("orders").column("shipped_at").stamp
    assert stamp is not None and (stamp.column, stamp.value) == ("status", "shipped")


def test_naming_styles_restyle_every_reference_consistently() -> None:
    bp = load_blueprint("online_store")
    plain = build_schema(bp)
    styled = build_schema(bp, naming=Naming(tables="pascal", plural=False, prefix="tbl_", columns="camel"))
    assert [t.name for t in styled.tables][:3] == ["TblCategory", "TblCustomer", "TblProduct"]
    orders = styled.table("TblOrder")
    assert orders.entity == "order" and orders.label == "orderNumber"
    assert orders.column("customerId").references == "TblCustomer"
    assert orders.column("shippedAt").after == "placedAt" and orders.column("shippedAt").field == "shipped_at"
    assert orders.column("total").derived.via == "orderId" and orders.column("total").derived.table == "TblOrderItem"
    ship = next(op for op in styled.operations if op.name == "ship_order")
    assert (ship.table, ship.column, ship.sets_time) == ("TblOrder", "status", "shippedAt")
    assert [words(t.name)[1:] for t in styled.tables] == [words(t.entity) for t in styled.tables]
    assert len(plain.tables) == len(styled.tables)
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.executescript(ddl_script(styled, "sqlite"))


def test_case_insensitive_name_collisions_are_refused() -> None:
    data = load_blueprint("online_store").model_dump(mode="json", exclude_none=True)
    data["entities"][1]["fields"].append({"name": "fullname", "type": "word"})
    bp = Blueprint.model_validate(data)
    build_schema(bp)
    with pytest.raises(ValueError, match="collide"):
        build_schema(bp, naming=Naming(columns="camel"))


def test_long_constraint_names_are_shortened_stably() -> None:
    name = constraint_name("ck", "manufacturing_work_order_status_changes", "from_status_reason", "values")
    assert len(name) <= MAX_IDENTIFIER
    assert name == constraint_name("ck", "manufacturing_work_order_status_changes", "from_status_reason", "values")
    assert constraint_name("ck", "orders", "status", "values") == "ck_orders_status_values"


def test_status_columns_are_the_moved_the_declared_and_the_typed_ones() -> None:
    """One definition serves the write log, the verifier's detours and the tasks' usual status."""
    from pipeline.runtime.session import watched

    schema = build_schema(load_blueprint("online_store"))
    orders = schema.table("orders")
    assert [c.name for c in schema.status_columns(orders)] == ["status"]
    assert schema.status_columns(schema.table("categories")) == ()
    assert dict(watched(schema))["orders"] == ("status",)
