"""The policy's cap on one request's refunds: a running sum over records taken most recent first.

Checked against the bundle itself, not the generator's own bookkeeping: the records a capped task
sets to the operation's status are re-derived here from the state (each record's payments, the fee
line, the records ranked by the cap's time), and the shortcuts that keep no running sum, or stop at
the first record held back, are played through ``Environment.step`` and score 0.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest
from sample_bundles import sample_bundles

from pipeline import Environment
from pipeline.policy.check import breaking_call
from pipeline.policy.fees import refund_of
from pipeline.policy.model import Policy, Rule
from pipeline.runtime.task import Task, ToolCall
from pipeline.tasks.exploits import REGISTRY
from pipeline.tasks.exploits.base import Probe, scratch_for

CAPPED_FAMILIES = ("sweep", "case")


def _policy(env: Environment) -> Policy:
    rules = env.bundle.manifest.as_tool_use().policy_rules
    assert rules is not None
    return Policy.model_validate(rules)


def _refund(
    conn: sqlite3.Connection,
    fee: Rule,
    row_id: Any,
    waiver: Rule | None = None,
    today: str = "",
    late: Rule | None = None,
) -> Decimal:
    """What comes back on ``row_id``, computed here from the fee line's words: the payments added up
    (or the record's own amount), less the fee (the late line's larger one where the record's time is
    more than its days before today) unless the waiver line gives it back in full (its time within the
    line's days of today, or its owner's standing), rounded half up to the cent."""
    if fee.child is None:
        query = f'SELECT "{fee.column}" FROM "{fee.table}" WHERE id = ?'
    else:
        query = f'SELECT "{fee.column}" FROM "{fee.child}" WHERE "{fee.via}" = ?'
    paid = sum((Decimal(str(v)) for (v,) in conn.execute(query, (row_id,))), Decimal(0))
    if waiver is not None and _in_full(conn, waiver, row_id, today):
        return paid
    percent = fee.limit
    if late is not None:
        (when,) = conn.execute(f'SELECT "{late.column}" FROM "{late.table}" WHERE id = ?', (row_id,)).fetchone()
        if (date.fromisoformat(today[:10]) - date.fromisoformat(str(when)[:10])).days > float(late.limit or 0):
            percent = late.count
    kept = paid * (Decimal(100) - Decimal(str(percent))) / Decimal(100)
    return kept.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def _in_full(conn: sqlite3.Connection, waiver: Rule, row_id: Any, today: str) -> bool:
    if waiver.via is None:
        (when,) = conn.execute(f'SELECT "{waiver.column}" FROM "{waiver.table}" WHERE id = ?', (row_id,)).fetchone()
        return (date.fromisoformat(today[:10]) - date.fromisoformat(str(when)[:10])).days <= float(waiver.limit or 0)
    query = (
        f'SELECT o."{waiver.column}" FROM "{waiver.table}" r JOIN "{waiver.child}" o ON o.id = r."{waiver.via}" '
        "WHERE r.id = ?"
    )
    found = conn.execute(query, (row_id,)).fetchone()
    return found is not None and str(found[0]) == waiver.value


def _capped_tasks(env: Environment) -> list[tuple[Task, Rule, Rule]]:
    return ruled_tasks(env, "cap")


def ruled_tasks(env: Environment, kind: str) -> list[tuple[Task, Rule, Rule]]:
    """The ``case`` and ``sweep`` tasks whose operation has a policy line of ``kind`` (``cap`` or
    ``waiver``) and a fee line, with both lines."""
    policy = _policy(env)
    out = []
    for task in env.tasks:
        op = task.knobs.get("operation")
        if task.family not in CAPPED_FAMILIES or not isinstance(op, str):
            continue
        rule = next((r for r in policy.rules if r.kind == kind and r.operation == op), None)
        fee = policy.fee(op)
        if rule is not None and fee is not None:
            out.append((task, rule, fee))
    return out


def _greedy_holds(env: Environment, task: Task, cap: Rule, fee: Rule) -> None:
    """The records done and the ones refused by the cap are what a running sum from the most recent
    down gives, over every record of the request no other rule refuses."""
    op = str(task.knobs["operation"])
    done = [c.arguments["id"] for c in task.solution if c.tool == op]
    expected = task.verifier.answer.expected if task.verifier.answer else {}
    held = [r["id"] for r in expected["refused"] if r["value"] == cap.id]
    assert held == task.knobs["capped"], task.id
    conn = sqlite3.connect(":memory:")
    conn.deserialize(env.bundle.state_bytes)
    try:
        table = cap.table
        when = dict(conn.execute(f'SELECT id, "{cap.column}" FROM "{table}"'))
        ranked = sorted(done + held, key=lambda i: str(when[i]), reverse=True)
        assert len({str(when[i]) for i in ranked}) == len(ranked), task.id  # one order
        given, through, back = Decimal(0), [], []
        policy = _policy(env)
        for record in ranked:
            amount = _refund(conn, fee, record, policy.waiver(op), policy.clock, policy.late(op))
            if given + amount > Decimal(str(cap.limit)):
                back.append(record)
            else:
                given += amount
                through.append(record)
        assert sorted(through) == sorted(done) and back == held, task.id
        if op.startswith(("cancel", "refund")) and "total" in expected:
            assert Decimal(str(expected["total"])) == given, task.id
    finally:
        conn.close()


@pytest.fixture(scope="module")
def env(store_bundle: Path) -> Any:
    environment = Environment.from_bundle(store_bundle)
    yield environment
    environment.close()


def _play(env: Environment, task: Task, calls: Any, answer: Any) -> float:
    env.reset(task_id=task.id)
    for call in calls:
        env.step(call.model_dump())
    return float(env.step({"answer": answer})[1])


def test_a_capped_task_follows_the_running_sum(env: Environment) -> None:
    found = _capped_tasks(env)
    assert any(t.knobs["capped"] for t, _, _ in found), "online_store seed 7 holds a request the cap holds back"
    for task, cap, fee in found:
        _greedy_holds(env, task, cap, fee)


def test_the_cap_never_holds_back_a_request_about_one_record(env: Environment) -> None:
    """A record whose refund alone passes the cap may exist (the cap is a few times a usual refund),
    but no task's reference carries the operation out on such a record: one alone is held back."""
    policy = _policy(env)
    conn = sqlite3.connect(":memory:")
    conn.deserialize(env.bundle.state_bytes)
    try:
        caps = {str(r.operation): r for r in policy.rules if r.kind == "cap"}
        assert caps
        for cap in caps.values():
            assert "from the most recent" in cap.text and f"{cap.limit:,.2f}" in cap.text
        done = 0
        for task in env.tasks:
            for call in task.solution:
                cap = caps.get(call.tool)
                fee = policy.fee(call.tool)
                if cap is None or fee is None:
                    continue
                op = call.tool
                back = refund_of(conn, fee, call.arguments["id"], policy.waiver(op), policy.clock, policy.late(op))
                assert back <= Decimal(str(cap.limit)), (task.id, call.arguments["id"], back)
                done += 1
        assert done, "online_store seed 7 has tasks that refund under a cap"
    finally:
        conn.close()


