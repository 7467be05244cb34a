"""A record may not pass through a status the policy forbids it to reach, on any path.

The end state of "deny the claim" is the same whether the claim went straight to denied or
through awaiting documents first; when a staff rule forbids that claim awaiting documents,
only the second path broke the policy. The session's write log keeps every status a row took
(``synthenv_touched`` rows with ``col``/``val``) and the verifier's ``avoid`` fails a change
whose row took one of the statuses it lists.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_bundles import sample_bundles

from pipeline.policy.check import blocking_rule
from pipeline.policy.model import Policy
from pipeline.runtime.environment import Environment
from pipeline.runtime.task import Task
from pipeline.runtime.verify import RowChange, Verifier
from pipeline.tasks.exploits.base import REGISTRY, Probe
from pipeline.tools.executor import open_copy


def _order(env: Environment, status: str) -> tuple[int, str]:
    """The first order in ``status``: its id and number."""
    conn = open_copy(env.bundle.state_bytes)
    try:
        found = conn.execute("SELECT id, order_number FROM orders WHERE status = ? ORDER BY id LIMIT 1", (status,))
        row_id, number = found.fetchone()
        return int(row_id), str(number)
    finally:
        conn.close()


def test_the_write_log_keeps_every_status_a_row_took(store_bundle: Path) -> None:
    env = Environment.from_bundle(store_bundle)
    try:
        row, _ = _order(env, "paid")
        env.reset(task_id=env.tasks[0].id)
        for tool in ("ship_order", "mark_order_delivered"):
            _, _, _, _, info = env.step({"tool": tool, "arguments": {"id": row}})
            assert "error" not in info, info
        env.step({"tool": "list_orders", "arguments": {"limit": 1}})
        logged = env._session.conn.execute(
            "SELECT col, val FROM synthenv_touched WHERE tbl = 'orders' AND id = ? AND col IS NOT NULL", (row,)
        ).fetchall()
        assert logged == [("status", "shipped"), ("status", "delivered")]
        assert env._session.touched() == {"orders": {row}}
    finally:
        env.close()


def _verdict(env: Environment, change: RowChange, statuses: list[str]) -> tuple[float, dict[str, object]]:
    env.reset(task_id=env.tasks[0].id)
    row = int(
        env._session.conn.execute(
            "SELECT id FROM orders WHERE order_number = ?", (change.key["order_number"],)
        ).fetchone()[0]
    )
    for status in statuses:  # raw writes: the log sees them as it sees a tool's
        env._session.conn.execute("UPDATE orders SET status = ? WHERE id = ?", (status, row))
    verdict = env._session.verify(Verifier(changes=(change,)), "Done.")
    return verdict.reward, verdict.checks[1].observed


def test_a_change_fails_when_its_row_passed_through_a_status_to_avoid(store_bundle: Path) -> None:
    env = Environment.from_bundle(store_bundle)
    try:
        _, number = _order(env, "paid")
        change = RowChange(
            table="orders",
            op="update",
            key={"order_number": number},
            values={"status": "shipped"},
            avoid={"status": ("delivered",)},
        )
        assert _verdict(env, change, ["shipped"])[0] == 1.0
        reward, observed = _verdict(env, change, ["delivered", "shipped"])
        assert reward == 0.0 and observed["passed through what the policy forbids"] == {"status": ["delivered"]}
        # Without the list, the same history passes: the end state alone cannot tell.
        assert _verdict(env, change.model_copy(update={"avoid": {}}), ["delivered", "shipped"])[0] == 1.0
    finally:
        env.close()


def test_avoid_is_left_out_of_a_task_record_when_empty() -> None:
    change = RowChange(table="t", op="update", key={"k": 1}, values={"status": "a"})
    assert "avoid" not in change.model_dump(mode="json")
    assert RowChange.model_validate(change.model_dump(mode="json")) == change


def _stripped(task: Task) -> Task:
    changes = tuple(c.model_copy(update={"avoid": {}}) for c in task.verifier.changes)
    return task.model_copy(update={"verifier": task.verifier.model_copy(update={"changes": changes})})


def _detours(path: Path) -> tuple[int, int, int, int]:
    """(tasks with a status to avoid, detour attempts, attempts that score 1.0 as shipped, attempts
    that would score 1.0 without the avoid check) over one bundle, replayed through the real tools."""
    env = Environment.from_bundle(path)
    rules = env.bundle.manifest.as_tool_use().policy_rules
    policy = Policy.model_validate(rules) if rules else None
    tasks = attempts = passed = unchecked = 0
    try:
        for task in env.tasks:
            if not any(c.avoid for c in task.verifier.changes):
                continue
            tasks += 1
            scratch = open_copy(env.bundle.state_bytes)
            try:
                for change in task.verifier.changes:  # every status listed is one a staff rule blocks
                    for column, values in change.avoid.items():
                        where = " AND ".join(f'"{k}" IS ?' for k in change.key)
                        row = scratch.execute(
                            f'SELECT id FROM "{change.table}" WHERE {where}', tuple(change.key.values())
                        )
                        row_id = row.fetchone()[0]
                        assert policy is not None
                        assert all(blocking_rule(policy, scratch, change.table, v, row_id) for v in values), column
                for attempt in REGISTRY["forbidden_detour"].attempts(
                    Probe(task, env.executor, env.bundle.state_bytes, scratch)
                ):
                    attempts += 1
                    env.reset(task_id=task.id)
                    for call in attempt.calls:
                        env.step({"tool": call.tool, "arguments": dict(call.arguments)})
                    passed += env._session.verify(task.verifier, attempt.answer).reward == 1.0
                    unchecked += env._session.verify(_stripped(task).verifier, attempt.answer).reward == 1.0
            finally:
                scratch.close()
    finally:
        env.close()
    return tasks, attempts, passed, unchecked


@pytest.mark.slow
def test_no_detour_through_a_forbidden_status_passes_in_the_sample_worlds() -> None:
    totals = [0, 0, 0, 0]
    for path in sample_bundles().values():
        for i, n in enumerate(_detours(path)):
            totals[i] += n
    tasks, attempts, passed, unchecked = totals
    assert passed == 0, totals
    # The check is load-bearing: some detour reaches the right end state and would pass without it.
    assert tasks >= 5 and attempts >= 1 and unchecked >= 1, totals
