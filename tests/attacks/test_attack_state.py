"""Hostile state files: schema objects the bundle's schema.json does not declare."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from craft import seal
from typer.testing import CliRunner

from pipeline.bundle.format import BundleError
from pipeline.cli.main import app
from pipeline.runtime.environment import Environment

EXTRA_OBJECTS = {
    "trigger": "CREATE TRIGGER wipe_reviews AFTER UPDATE ON categories BEGIN DELETE FROM reviews; END",
    "view": "CREATE VIEW cheap AS SELECT * FROM products WHERE price < 1",
    "table": "CREATE TABLE shadow (id INTEGER PRIMARY KEY, note TEXT)",
    "index": "CREATE INDEX ix_reviews_undeclared ON reviews (rating)",
}


def _add(bundle: Path, statement: str) -> None:
    conn = sqlite3.connect(bundle / "state.sqlite")
    try:
        conn.execute(statement)
        conn.commit()
    finally:
        conn.close()
    seal(bundle)


@pytest.mark.parametrize("kind", list(EXTRA_OBJECTS))
def test_an_undeclared_schema_object_is_refused_on_load(bundle_copy: Path, kind: str) -> None:
    _add(bundle_copy, EXTRA_OBJECTS[kind])
    name = EXTRA_OBJECTS[kind].split()[2]
    with pytest.raises(BundleError, match=name):
        Environment.from_bundle(bundle_copy)


def test_a_state_without_a_declared_index_loads_and_answers_the_same(bundle_copy: Path) -> None:
    """A bundle built before the label indexes has none in its state while its schema.json declares
    them: an index changes how fast a lookup runs, never what it returns, so that bundle loads."""
    before = Environment.from_bundle(bundle_copy)
    try:
        before.reset(task_id=before.tasks[0].id)
        name = before.step({"tool": "get_review", "arguments": {"id": 1}})[0]["result"]["headline"]
        want = before.step({"tool": "list_reviews", "arguments": {"headline": name}})[0]["result"]
    finally:
        before.close()
    _add(bundle_copy, "DROP INDEX ix_reviews_headline")
    _add(bundle_copy, "DROP INDEX ix_reviews_product_id")
    env = Environment.from_bundle(bundle_copy)
    try:
        env.reset(task_id=env.tasks[0].id)
        assert env.step({"tool": "list_reviews", "arguments": {"headline": name}})[0]["result"] == want
    finally:
        env.close()


def test_a_state_without_a_declared_table_is_refused(bundle_copy: Path) -> None:
    _add(bundle_copy, "DROP TABLE reviews")
    with pytest.raises(BundleError, match=r"table 'reviews' declared by schema\.json is missing"):
        Environment.from_bundle(bundle_copy)


def test_a_changed_table_definition_is_refused(bundle_copy: Path) -> None:
    """The same table name, but without the constraints the schema declares."""
    conn = sqlite3.connect(bundle_copy / "state.sqlite")
    try:
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("ALTER TABLE reviews RENAME TO reviews_old")
        conn.execute("CREATE TABLE reviews AS SELECT * FROM reviews_old")
        conn.execute("DROP TABLE reviews_old")
        conn.commit()
    finally:
        conn.close()
    seal(bundle_copy)
    with pytest.raises(BundleError, match="reviews"):
        Environment.from_bundle(bundle_copy)


def test_check_refuses_a_state_with_a_trigger(bundle_copy: Path) -> None:
    _add(bundle_copy, EXTRA_OBJECTS["trigger"])
    result = CliRunner().invoke(app, ["check", str(bundle_copy)])
    assert result.exit_code != 0
    assert "wipe_reviews" in result.output
    assert "tasks proven" not in result.output


def test_the_server_refuses_a_state_with_a_trigger(bundle_copy: Path) -> None:
    pytest.importorskip("fastapi")
    from pipeline.server.http import create_app

    _add(bundle_copy, EXTRA_OBJECTS["trigger"])
    with pytest.raises(BundleError, match="wipe_reviews"):
        create_app(bundle_copy)


UNREADABLE_VALUES = {
    # Text that is not UTF-8: sqlite3 cannot hand it to Python, so no tool could return it.
    "not-utf8": ("UPDATE products SET title = CAST(X'C328' AS TEXT) WHERE id = 1", "products.title"),
    # An infinite REAL has no JSON form (it also breaks the price's CHECK, written with checks off).
    "infinite": ("UPDATE products SET price = 9e999 WHERE id = 2", "products.price"),
    # A value the schema's CHECK refuses, written with the checks switched off.
    "unchecked": ("UPDATE products SET stock = -5 WHERE id = 3", "ck_products_stock_min|products"),
    # Bytes where the schema declares text: no JSON form either.
    "blob": ("UPDATE customers SET full_name = X'00FF' WHERE id = 1", "customers.full_name"),
}


@pytest.mark.parametrize("case", list(UNREADABLE_VALUES))
def test_a_value_no_tool_could_return_is_refused_on_load(bundle_copy: Path, case: str) -> None:
    statement, where = UNREADABLE_VALUES[case]
    conn = sqlite3.connect(bundle_copy / "state.sqlite")
    try:
        conn.execute("PRAGMA ignore_check_constraints = ON")
        assert conn.execute(statement).rowcount == 1
        conn.commit()
    finally:
        conn.close()
    seal(bundle_copy)
    with pytest.raises(BundleError, match=where.replace(".", r"\.")):
        Environment.from_bundle(bundle_copy)


def test_non_ascii_text_that_is_utf8_loads(bundle_copy: Path) -> None:
    """The scan refuses only what cannot be read: accented and non-Latin names are fine."""
    conn = sqlite3.connect(bundle_copy / "state.sqlite")
    try:
        conn.execute("UPDATE products SET title = 'Crème brûlée set 茶' WHERE id = 1")
        conn.commit()
    finally:
        conn.close()
    seal(bundle_copy)
    env = Environment.from_bundle(bundle_copy)
    assert env.tasks