def test_a_reference_past_the_cap_breaks_the_policy(env: Environment) -> None:
    policy = _policy(env)
    specs = {s.name: s for s in env.executor.toolset.tools}
    conn = sqlite3.connect(":memory:")
    conn.deserialize(env.bundle.state_bytes)
    try:
        task, cap, _ = next((t, c, f) for t, c, f in _capped_tasks(env) if t.knobs["capped"])
        assert breaking_call(policy, specs, conn, task.solution) is None
        extra = ToolCall(tool=str(task.knobs["operation"]), arguments={"id": task.knobs["capped"][0]})
        broken = breaking_call(policy, specs, conn, [*task.solution, extra])
        assert broken is not None and broken[1].id == cap.id
    finally:
        conn.close()


@pytest.mark.parametrize("name", ["cap_ignored", "cap_stopped"])
def test_keeping_no_running_sum_scores_zero(env: Environment, name: str) -> None:
    assert exploit_scores_zero(env, [t for t, _, _ in _capped_tasks(env)], name), name


def exploit_scores_zero(env: Environment, tasks: list[Task], name: str) -> int:
    """Play every attempt of exploit ``name`` on ``tasks`` through ``Environment.step`` (each must
    score 0, each reference 1); how many attempts there were."""
    scratch = scratch_for(env.bundle.state_bytes)
    tried = 0
    try:
        for task in tasks:
            probe = Probe(task, env.executor, env.bundle.state_bytes, scratch)
            for attempt in REGISTRY[name].attempts(probe):
                tried += 1
                assert _play(env, task, attempt.calls, attempt.answer) == 0.0, (task.id, name)
            assert _play(env, task, task.solution, json.dumps(task.verifier.answer.expected)) == 1.0, task.id
    finally:
        scratch.close()
    return tried


@pytest.mark.slow
def test_every_capped_task_of_the_sample_worlds_follows_the_running_sum() -> None:
    held = 0
    for path in sample_bundles().values():
        environment = Environment.from_bundle(path)
        try:
            for task, cap, fee in _capped_tasks(environment):
                _greedy_holds(environment, task, cap, fee)
                held += bool(task.knobs["capped"])
        finally:
            environment.close()
    assert held >= 3, held
