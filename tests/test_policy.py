"""The world's policy and the requests judged against it: derived from schema and state, shown
to the agent, kept by every shipped reference, and scored so that judgment, not literal
compliance, earns the reward."""

from __future__ import annotations

import copy
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from pipeline.bundle.format import load_bundle
from pipeline.policy.check import blocking_rule, breaking_call
from pipeline.policy.derive import derive_policy
from pipeline.policy.model import STAFF_KINDS, Policy, Rule, blocks
from pipeline.runtime.environment import Environment
from pipeline.runtime.task import ToolCall
from pipeline.runtime.verify import AnswerCheck, check_answer
from pipeline.surface import surface_of
from tests.conftest import TEST_DOMAINS


@pytest.fixture(scope="module")
def envs(bundles: dict[str, Path]) -> dict[str, Environment]:
    return {d: Environment.from_bundle(p) for d, p in bundles.items()}


def _policy(env: Environment) -> Policy:
    return Policy.model_validate(env.bundle.manifest.as_tool_use().policy_rules)


def _state(env: Environment) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.deserialize(env.bundle.state_bytes)
    return conn


@pytest.mark.parametrize("domain", TEST_DOMAINS)
def test_the_policy_is_derived_again_byte_for_byte(envs: dict[str, Environment], domain: str) -> None:
    env = envs[domain]
    manifest = env.bundle.manifest
    conn = _state(env)
    try:
        again = derive_policy(env.schema, conn, manifest["frozen_clock"], manifest["seed"])
    finally:
        conn.close()
    assert again.model_dump(mode="json") == manifest["policy_rules"]
    assert manifest["policy"] == again.text()
    assert [r.id for r in again.rules] == [f"P{i}" for i in range(1, len(again.rules) + 1)]


@pytest.mark.parametrize("domain", TEST_DOMAINS)
def test_every_staff_rule_blocks_some_records_and_not_all(envs: dict[str, Environment], domain: str) -> None:
    """A rule that blocks nothing or everything the lifecycle allows teaches nothing."""
    env = envs[domain]
    policy = _policy(env)
    conn = _state(env)
    conn.row_factory = sqlite3.Row
    try:
        staff = [r for r in policy.rules if r.kind in STAFF_KINDS]
        assert staff, "every test world has staff rules"
        for rule in staff:
            op = next(o for o in env.schema.operations if o.name == rule.operation)
            marks = ",".join("?" * len(op.allowed_from))
            ids = [
                r["id"]
                for r in conn.execute(f'SELECT id FROM "{op.table}" WHERE "{op.column}" IN ({marks})', op.allowed_from)
            ]
            blocked = [i for i in ids if blocking_rule(policy, conn, op.table, op.to, i) is not None]
            assert 0 < len(blocked) < len(ids), (rule.text, len(blocked), len(ids))
    finally:
        conn.close()


def test_rules_read_their_record_as_stated() -> None:
    threshold = Rule(id="P1", kind="threshold", text="", enforced=False, table="t", column="total", limit=100.0)
    window = Rule(id="P2", kind="window", text="", enforced=False, table="t", column="placed_at", limit=30.0)
    related = Rule(
        id="P3",
        kind="related",
        text="",
        enforced=False,
        table="t",
        child="c",
        via="t_id",
        column="method",
        value="gift_card",
    )
    clock = "2026-01-15T12:00:00"
    assert blocks(threshold, {"total": 100.01}, clock) and not blocks(threshold, {"total": 100.0}, clock)
    assert blocks(window, {"placed_at": "2025-12-15T11:00:00"}, clock)
    assert not blocks(window, {"placed_at": "2025-12-17T12:00:00"}, clock)
    assert blocks(related, {}, clock, [{"method": "card"}, {"method": "gift_card"}])
    assert not blocks(related, {}, clock, [{"method": "card"}])


@pytest.mark.parametrize("domain", TEST_DOMAINS)
def test_no_shipped_reference_breaks_a_staff_rule(envs: dict[str, Environment], domain: str) -> None:
    env = envs[domain]
    specs = {t.name: t for t in env.toolset.tools}
    conn = _state(env)
    try:
        for task in env.tasks:
            assert breaking_call(_policy(env), specs, conn, task.solution) is None, task.id
    finally:
        conn.close()


def test_a_status_update_is_held_to_the_rules_of_the_status_it_sets(envs: dict[str, Environment]) -> None:
    """A staff rule is about an outcome: reaching the status through an update breaks it too."""
    env = envs["online_store"]
    policy, specs = _policy(env), {t.name: t for t in env.toolset.tools}
    conn = _state(env)
    try:
        for rule in (r for r in policy.rules if r.kind in STAFF_KINDS):
            update = next((t for t in env.toolset.tools if t.kind == "update" and t.table == rule.table), None)
            if update is None or not update.status_column:
                continue
            for (row_id,) in conn.execute(f'SELECT id FROM "{rule.table}"'):
                if blocking_rule(policy, conn, rule.table, str(rule.goal), row_id) is not None:
                    call = ToolCall(tool=update.name, arguments={"id": row_id, update.status_column: rule.goal})
                    found = breaking_call(policy, specs, conn, [call])
                    assert found is not None and found[1].goal == rule.goal
                    return
    finally:
        conn.close()
    pytest.fail("no staff rule with a blocked record and an update tool in the test world")


@pytest.mark.parametrize("domain", TEST_DOMAINS)
def test_the_agent_reads_the_policy(envs: dict[str, Environment], domain: str) -> None:
    env = envs[domain]
    system = surface_of(env).system
    assert "Policy of this system:\nToday is " in system
    for rule in _policy(env).rules:
        assert f"{rule.id}. {rule.text}" in system
    assert '"policy" when a rule of the policy forbids it' in system


