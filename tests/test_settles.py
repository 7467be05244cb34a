"""Payments that add up (``settles:``): a settling table's amounts against its parents' totals.

Sums are compared exactly, in cents (``Decimal`` of the stored text), for several domains, seeds
and a scaled size; the realism check must find a broken ledger; the same seed gives the same bytes.
"""

from __future__ import annotations

import hashlib
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from pipeline.data.populate import populate, scale_for_rows
from pipeline.data.settle import MAX_CHILDREN
from pipeline.data.state_check import check_state, realism_check, summary
from pipeline.world.blueprint import Blueprint, list_domains, load_blueprint
from pipeline.world.schema import Schema, Table, build_schema
from pipeline.world.variants import random_schema

SETTLING = ("online_store", "hotel_booking", "insurance_claims", "veterinary_clinic", "utilities_metering")


def _ledger(path: Path, table: Table) -> list[tuple[str, Decimal, Decimal, int]]:
    """Per parent with an amount: (status, total, children's sum, children), the sums in exact cents."""
    s = table.settles
    assert s is not None
    parent = str(table.column(s.via).references)
    conn = sqlite3.connect(path)
    try:
        totals = conn.execute(
            f'SELECT id, "{s.status}", CAST("{s.total}" AS TEXT) FROM "{parent}" WHERE "{s.total}" IS NOT NULL'
        ).fetchall()
        paid: dict[int, list[Decimal]] = {}
        for k, amount in conn.execute(f'SELECT "{s.via}", CAST("{s.amount}" AS TEXT) FROM "{table.name}"'):
            paid.setdefault(k, []).append(Decimal(amount))
    finally:
        conn.close()
    for amounts in paid.values():
        assert all(a == a.quantize(Decimal("0.01")) and a > 0 for a in amounts)
    return [(st, Decimal(t), sum(paid.get(i, []), Decimal(0)), len(paid.get(i, []))) for i, st, t in totals]


def _assert_adds_up(schema: Schema, path: Path) -> int:
    checked = 0
    for table in schema.tables:
        s = table.settles
        if s is None:
            continue
        for status, total, paid, n in _ledger(path, table):
            where = (schema.name, table.name, status, total, paid, n)
            assert n <= MAX_CHILDREN, where
            if status in s.paid:
                assert n >= 1 and paid == total, where
            elif status in s.open:
                assert paid < total, where
            elif status in s.none:
                assert n == 0, where
            else:
                assert paid <= total, where
            checked += 1
    return checked


@pytest.mark.parametrize("domain", SETTLING)
@pytest.mark.parametrize("seed", [0, 7, 23])
def test_payments_sum_to_the_cent_for_paid_parents_and_below_for_open_ones(
    domain: str, seed: int, tmp_path: Path
) -> None:
    schema = build_schema(load_blueprint(domain))
    result = populate(schema, seed, tmp_path / "s.sqlite")
    assert _assert_adds_up(schema, result.path) > 0
    assert check_state(schema, result.path, result.clock) == []


def test_a_scaled_state_still_adds_up(tmp_path: Path) -> None:
    schema = build_schema(load_blueprint("online_store"))
    result = populate(schema, 3, tmp_path / "s.sqlite", scale_for_rows(schema, 20_000))
    assert _assert_adds_up(schema, result.path) > 5_000
    assert check_state(schema, result.path, result.clock) == []
    # The payments stay near their declared share of the world (50 per 120 order lines).
    declared = schema.table("payments").rows / schema.table("order_items").rows
    assert 0.8 * declared < result.rows["payments"] / result.rows["order_items"] < 1.25 * declared


@pytest.mark.parametrize("domain", SETTLING)
def test_payments_stay_near_their_declared_rows(domain: str, tmp_path: Path) -> None:
    schema = build_schema(load_blueprint(domain))
    table = next(t for t in schema.tables if t.settles)
    result = populate(schema, 1, tmp_path / "s.sqlite")
    assert 0.75 * table.rows <= result.rows[table.name] <= 1.25 * table.rows, result.rows[table.name]


@pytest.mark.parametrize("domain", SETTLING)
def test_a_tiny_world_adds_up_and_keeps_a_payment(domain: str, tmp_path: Path) -> None:
    schema = build_schema(load_blueprint(domain))
    table = next(t for t in schema.tables if t.settles)
    for seed in range(6):
        result = populate(schema, seed, tmp_path / f"{seed}.sqlite", scale_for_rows(schema, 10))
        _assert_adds_up(schema, result.path)
        assert result.rows[table.name] >= 1
        assert check_state(schema, result.path, result.clock) == [], (domain, seed)


