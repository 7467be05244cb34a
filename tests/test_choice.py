"""The top level (family ``choice``): one of a person's records, chosen by what it comes to under the policy.

The reference scores 1.0 through the real environment in every answer form the instruction allows;
the operation on any shortcut's pick, on every candidate, or on none, the total before the fee, and
the total of someone who believed the person's false claim that no fee is kept, score 0.0. The
choice itself is recomputed from the state with the policy's own readings (the blocking rule, the
refund with its waiver, the cap), not the family's code.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from pipeline import Environment
from pipeline.jobs.steps import Inputs, generate
from pipeline.policy.check import blocking_rule
from pipeline.policy.fees import refund_of
from pipeline.policy.model import Policy
from pipeline.runtime.task import Task
from pipeline.tasks.check import check_bundle
from pipeline.tools.executor import open_copy
from pipeline.tools.specs import TransitionTool


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Environment:
    root = tmp_path_factory.mktemp("choice")
    summary = generate(Inputs(domain="event_ticketing", seed=0), root / "out", root / "work")
    return Environment.from_bundle(Path(summary["path"]))


def _choices(env: Environment) -> list[Task]:
    tasks = [t for t in env.tasks if t.family == "choice"]
    assert len(tasks) >= 3
    return tasks


def _play(env: Environment, task: Task, calls: list[tuple[str, dict[str, Any]]], answer: Any) -> float:
    env.reset(task_id=task.id)
    for tool, args in calls:
        env.step({"tool": tool, "arguments": args})
    return env.step({"answer": answer})[1]


def _reference(task: Task) -> list[tuple[str, dict[str, Any]]]:
    return [(c.tool, dict(c.arguments)) for c in task.solution]


def _swapped(task: Task, pick: int) -> list[tuple[str, dict[str, Any]]]:
    op, chosen = task.knobs["operation"], task.knobs["chosen"]
    return [(t, {**a, "id": pick}) if t == op and a.get("id") == chosen else (t, a) for t, a in _reference(task)]


def test_the_reference_scores_one_in_every_answer_form(env: Environment) -> None:
    for task in _choices(env):
        total = json.loads(str(task.answer))["total"]
        assert set(json.loads(str(task.answer))) == {"total"}
        for answer in (task.answer, {"total": total}, {"total": total, "refused": []}, {"total": f"${total:.2f}"}):
            assert _play(env, task, _reference(task), answer) == 1.0, (task.id, answer)


def test_every_shortcut_scores_zero(env: Environment) -> None:
    for task in _choices(env):
        answer = task.answer
        picks = sorted(set(task.knobs["wrong_picks"].values()))
        assert picks and task.knobs["chosen"] not in picks
        assert "first" in task.knobs["traps"] and {"policy", "waiver", "cap"} & set(task.knobs["traps"])
        for pick in picks:  # a shortcut's record instead of the right one, with the right total
            assert _play(env, task, _swapped(task, pick), answer) == 0.0, (task.id, pick)
        every = [*_reference(task), *[(task.knobs["operation"], {"id": p}) for p in picks]]
        assert _play(env, task, every, answer) == 0.0
        reads = [(t, a) for t, a in _reference(task) if t != task.knobs["operation"]]
        assert _play(env, task, reads, answer) == 0.0  # the right total, nothing done
        assert _play(env, task, [], answer) == 0.0
        if "unwaived_answer" in task.knobs:  # the fee kept on the chosen record, which the waiver spares
            assert _play(env, task, _reference(task), json.loads(task.knobs["unwaived_answer"])) == 0.0
        if task.knobs.get("claim") == "false":  # the person's claim that no fee is kept, believed
            assert _play(env, task, _reference(task), json.loads(task.knobs["believed_answer"])) == 0.0
        gross = json.loads(task.knobs["gross_answer"])
        if gross["total"] != json.loads(str(task.answer))["total"]:
            assert _play(env, task, _reference(task), gross) == 0.0  # the fee forgotten
        refusal = {"cannot": "policy", "id": task.knobs["chosen"], "value": "P1"}
        assert _play(env, task, [], refusal) == 0.0


def test_the_choice_is_the_largest_refund_the_policy_allows(env: Environment) -> None:
    """Recomputed from the state: every record of the person's the operation's status allows, kept
    back where a staff rule forbids it or its refund alone passes the cap; the largest of the rest (each
    refund under the fee, the late line's larger fee and the waiver)."""
    rules = env.bundle.manifest.as_tool_use().policy_rules
    assert rules
    policy = Policy.model_validate(rules)
    specs = {t.name: t for t in env.toolset.tools}
    conn = open_copy(env.bundle.state_bytes)
    try:
        for task in _choices(env):
            op = task.knobs["operation"]
            spec = specs[op]
            assert isinstance(spec, TransitionTool)
            table, column = str(spec.table), str(spec.status_column)
            listing = next(c for c in task.solution if c.tool.startswith("list_") and c.tool != task.solution[0].tool)
            (owner_column, owner), *_ = [(k, v) for k, v in listing.arguments.items() if k not in ("limit", "offset")]
            rows = conn.execute(
                f'SELECT id, "{column}" FROM "{table}" WHERE "{owner_column}" = ? ORDER BY id', (owner,)
            ).fetchall()
            fee, waiver, cap = policy.fee(op), policy.waiver(op), policy.cap(op)
            assert fee is not None
            back: dict[int, Decimal] = {}
            for row_id, status in rows:
                if status not in spec.allowed_from or blocking_rule(policy, conn, table, str(spec.to), row_id):
                    continue
                value = refund_of(conn, fee, row_id, waiver, policy.clock, policy.late(op))
                if cap is None or value <= Decimal(str(cap.limit)):
                    back[row_id] = value
            best = max(back, key=lambda i: back[i])
            assert best == task.knobs["chosen"], (task.id, back)
            assert float(back[best]) == json.loads(str(task.answer))["total"]
            assert sorted(back.values())[-2:].count(back[best]) == 1  # one best, no tie
    finally:
        conn.close()


def test_the_exploit_library_attacks_every_choice_from_the_bundle_alone(env: Environment) -> None:
    """``synthenv check``'s run: every choice task proven, and its two exploits tried on each."""
    report = check_bundle(env.bundle.path)
    assert report.ok, report.failures
    assert sum(report.exploits.passed.values()) == 0
    tasks = len(_choices(env))
    assert report.exploits.tasks["other_choice"] == report.exploits.tasks["every_candidate"] == tasks
    claims = sum(t.knobs.get("claim") == "false" for t in _choices(env))
    assert claims and report.exploits.tasks["claim_believed"] >= claims


def test_a_history_rule_over_the_persons_own_records_is_read_off_their_listing(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """insurance_claims seed 0 keeps a cancellation back where the policyholder cancelled another policy
    within a year: their own listing shows every policy they hold with its cancellation time, so the
    reference lists that table once (by the person), not again by the rule's window."""
    root = tmp_path_factory.mktemp("choice-history")
    summary = generate(Inputs(domain="insurance_claims", seed=0), root / "out", root / "work")
    env = Environment.from_bundle(Path(summary["path"]))
    try:
        policy = Policy.model_validate(env.bundle.manifest.as_tool_use().policy_rules)
        specs = {t.name: t for t in env.toolset.tools}
        checked = 0
        for task in _choices(env):
            spec = specs[task.knobs["operation"]]
            assert isinstance(spec, TransitionTool)
            history = [r for r in policy.staff_rules(spec.name) if r.kind == "history" and r.table == spec.table]
            if not history:
                continue
            listings = [c for c in task.solution if c.tool.startswith("list_") and specs[c.tool].table == spec.table]
            assert len(listings) == 1 and history[0].via in listings[0].arguments, (task.id, listings)
            assert _play(env, task, _reference(task), task.answer) == 1.0
            checked += 1
        assert checked >= 3
    finally:
        env.close()
