"""The policy's history rule: an owner who already had records set to a status lately gets no more,
the ones the same request sets counted as it goes.

Checked against the bundle: every record a task refuses under a history rule is re-derived here from
the owner's other records in the state (their stamps counted in the period, today included) plus the
owner's records the reference set to the goal before it, taken from the most recent down; no
reference carries the operation out on a record the rule refuses; and doing those records anyway
(``history_ignored``), or the ones only the request's own earlier writes refuse
(``own_writes_ignored``), scores 0 through ``Environment.step`` while the reference scores 1.
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
from pipeline.policy.check import breaking_call
from pipeline.policy.model import Policy, Rule, blocks
from pipeline.runtime.task import ToolCall
from pipeline.tools.model import ToolSpec, TransitionTool


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


def test_a_history_rule_counts_the_days_up_to_today_and_the_requests_own_writes() -> None:
    today = "2026-01-15T12:00:00"
    row: dict[str, Any] = {"id": 9, "guest_id": 4, "cancelled_at": None}
    assert blocks(_rule(), row, today, [row, {"id": 3, "cancelled_at": "2025-12-16T08:00:00"}])  # 30 days before
    assert not blocks(_rule(), row, today, [row, {"id": 3, "cancelled_at": "2025-12-15T08:00:00"}])  # 31
    assert blocks(_rule(), row, today, [row, {"id": 3, "cancelled_at": "2026-01-15T08:00:00"}])  # today
    assert not blocks(_rule(), row, today, [row, {"id": 3, "cancelled_at": "2026-01-16T08:00:00"}])  # after today
    two: list[dict[str, Any]] = [row, {"id": 3, "cancelled_at": "2026-01-02"}, {"id": 4, "cancelled_at": "2026-01-10"}]
    assert blocks(_rule(count=2), row, today, two) and not blocks(_rule(count=2), row, today, two[:2])
    # One set earlier in the same request counts, though the state read before it does not show it.
    assert not blocks(_rule(), row, today, [row]) and blocks(_rule(), row, today, [row], earlier=1)
    assert not blocks(_rule(count=2), row, today, two[:2]) and blocks(_rule(count=2), row, today, two[:2], earlier=1)


def test_a_solution_breaks_the_rule_when_its_own_earlier_write_fills_the_count() -> None:
    """``breaking_call`` reads a solution's writes in order: the second cancellation of one guest
    breaks a rule that allows one, whichever record it is; another guest's does not."""
    rule = _rule().model_copy(update={"limit": 365.0})
    policy = Policy(clock="2026-01-15T12:00:00", rules=(rule,))
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE reservations (id INTEGER PRIMARY KEY, guest_id INTEGER, status TEXT, cancelled_at TEXT)")
    conn.executemany("INSERT INTO reservations VALUES (?, ?, 'confirmed', NULL)", [(1, 4), (2, 4), (3, 5)])
    spec = TransitionTool(
        name="cancel_reservation",
        description="Cancel a reservation.",
        kind="transition",
        table="reservations",
        status_column="status",
        to="cancelled",
        allowed_from=("confirmed",),
        sets_time="cancelled_at",
        parameters={"type": "object"},
        result={"type": "object"},
        errors=(),
    )
    specs: dict[str, ToolSpec] = {spec.name: spec}

    def call(i: int) -> ToolCall:
        return ToolCall(tool=spec.name, arguments={"id": i})

    try:
        assert breaking_call(policy, specs, conn, [call(1), call(3)]) is None
        broken = breaking_call(policy, specs, conn, [call(2), call(3), call(1)])
        assert broken is not None and broken[0] == call(1) and broken[1].id == rule.id
        assert breaking_call(policy, specs, conn, [call(1), call(1)]) is None  # one record counts once
    finally:
        conn.close()


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """hotel_booking seed 3: guests whose reservations were cancelled in the year before today."""
    root = tmp_path_factory.mktemp("history")
    summary = generate(Inputs(domain="hotel_booking", seed=3), root / "out", root / "work")
    environment = Environment.from_bundle(Path(summary["path"]))
    yield environment
    environment.close()