def test_paid_orders_have_payments_and_most_have_one(tmp_path: Path) -> None:
    schema = build_schema(load_blueprint("online_store"))
    result = populate(schema, 0, tmp_path / "s.sqlite", scale_for_rows(schema, 5_000))
    table = schema.table("payments")
    paid = [n for status, _, _, n in _ledger(result.path, table) if status in ("paid", "shipped", "delivered")]
    assert paid and min(paid) == 1 and max(paid) <= MAX_CHILDREN
    assert 0.75 < paid.count(1) / len(paid) < 0.97 and paid.count(2) > 0


def test_a_random_variant_keeps_its_payments_settled(tmp_path: Path) -> None:
    schema = random_schema(2)
    assert any(t.settles for t in schema.tables)
    result = populate(schema, 2, tmp_path / "s.sqlite")
    assert _assert_adds_up(schema, result.path) > 0
    assert check_state(schema, result.path, result.clock) == []


@pytest.mark.parametrize(
    ("sql", "check"),
    [
        ("UPDATE payments SET amount = amount - 0.01 WHERE id = (SELECT min(id) FROM payments)", "paid in full"),
        (
            "DELETE FROM payments WHERE order_id = (SELECT min(id) FROM orders WHERE status = 'delivered')",
            "paid in full",
        ),
        (
            "INSERT INTO payments (reference, order_id, amount, method, paid_at) SELECT 'PAY-X', id, total, 'card', "
            "placed_at FROM orders WHERE status = 'pending' LIMIT 1",
            "paid in part",
        ),
    ],
)
def test_the_realism_check_finds_a_ledger_that_does_not_add_up(sql: str, check: str, tmp_path: Path) -> None:
    schema = build_schema(load_blueprint("online_store"))
    result = populate(schema, 0, tmp_path / "s.sqlite")
    conn = sqlite3.connect(result.path)
    conn.execute(sql)
    conn.commit()
    conn.close()
    failed = [f for f in realism_check(schema, result.path, result.clock) if f.rows]
    assert [f.kind for f in failed] == ["settles"] and check in failed[0].check, failed
    assert summary(failed)["settles"]["failed"] == 1


def test_too_many_payments_on_one_order_are_found(tmp_path: Path) -> None:
    schema = build_schema(load_blueprint("online_store"))
    result = populate(schema, 0, tmp_path / "s.sqlite")
    conn = sqlite3.connect(result.path)
    order, total = conn.execute("SELECT id, total FROM orders WHERE status = 'delivered' LIMIT 1").fetchone()
    conn.execute("DELETE FROM payments WHERE order_id = ?", (order,))
    cents = round(total * 100)
    for i in range(4):
        share = cents // 4 + (cents % 4 if i == 3 else 0)
        conn.execute(
            "INSERT INTO payments (reference, order_id, amount, method, paid_at) "
            "SELECT ?, id, ?, 'card', placed_at FROM orders WHERE id = ?",
            (f"PAY-X{i}", share / 100, order),
        )
    conn.commit()
    conn.close()
    failed = [f.check for f in realism_check(schema, result.path, result.clock) if f.rows]
    assert len(failed) == 1 and f"at most {MAX_CHILDREN} payments" in failed[0], failed


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    schema = build_schema(load_blueprint("insurance_claims"))
    a = populate(schema, 5, tmp_path / "a.sqlite", scale_for_rows(schema, 3_000)).path
    b = populate(schema, 5, tmp_path / "b.sqlite", scale_for_rows(schema, 3_000)).path
    c = populate(schema, 6, tmp_path / "c.sqlite", scale_for_rows(schema, 3_000)).path
    digest = [hashlib.sha256(p.read_bytes()).hexdigest() for p in (a, b, c)]
    assert digest[0] == digest[1] != digest[2]


def test_every_domain_declaring_settles_builds_a_schema_with_it() -> None:
    declared = sorted(d for d in list_domains() if any(e.settles for e in load_blueprint(d).entities))
    assert declared == sorted(SETTLING)


def _online_store(**settles: object) -> dict:
    data = load_blueprint("online_store").model_dump(mode="json", exclude_none=True)
    payment = next(e for e in data["entities"] if e["name"] == "payment")
    payment["settles"] = {**payment["settles"], **settles}
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"paid": []}, "needs at least one status"),
        ({"open": ["pending", "paid"]}, "more than one group"),
        ({"paid": ["settled"]}, "has no values"),
        ({"total": "placed_at"}, "not a money field"),
        ({"amount": "method"}, "not one of its money fields"),
        ({"parent": "reference"}, "not one of its ref fields"),
    ],
)
def test_a_wrong_declaration_is_refused(change: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Blueprint.model_validate(_online_store(**change))