def _play(env: Environment, task_id: str, calls: list[ToolCall], answer: Any) -> float:
    fork = copy.copy(env)
    fork.reset(task_id=task_id)
    for call in calls:
        fork.step({"tool": call.tool, "arguments": dict(call.arguments)})
    *_, info = fork.step({"answer": answer})
    return float(info["verification"]["reward"])


def _requests(envs: dict[str, Environment]) -> list[tuple[Environment, Any]]:
    return [(env, t) for env in envs.values() for t in env.tasks if t.family == "request"]


def test_request_tasks_score_judgment_not_literal_compliance(envs: dict[str, Environment]) -> None:
    partial = 0
    for env, task in _requests(envs):
        check = task.verifier.answer
        answer = None if check is None else check.expected
        refusals = [] if answer is None else list(answer) if isinstance(answer, (list, tuple)) else [answer]
        assert _play(env, task.id, list(task.solution), task.answer or "done") == 1.0, task.id
        if len(refusals) == 1:  # the object itself, as an object
            assert _play(env, task.id, list(task.solution), refusals[0]) == 1.0, task.id
        if len(refusals) > 1:  # any order, and one object per line
            flipped = json.dumps(list(reversed(refusals)))
            assert _play(env, task.id, list(task.solution), flipped) == 1.0, task.id
            lines = "\n".join(json.dumps(r) for r in refusals)
            assert _play(env, task.id, list(task.solution), lines) == 1.0, task.id
            assert _play(env, task.id, list(task.solution), json.dumps(refusals[1:])) == 0.0, task.id
        policy_refused = [r for r in refusals if r["cannot"] == "policy"]
        if policy_refused:
            # Literal compliance: the operation on the records a staff rule forbids, which the tools allow.
            op = task.knobs["operation"]
            extra = [ToolCall(tool=op, arguments={"id": r["id"]}) for r in policy_refused]
            assert _play(env, task.id, [*task.solution, *extra], "done") == 0.0, task.id
            assert _play(env, task.id, [*task.solution, *extra], json.dumps(answer)) == 0.0, task.id
        if refusals and any(env.executor.spec(c.tool).mode == "write" for c in task.solution):
            partial += 1
            reads = [c for c in task.solution if env.executor.spec(c.tool).mode == "read"]
            assert _play(env, task.id, reads, json.dumps(answer)) == 0.0, task.id
    assert partial >= 3


def test_several_refusals_are_read_as_a_set() -> None:
    a = {"cannot": "policy", "id": 4, "value": "P5"}
    b = {"cannot": "status", "id": 9, "value": "shipped"}
    check = AnswerCheck(kind="refuse", expected=[a, b])
    assert check_answer(check, json.dumps([b, a])).passed
    assert check_answer(check, [b, a]).passed
    assert check_answer(check, f"{json.dumps(a)}\n{json.dumps(b)}").passed
    assert not check_answer(check, json.dumps([a])).passed
    assert not check_answer(check, json.dumps([a, a])).passed
    assert not check_answer(check, json.dumps([a, b, b])).passed
    assert not check_answer(check, json.dumps([a, {**b, "value": "paid"}])).passed
    assert not check_answer(check, json.dumps([{**a, "value": "P6"}, b])).passed
    with pytest.raises(ValueError):
        AnswerCheck(kind="refuse", expected=[a, {"cannot": "because", "id": 1}])


def test_a_bundle_without_the_policy_in_its_manifest_keeps_loading(bundles: dict[str, Path], tmp_path: Path) -> None:
    bundle = load_bundle(bundles["online_store"])
    assert {"policy", "policy_rules"} <= bundle.manifest.model_fields_set


def test_a_quote_is_the_sum_the_policy_lets_through(envs: dict[str, Environment]) -> None:
    """The reference's amount scores 1.0 with no change; the sum over every record asked about (the
    policy ignored) scores 0 wherever it differs, and so does the right amount after a write."""
    quotes = [(env, t) for env in envs.values() for t in env.tasks if t.family == "quote"]
    # 10 since library fines are no longer asked about as someone's (a fine's member and its loan's
    # member disagree in these worlds: "my fines" has two readings).
    assert len(quotes) >= 10
    differs = writes = 0
    for env, task in quotes:
        assert task.knobs["computed"] == 1 and not any(env.executor.spec(c.tool).mode == "write" for c in task.solution)
        assert _play(env, task.id, list(task.solution), task.answer) == 1.0, task.id
        if task.knobs["literal_answer"] != task.verifier.answer.expected:
            differs += 1
            assert _play(env, task.id, list(task.solution), str(task.knobs["literal_answer"])) == 0.0, task.id
        spec = env.executor.spec(task.knobs["operation"])
        first = next(c for c in task.solution if "order_by" in c.arguments)
        fork = copy.copy(env)
        fork.reset(task_id=task.id)
        listed = fork.step({"tool": first.tool, "arguments": dict(first.arguments)})[0]["result"]["items"]
        movable = [r for r in listed if r.get(str(spec.status_column)) in spec.allowed_from]
        if movable:  # carrying the operation out, then quoting the right amount: a write the quote forbids
            wrote = ToolCall(tool=spec.name, arguments={"id": movable[0]["id"]})
            assert _play(env, task.id, [*task.solution, wrote], task.answer) == 0.0, task.id
            writes += 1
    assert writes >= len(quotes) // 2
    assert differs >= len(quotes) // 2
