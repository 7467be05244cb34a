"""The top level's reference holds no call an agent could skip.

Level 5 is scored on the end state and the report, so a reference padded with calls would overstate
how long the work is. Here, over the top-level tasks of the test worlds: dropping any one write
fails the task (each write is asked for), no call is made twice, and no call fails (an empty
listing still decides something: an order with no payments refunds nothing).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline import Environment
from pipeline.runtime.task import Task


def _top(bundle: Path) -> tuple[Any, list[Task]]:
    env = Environment.from_bundle(bundle)
    return env, [t for t in env.tasks if t.level == 5]


def _play(env: Any, task: Task, calls: Any, answer: Any) -> tuple[float, list[Any]]:
    env.reset(task_id=task.id)
    results = [env.step(call.model_dump())[0] for call in calls]
    return float(env.step({"answer": answer})[1]), results


@pytest.mark.parametrize("domain", ["online_store", "library_loans", "clinic_appointments"])
def test_no_reference_call_can_be_dropped(bundles: dict[str, Path], domain: str) -> None:
    env, top = _top(bundles[domain])
    try:
        for task in top:
            answer = task.verifier.answer.expected if task.verifier.answer else None
            keys = [json.dumps([c.tool, c.arguments], sort_keys=True) for c in task.solution]
            assert len(set(keys)) == len(keys), (task.id, "a call made twice")
            reward, observations = _play(env, task, task.solution, answer)
            assert reward == 1.0, task.id
            for call, seen in zip(task.solution, observations, strict=True):
                shown = json.dumps(seen)
                assert '"error"' not in shown, (task.id, call, shown[:200])
            for i, call in enumerate(task.solution):
                if env.executor.spec(call.tool).mode == "write":
                    rest = task.solution[:i] + task.solution[i + 1 :]
                    assert _play(env, task, rest, answer)[0] == 0.0, (task.id, "write not needed", call)
    finally:
        env.close()


def test_every_reference_fits_the_default_step_budgets(bundles: dict[str, Path]) -> None:
    """An agent gets room beyond the reference: half again as many steps, and one to answer, under
    the budgets of ``synthenv evaluate`` and the verifiers adapter (a reference that spends the budget
    made a shipped level-5 task unsolvable under ``evaluate``)."""
    from pipeline.evaluate.config import EvalConfig
    from pipeline.tasks.model import MAX_REFERENCE_CALLS

    assert EvalConfig().max_steps >= MAX_REFERENCE_CALLS * 3 // 2 + 1  # the verifiers adapter's: its own test
    for bundle in bundles.values():
        env = Environment.from_bundle(bundle)
        try:
            assert max(len(t.solution) for t in env.tasks) <= MAX_REFERENCE_CALLS
        finally:
            env.close()
