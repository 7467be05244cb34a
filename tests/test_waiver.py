"""The policy's waiver of a refund fee: some records come back in full, read record by record.

Checked against the bundle, not the generator's bookkeeping: the records a task gives back in full
are re-derived here from the state and the waiver line's words (the record's time against today,
or its owner's standing), and the answer that keeps the fee on every record scores 0 through
``Environment.step`` while the reference scores 1.
"""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from test_cap import _in_full, _policy, _refund, exploit_scores_zero, ruled_tasks

from pipeline import Environment
from pipeline.jobs.steps import Inputs, generate
from pipeline.policy.fees import WAIVER_SHARE, refund
from pipeline.policy.model import Rule, waives
from pipeline.runtime.task import Task


def _rule(**fields: Any) -> Rule:
    base = {"id": "P9", "kind": "waiver", "text": "", "enforced": False, "table": "orders", "goal": "cancelled"}
    return Rule(**{**base, **fields})


def test_a_waiver_by_time_counts_calendar_days_to_today() -> None:
    rule = _rule(column="placed_at", limit=3.0)
    today = "2026-01-15T12:00:00"
    assert waives(rule, {"placed_at": "2026-01-12T23:59:59"}, today)  # three days before: still in
    assert not waives(rule, {"placed_at": "2026-01-11T23:59:59"}, today)
    assert not waives(rule, {"placed_at": None}, today)


def test_a_waiver_by_standing_reads_the_owner() -> None:
    rule = _rule(column="loyalty_tier", child="customers", via="customer_id", value="gold")
    assert waives(rule, {"customer_id": 4}, "2026-01-15", {"id": 4, "loyalty_tier": "gold"})
    assert not waives(rule, {"customer_id": 4}, "2026-01-15", {"id": 4, "loyalty_tier": "silver"})
    assert not waives(rule, {"customer_id": 4}, "2026-01-15", None)


def test_a_waived_record_comes_back_in_full() -> None:
    fee = _rule(kind="fee", limit=20.0)
    assert refund(Decimal("19.99"), fee) == Decimal("15.99")
    assert refund(Decimal("19.99"), fee, waived=True) == Decimal("19.99")


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """online_store seed 0: a sweep of cancellations with an order placed within the waiver's days."""
    root = tmp_path_factory.mktemp("waiver")
    summary = generate(Inputs(domain="online_store", seed=0), root / "out", root / "work")
    environment = Environment.from_bundle(Path(summary["path"]))
    yield environment
    environment.close()


def _waived_tasks(env: Environment) -> list[tuple[Task, Rule, Rule]]:
    return ruled_tasks(env, "waiver")


def _holds(env: Environment, task: Task, waiver: Rule, fee: Rule) -> None:
    """The records the task gives back in full are the ones the waiver line's words spare, among the
    records its reference carries out the operation on, and its total is theirs in full plus the
    others less the fee."""
    op = str(task.knobs["operation"])
    policy = _policy(env)
    done = [c.arguments["id"] for c in task.solution if c.tool == op]
    conn = sqlite3.connect(":memory:")
    conn.deserialize(env.bundle.state_bytes)
    try:
        spared = [
            i
            for i in done
            if _in_full(conn, waiver, i, policy.clock)
            and _refund(conn, fee, i, waiver, policy.clock) != _refund(conn, fee, i)  # something was paid
        ]
        assert sorted(spared) == sorted(task.knobs["waived"]), task.id
        expected = task.verifier.answer.expected if task.verifier.answer else {}
        if "total" in expected and op.startswith(("cancel", "refund")):
            late = policy.late(op)
            total = sum((_refund(conn, fee, i, waiver, policy.clock, late) for i in done), Decimal(0))
            assert Decimal(str(expected["total"])) == total, task.id
    finally:
        conn.close()


def test_a_waived_task_gives_those_records_back_in_full(env: Environment) -> None:
    found = _waived_tasks(env)
    assert any(t.knobs["waived"] for t, _, _ in found), "online_store seed 0 holds a request with a waived record"
    for task, waiver, fee in found:
        _holds(env, task, waiver, fee)


def test_a_waiver_spares_some_records_and_not_most(env: Environment) -> None:
    policy = _policy(env)
    conn = sqlite3.connect(":memory:")
    conn.deserialize(env.bundle.state_bytes)
    try:
        for waiver in (r for r in policy.rules if r.kind == "waiver"):
            fee = policy.fee(str(waiver.operation))
            assert fee is not None and "gets back all of it" in waiver.text
            ids = [i for (i,) in conn.execute(f'SELECT id FROM "{waiver.table}"')]
            spared = sum(_in_full(conn, waiver, i, policy.clock) for i in ids)
            assert 2 <= spared <= WAIVER_SHARE[1] * len(ids) * 2, (waiver.text, spared, len(ids))
    finally:
        conn.close()


def test_keeping_the_fee_on_every_record_scores_zero(env: Environment) -> None:
    assert exploit_scores_zero(env, [t for t, _, _ in _waived_tasks(env)], "waiver_ignored"), (
        "waiver_ignored has a task to try"
    )
