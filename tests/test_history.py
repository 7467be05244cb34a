"""The policy's history rule: an owner who already had records set to a status lately gets no more.

Checked against the bundle: every record a task refuses under a history rule is re-derived here from
the owner's other records in the state (their stamps counted in the period, today not counted), no
reference carries the operation out on a record the rule refuses, and doing those records anyway
(``history_ignored``) scores 0 through ``Environment.step`` while the reference scores 1.
"""

from __future__ import annotations

import sqlite3
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from test_cap import _policy, exploit_scores_zero, ruled_tasks

from pipeline import Environment
from pipeline.jobs.steps import Inputs, generate
from pipeline.policy.model import Rule, blocks


def _rule(count: int = 1) -> Rule:
    return Rule(
        id="P16",
        kind="history",
        text="",
        enforced=False,
        table="reservations",
        operation="cancel_reservation",
        column="cancelled_at",
        limit=30.0,
        via="guest_id",
        count=count,
        goal="cancelled",
    )


def test_a_history_rule_counts_the_days_before_today_and_not_today() -> None:
    today = "2026-01-15T12:00:00"
    row = {"id": 9, "guest_id": 4, "cancelled_at": None}
    assert blocks(_rule(), row, today, [row, {"id": 3, "cancelled_at": "2025-12-16T08:00:00"}])  # 30 days before
    assert not blocks(_rule(), row, today, [row, {"id": 3, "cancelled_at": "2025-12-15T08:00:00"}])  # 31
    assert not blocks(_rule(), row, today, [row, {"id": 3, "cancelled_at": "2026-01-15T08:00:00"}])  # today
    two = [row, {"id": 3, "cancelled_at": "2026-01-02"}, {"id": 4, "cancelled_at": "2026-01-10"}]
    assert blocks(_rule(count=2), row, today, two) and not blocks(_rule(count=2), row, today, two[:2])


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """hotel_booking seed 3: guests whose reservations were cancelled in the year before today."""
    root = tmp_path_factory.mktemp("history")
    summary = generate(Inputs(domain="hotel_booking", seed=3), root / "out", root / "work")
    environment = Environment.from_bundle(Path(summary["path"]))
    yield environment
    environment.close()


def _earlier(conn: sqlite3.Connection, rule: Rule, record: Any, today: str) -> int:
    """The owner's records the line's words count: stamped within its days before today."""
    query = (
        f'SELECT o."{rule.column}" FROM "{rule.table}" o JOIN "{rule.table}" r ON r."{rule.via}" = o."{rule.via}" '
        f'WHERE r.id = ? AND o."{rule.column}" IS NOT NULL'
    )
    ages = [
        (date.fromisoformat(today[:10]) - date.fromisoformat(str(s)[:10])).days
        for (s,) in conn.execute(query, (record,))
    ]
    return sum(1 <= a <= float(rule.limit or 0) for a in ages)


def test_a_record_is_refused_under_a_history_rule_exactly_when_its_owner_had_enough(env: Environment) -> None:
    policy = _policy(env)
    found = ruled_tasks(env, "history")
    assert any(t.knobs.get("history_refused") for t, _, _ in found), "hotel_booking seed 3 refuses one"
    conn = sqlite3.connect(":memory:")
    conn.deserialize(env.bundle.state_bytes)
    try:
        for task, rule, _ in found:
            op = str(task.knobs["operation"])
            expected = task.verifier.answer.expected if task.verifier.answer else {}
            refused = [r["id"] for r in expected.get("refused", []) if r["value"] == rule.id]
            assert sorted(refused) == sorted(task.knobs["history_refused"]), task.id
            for record in refused:
                assert _earlier(conn, rule, record, policy.clock) >= int(rule.count or 1), (task.id, record)
            for call in (c for c in task.solution if c.tool == op):
                assert _earlier(conn, rule, call.arguments["id"], policy.clock) < int(rule.count or 1), task.id
    finally:
        conn.close()


def test_never_reading_the_owners_other_records_scores_zero(env: Environment) -> None:
    tasks = [t for t, _, _ in ruled_tasks(env, "history")]
    assert exploit_scores_zero(env, tasks, "history_ignored"), "history_ignored has a task to try"
