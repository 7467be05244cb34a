"""Step 2: deterministic, constraint-clean, realistic data that never reads the wall clock."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import statistics
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from datetime import datetime
from pathlib import Path

import pytest

from pipeline.data.columns import ISO, generate_column
from pipeline.data.populate import DEFAULT_CLOCK, populate, scale_for_rows
from pipeline.data.state_check import check_state
from pipeline.world.blueprint import list_domains, load_blueprint
from pipeline.world.schema import build_schema

ROOT = Path(__file__).resolve().parents[1]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple]:
    """online_store with about a thousand order lines: enough rows for distributions to show."""
    schema = build_schema(load_blueprint("online_store"))
    path = populate(schema, 5, tmp_path_factory.mktemp("store") / "s.sqlite", scale_for_rows(schema, 1200)).path
    with closing(sqlite3.connect(path)) as conn:
        yield schema, conn


@pytest.mark.parametrize("domain", list_domains())
def test_population_satisfies_every_constraint(domain: str, tmp_path: Path) -> None:
    schema = build_schema(load_blueprint(domain))
    result = populate(schema, 3, tmp_path / "s.sqlite")
    assert check_state(schema, result.path, result.clock) == []
    with closing(sqlite3.connect(result.path)) as conn:
        for table in schema.tables:
            assert conn.execute(f'SELECT count(*) FROM "{table.name}"').fetchone()[0] == result.rows[table.name] > 0


def test_sqlite_own_checks_catch_a_broken_row(tmp_path: Path) -> None:
    """The checker is not vacuous: a row that slips past CHECK is found, and so is a wrong total."""
    schema = build_schema(load_blueprint("online_store"))
    path = populate(schema, 1, tmp_path / "s.sqlite").path
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA ignore_check_constraints = ON")
    conn.execute("UPDATE products SET stock = -3 WHERE id = 1")
    conn.execute("UPDATE orders SET total = total + 1 WHERE id = 2")
    conn.commit()
    conn.close()
    problems = check_state(schema, path, DEFAULT_CLOCK)
    assert any("integrity" in p and "CHECK" in p and "products" in p for p in problems), problems
    assert any("orders.total" in p for p in problems), problems


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path: Path) -> None:
    schema = build_schema(load_blueprint("library_loans"))
    a = populate(schema, 11, tmp_path / "a.sqlite").path
    b = populate(schema, 11, tmp_path / "b.sqlite").path
    c = populate(schema, 12, tmp_path / "c.sqlite").path
    assert _sha(a) == _sha(b) != _sha(c)


def test_bytes_do_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    code = (
        "import hashlib, sys; from pipeline.world.variants import random_schema; "
        "from pipeline.data.populate import populate; "
        "s = random_schema(17); p = populate(s, 17, sys.argv[1]).path; "
        "print(hashlib.sha256(p.read_bytes()).hexdigest(), hashlib.sha256(s.model_dump_json().encode()).hexdigest())"
    )
    outs = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        run = subprocess.run(
            [sys.executable, "-c", code, str(tmp_path / f"{hash_seed}.sqlite")],
            env=env,
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
        )
        outs.add(run.stdout)
    assert len(outs) == 1


def test_order_totals_are_the_sums_of_their_lines(store) -> None:
    """The derived-consistency rule, checked directly: total = sum(quantity * unit_price)."""
    _, conn = store
    rows = conn.execute(
        "SELECT o.total, coalesce(sum(i.quantity * i.unit_price), 0) FROM orders o "
        "LEFT JOIN order_items i ON i.order_id = o.id GROUP BY o.id"
    ).fetchall()
    assert rows and all(abs(total - lines) < 0.005 for total, lines in rows)
    copied = conn.execute(
        "SELECT count(*) FROM order_items i JOIN products p ON p.id = i.product_id WHERE i.unit_price != p.price"
    ).fetchone()[0]
    assert copied == 0
    empty = conn.execute("SELECT count(*) FROM orders WHERE id NOT IN (SELECT order_id FROM order_items)").fetchone()[0]
    assert empty == 0


def test_status_decides_whether_operation_time_is_set(store) -> None:
    _, conn = store
    rows = conn.execute("SELECT status, shipped_at FROM orders").fetchall()
    assert rows
    for status, shipped_at in rows:
        assert (shipped_at is not None) == (status in ("shipped", "delivered")), (status, shipped_at)


def test_statuses_follow_age_and_ids_follow_time(store) -> None:
    _, conn = store
    placed = [r[0] for r in conn.execute("SELECT placed_at FROM orders ORDER BY id")]
    assert placed == sorted(placed)
    age = dict(
        conn.execute(
            "SELECT status, avg(julianday(?) - julianday(placed_at)) FROM orders GROUP BY status", (DEFAULT_CLOCK,)
        ).fetchall()
    )
    assert age["delivered"] > age["pending"]
    # Children never precede their parents: an order is placed after its customer signed up.
    early = conn.execute(
        "SELECT count(*) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.placed_at < c.signed_up_at"
    ).fetchone()[0]
    assert early == 0


def test_distributions_are_skewed_like_real_data(store) -> None:
    _, conn = store
    sales = [r[0] for r in conn.execute("SELECT count(*) AS k FROM order_items GROUP BY product_id ORDER BY k DESC")]
    products = conn.execute("SELECT count(*) FROM products").fetchone()[0]
    top = sum(sales[: max(1, products // 10)]) / sum(sales)
    assert top > 0.25, f"top 10% of products sell only {top:.0%}"
    prices = [r[0] for r in conn.execute("SELECT price FROM products")]
    assert statistics.mean(prices) > statistics.median(prices)
    ratings = dict(conn.execute("SELECT rating, count(*) FROM reviews GROUP BY rating").fetchall())
    assert ratings[5] == max(ratings.values()) and ratings.get(1, 0) > ratings.get(2, 0)
    stock = [r[0] for r in conn.execute("SELECT stock FROM products")]
    assert min(stock) >= 0
    tiers = dict(conn.execute("SELECT loyalty_tier, count(*) FROM customers GROUP BY loyalty_tier").fetchall())
    assert tiers["bronze"] > tiers["gold"]


def test_values_fit_their_semantic_type(store) -> None:
    _, conn = store
    for name, email in conn.execute("SELECT full_name, email FROM customers LIMIT 50"):
        first, last = name.lower().split(" ")[0], name.lower().split(" ")[-1]
        assert "@" in email and (last.replace("'", "").replace("-", "") in email or first[0] in email)
    labels = [r[0] for r in conn.execute("SELECT title FROM products")]
    assert len(set(labels)) > 0.9 * len(labels), "names of things stay mostly unique"
    for (code,) in conn.execute("SELECT order_number FROM orders LIMIT 20"):
        assert code.startswith("ORD-") and code[4:].isdigit()
    numbers = [r[0] for r in conn.execute("SELECT order_number FROM orders ORDER BY id")]
    assert numbers == sorted(numbers), "order numbers are issued in order"


def test_rows_sets_the_largest_table(tmp_path: Path) -> None:
    schema = build_schema(load_blueprint("online_store"))
    for rows in (10, 2000):
        counts = populate(schema, 1, tmp_path / f"{rows}.sqlite", scale_for_rows(schema, rows)).rows
        assert max(counts.values()) == counts["order_items"] == rows
        assert min(counts.values()) >= 1
    with pytest.raises(ValueError, match="rows"):
        scale_for_rows(schema, 0)


def test_scale_changes_row_counts(tmp_path: Path) -> None:
    schema = build_schema(load_blueprint("online_store"))
    small = populate(schema, 1, tmp_path / "s.sqlite", scale=0.5).rows
    large = populate(schema, 1, tmp_path / "l.sqlite", scale=3).rows
    assert all(large[t] > small[t] for t in small)
    with pytest.raises(ValueError, match="scale"):
        populate(schema, 1, tmp_path / "x.sqlite", scale=0)


def test_generate_column_gives_plain_python_values() -> None:
    """Task generation calls this for fresh values: plain types, times as ISO text."""
    schema = build_schema(load_blueprint("online_store"))
    now = datetime.strptime(DEFAULT_CLOCK, ISO)
    orders = schema.table("orders")
    for column in orders.columns[1:]:
        if column.references:
            continue
        values = generate_column(orders, column, 8, 4, now, {}, {})
        assert len(values) == 8
        assert all(type(v) in (str, int, float) for v in values), (column.name, values)
    times = generate_column(orders, orders.column("placed_at"), 8, 4, now, {}, {})
    assert all(datetime.strptime(t, ISO) <= now for t in times)
    again = generate_column(orders, orders.column("order_number"), 8, 4, now, {}, {})
    assert again == generate_column(orders, orders.column("order_number"), 8, 4, now, {}, {})
    refs = generate_column(orders, orders.column("customer_id"), 50, 4, now, {}, {"customers": [3, 5, 9]})
    assert set(refs) <= {3, 5, 9}


@pytest.mark.slow
def test_a_hundred_thousand_rows_stay_clean_and_fast(tmp_path: Path) -> None:
    import time

    schema = build_schema(load_blueprint("online_store"))
    start = time.process_time()
    result = populate(schema, 2, tmp_path / "big.sqlite", scale_for_rows(schema, 100_000))
    seconds = time.process_time() - start
    assert result.rows["order_items"] == 100_000
    assert check_state(schema, result.path, result.clock) == []
    assert sum(result.rows.values()) / seconds > 30_000, f"{seconds:.1f} s of CPU"