def _stamped(conn: sqlite3.Connection, rule: Rule, record: Any, today: str) -> int:
    """The owner's records the line's words count in the state: stamped within its days up to today."""
    query = (
        f'SELECT o."{rule.column}" FROM "{rule.table}" o JOIN "{rule.table}" r ON r."{rule.via}" = o."{rule.via}" '
        f'WHERE r.id = ? AND o."{rule.column}" IS NOT NULL'
    )
    ages = [
        (date.fromisoformat(today[:10]) - date.fromisoformat(str(s)[:10])).days
        for (s,) in conn.execute(query, (record,))
    ]
    return sum(0 <= a <= float(rule.limit or 0) for a in ages)


def _in_order(conn: sqlite3.Connection, policy: Policy, rule: Rule, ids: list[Any]) -> list[dict[str, Any]]:
    """The request's records as the line takes them: from the most recent (by the priority line's
    time) down, ties by id."""
    when = next(r.column for r in policy.rules if r.kind == "priority" and r.table == rule.table)
    marks = ",".join("?" * len(ids))
    cur = conn.execute(f'SELECT id, "{rule.via}", "{when}" FROM "{rule.table}" WHERE id IN ({marks})', ids)
    rows = [{"id": i, "owner": o, "when": str(w)} for i, o, w in cur]
    return sorted(rows, key=lambda r: (r["when"], r["id"]), reverse=True)


def test_a_record_is_refused_under_a_history_rule_exactly_when_its_owner_had_enough(env: Environment) -> None:
    policy = _policy(env)
    found = ruled_tasks(env, "history")
    assert any(t.knobs.get("history_today") for t, _, _ in found), "hotel_booking seed 3 refuses one for its own writes"
    conn = sqlite3.connect(":memory:")
    conn.deserialize(env.bundle.state_bytes)
    try:
        for task, rule, _ in found:
            op = str(task.knobs["operation"])
            expected = task.verifier.answer.expected if task.verifier.answer else {}
            refused = [r["id"] for r in expected.get("refused", []) if r["value"] == rule.id]
            assert sorted(refused) == sorted(task.knobs["history_refused"]), task.id
            done = [c.arguments["id"] for c in task.solution if c.tool == op]
            earlier: dict[Any, int] = {}
            for row in _in_order(conn, policy, rule, [*done, *refused]):
                count = _stamped(conn, rule, row["id"], policy.clock) + earlier.get(row["owner"], 0)
                if row["id"] in refused:
                    assert count >= int(rule.count or 1), (task.id, row["id"])
                    today = row["id"] in task.knobs["history_today"]
                    assert today == (_stamped(conn, rule, row["id"], policy.clock) < int(rule.count or 1)), task.id
                else:
                    assert count < int(rule.count or 1), (task.id, row["id"])
                    earlier[row["owner"]] = earlier.get(row["owner"], 0) + 1
    finally:
        conn.close()


@pytest.mark.parametrize("name", ["history_ignored", "own_writes_ignored"])
def test_doing_what_the_rule_refuses_scores_zero(env: Environment, name: str) -> None:
    tasks = [t for t, _, _ in ruled_tasks(env, "history")]
    assert exploit_scores_zero(env, tasks, name), f"{name} has a task to try"


def test_counts_kept_for_every_owner_equal_each_owners_own_count(env: Environment) -> None:
    """``Owners`` counts a history rule for every owner in one pass over its table (the families keep
    them for a build); each count must be what reading that owner's records alone gives, and a record
    is refused the same way with the counts kept as without them."""
    from pipeline.policy.check import Owners, _children, blocking_rule
    from pipeline.policy.model import recent
    from pipeline.tools.executor import open_copy

    policy = _policy(env)
    rules = [r for r in policy.rules if r.kind == "history"]
    assert rules, "the fixture world has a history rule"
    conn = open_copy(env.bundle.state_bytes)
    try:
        owners: Owners = {}
        checked = 0
        for rule in rules:
            ids = [r[0] for r in conn.execute(f'SELECT id FROM "{rule.table}" ORDER BY id')]
            for row_id in ids:
                kept = blocking_rule(policy, conn, rule.table, str(rule.goal), row_id, owners=owners)
                assert kept == blocking_rule(policy, conn, rule.table, str(rule.goal), row_id)
            for (rule_id, owner), count in owners.items():
                if rule_id != rule.id or not isinstance(owner, int):
                    continue
                alone = recent(rule, _children(conn, rule, {str(rule.via): owner}), policy.clock)
                assert count == alone, (rule.id, owner)
                checked += 1
        assert checked > 10
    finally:
        conn.close()
