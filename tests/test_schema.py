"""Step 1: every domain template becomes a schema with real keys and constraints."""

from __future__ import annotations

import sqlite3

import pytest

from pipeline.blueprint import Blueprint, list_domains, load_blueprint
from pipeline.ddl import ddl_script, ddl_statements
from pipeline.schema import build_schema

DOMAINS = list_domains()


def test_at_least_three_domains() -> None:
    assert {"online_store", "clinic_appointments", "library_loans"} <= set(DOMAINS)


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
def test_ddl_compiles_for_every_dialect_and_runs_on_sqlite(domain: str) -> None:
    schema = build_schema(load_blueprint(domain))
    conn = sqlite3.connect(":memory:")
    conn.executescript(ddl_script(schema, "sqlite"))
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {t.name for t in schema.tables}
    assert all("CREATE TABLE" in s or "CREATE INDEX" in s for s in ddl_statements(schema, "postgresql"))


def test_enum_check_is_enforced_by_sqlite() -> None:
    schema = build_schema(load_blueprint("online_store"))
    conn = sqlite3.connect(":memory:")
    conn.executescript(ddl_script(schema, "sqlite"))
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        conn.execute("INSERT INTO categories (id, name) VALUES (1, 'x')")
        conn.execute(
            "INSERT INTO customers (full_name, email, city, loyalty_tier, signed_up_at) "
            "VALUES ('a', 'b', 'c', 'platinum', '2025-01-01T00:00:00')"
        )


@pytest.mark.parametrize(
    "mutation, message",
    [
        (lambda d: d["entities"][1]["fields"].append({"name": "x", "type": "nonsense"}), "type"),
        (lambda d: d["entities"][1].update(label="missing"), "label"),
        (lambda d: d["entities"][2]["fields"].append({"name": "bad_ref", "type": "ref", "ref": "ghost"}), "unknown entity"),
        (lambda d: d["entities"][1]["fields"].append({"name": "tier2", "type": "enum"}), "values"),
    ],
)
def test_invalid_blueprints_are_refused_with_a_reason(mutation, message: str) -> None:
    data = load_blueprint("online_store").model_dump(mode="json", exclude_none=True)
    mutation(data)
    with pytest.raises(ValueError, match=message):
        Blueprint.model_validate(data)


def test_unknown_domain_lists_known_ones() -> None:
    with pytest.raises(ValueError, match="online_store"):
        load_blueprint("no_such_domain")
