"""The policy's late line: a larger fee on a record undone long after it was made, read record by record.

Checked against the bundle, not the generator's bookkeeping: which records of a task carry the larger
fee is re-derived here from the state and the line's words (the record's time against today), the
total is recomputed from the fee, late and waiver lines, and the answer that keeps the usual fee on
every record scores 0 through ``Environment.step`` while the reference scores 1.
"""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from test_cap import _policy, _refund, exploit_scores_zero, ruled_tasks

from pipeline import Environment
from pipeline.jobs.steps import Inputs, generate
from pipeline.policy.fees import LATE_SHARE, refund
from pipeline.policy.model import Rule, is_late


def _rule(**fields: Any) -> Rule:
    base = {"id": "P9", "kind": "late", "text": "", "enforced": False, "table": "orders", "goal": "cancelled"}
    return Rule(**{**base, **fields})


def test_a_late_line_counts_calendar_days_to_today() -> None:
    rule = _rule(column="placed_at", limit=45.0, count=40)
    today = "2026-01-15T12:00:00"
    assert not is_late(rule, {"placed_at": "2025-12-01T23:59:59"}, today)  # 45 days before: not more
    assert is_late(rule, {"placed_at": "2025-11-30T00:00:01"}, today)
    assert not is_late(rule, {"placed_at": None}, today)


def test_the_late_fee_replaces_the_usual_one_and_a_waiver_still_wins() -> None:
    fee = _rule(kind="fee", limit=15.0)
    assert refund(Decimal("19.99"), fee) == Decimal("16.99")
    assert refund(Decimal("19.99"), fee, percent=40) == Decimal("11.99")
    assert refund(Decimal("19.99"), fee, waived=True, percent=40) == Decimal("19.99")


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """car_rental seed 0: cancellations whose fee grows for reservations booked long ago."""
    root = tmp_path_factory.mktemp("late")
    summary = generate(Inputs(domain="car_rental", seed=0), root / "out", root / "work")
    environment = Environment.from_bundle(Path(summary["path"]))
    yield environment
    environment.close()


def _late_line(env: Environment) -> tuple[Rule, Rule]:
    policy = _policy(env)
    late = next(r for r in policy.rules if r.kind == "late")
    fee = policy.fee(str(late.operation))
    assert fee is not None
    return late, fee


def test_the_late_line_says_what_it_does(env: Environment) -> None:
    late, fee = _late_line(env)
    days, percent, usual = re.search(
        r"more than (\d+) days.* the fee is (\d+) % instead of (\d+) %", late.text
    ).groups()
    assert (float(days), int(percent), float(usual)) == (late.limit, late.count, fee.limit)
    assert int(percent) > float(usual)
    # It falls on some of the records the operation may refund, not on most.
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.deserialize(env.bundle.state_bytes)
        clock = _policy(env).clock
        ids = [i for (i,) in conn.execute(f"SELECT id FROM \"{late.table}\" WHERE status IN ('pending', 'confirmed')")]
        hit = sum(_refund(conn, fee, i, None, clock, late) != _refund(conn, fee, i) for i in ids)
        assert 2 <= hit <= LATE_SHARE[1] * len(ids) * 1.5, (hit, len(ids))


def test_a_task_keeps_the_larger_fee_on_the_records_made_long_ago(env: Environment) -> None:
    policy = _policy(env)
    found = ruled_tasks(env, "late")
    assert any(t.knobs.get("late") for t, _, _ in found), "car_rental seed 0 holds a request with a late record"
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.deserialize(env.bundle.state_bytes)
        for task, late, fee in found:
            op = str(task.knobs["operation"])
            waiver = policy.waiver(op)
            done = [c.arguments["id"] for c in task.solution if c.tool == op]
            heavier = [
                i
                for i in done
                if _refund(conn, fee, i, waiver, policy.clock, late) != _refund(conn, fee, i, waiver, policy.clock)
            ]
            assert sorted(heavier) == sorted(task.knobs.get("late", [])), task.id
            expected = task.verifier.answer.expected if task.verifier.answer else {}
            total = sum((_refund(conn, fee, i, waiver, policy.clock, late) for i in done), Decimal(0))
            assert Decimal(str(expected["total"])) == total, task.id


def test_a_choice_totals_its_record_under_the_late_line(env: Environment) -> None:
    policy = _policy(env)
    late, fee = _late_line(env)
    choices = [t for t in env.tasks if t.family == "choice" and t.knobs.get("operation") == late.operation]
    assert choices
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.deserialize(env.bundle.state_bytes)
        for task in choices:
            chosen = task.knobs["chosen"]
            expected = task.verifier.answer.expected if task.verifier.answer else {}
            back = _refund(conn, fee, chosen, policy.waiver(str(late.operation)), policy.clock, late)
            assert Decimal(str(expected["total"])) == back, task.id


def test_keeping_the_usual_fee_on_every_record_scores_zero(env: Environment) -> None:
    tasks = [t for t in env.tasks if "usual_fee_answer" in t.knobs]
    assert exploit_scores_zero(env, tasks, "late_fee_ignored"), "late_fee_ignored has a task to try"
