"""One contract for goals: no two tasks of a bundle expect opposite outcomes for the same request on
the same record, and conditional branches are balanced so a policy that never checks the condition
wins about half of them, never more.

Fast tests use the session's bundles (three domains); the slow ones the sample worlds (five
domains and three random worlds, :mod:`sample_bundles`).
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sample_bundles import sample_bundles

from pipeline.runtime.environment import Environment
from pipeline.runtime.task import Task, ToolCall
from pipeline.runtime.verify import AnswerCheck, RowChange, Verifier
from pipeline.tasks.consistency import Seen, claims, conflict_failures, conflicts, contradicts, remember
from pipeline.tasks.exploits import REGISTRY
from pipeline.tools.specs import ToolSpec


def _task(task_id: str, solution: list[ToolCall], knobs: dict[str, Any], expected: Any = None) -> Task:
    answer = None if expected is None else AnswerCheck(kind="refuse", expected=expected)
    changes = () if expected is not None else (RowChange(table="t", op="update", key={"id": 1}, values={}),)
    return Task(
        id=task_id,
        family="infeasible" if expected is not None else "update",
        level=0,
        knobs=knobs,
        instruction="x",
        solution=tuple(solution),
        verifier=Verifier(answer=answer, changes=changes),
    )


@pytest.fixture(scope="module")
def store_specs(store_bundle: Path) -> dict[str, ToolSpec]:
    env = Environment.from_bundle(store_bundle)
    try:
        return {t.name: t for t in env.toolset.tools}
    finally:
        env.close()


def test_a_refusal_and_a_goal_reached_on_the_same_record_conflict(store_specs: dict[str, ToolSpec]) -> None:
    # "Close the claim" refused on a claim under review, "get it to closed" done on the same claim:
    # here, an operation refused on order 7 by one task and carried out on it by another.
    op = next(s for s in store_specs.values() if s.kind == "transition" and s.to)
    refusing = _task("infeasible-000", [], {"operation": op.name}, {"cannot": "status", "id": 7, "value": "x"})
    reaching = _task("workflow-000", [ToolCall(tool=op.name, arguments={"id": 7})], {})
    elsewhere = _task("workflow-001", [ToolCall(tool=op.name, arguments={"id": 8})], {})
    found = conflicts([refusing, reaching, elsewhere], store_specs)
    assert [(c.refusing, c.reaching, c.record, c.status, c.refused) for c in found] == [
        ("infeasible-000", "workflow-000", 7, str(op.to), "status")
    ]
    assert set(conflict_failures([refusing, reaching], store_specs)) == {"infeasible-000"}
    assert conflicts([refusing, elsewhere], store_specs) == []
    # A request refusing one record by policy and doing another: no conflict within one task.
    partial = _task(
        "request-000",
        [ToolCall(tool=op.name, arguments={"id": 9})],
        {"operation": op.name},
        [{"cannot": "policy", "id": 7, "value": "P1"}, {"cannot": "missing", "id": 9, "value": None}],
    )
    assert [c.refused for c in claims(partial, store_specs)] == ["policy", None]
    assert [(c.refusing, c.reaching) for c in conflicts([partial, reaching], store_specs)] == [
        ("request-000", "workflow-000")
    ]
    # A second request in the same message refuses its record its own operation (its own status goal).
    other = next(s for s in store_specs.values() if s.kind == "transition" and s.to and s.to != op.to)
    both = _task(
        "case-000",
        [ToolCall(tool=op.name, arguments={"id": 9})],
        {"operation": op.name, "second": {"operation": other.name, "id": 7}},
        {"cannot": "policy", "id": 7, "value": "P1"},
    )
    assert [(c.table, c.record, c.status) for c in claims(both, store_specs) if c.refused] == [
        (other.table, 7, str(other.to))
    ]
    assert conflicts([both, reaching], store_specs) == []  # 7 reached op's goal; the refusal was of another


def test_the_build_drops_a_task_expecting_the_opposite_of_one_kept(store_specs: dict[str, ToolSpec]) -> None:
    op = next(s for s in store_specs.values() if s.kind == "transition" and s.to)
    reaching = _task("workflow-000", [ToolCall(tool=op.name, arguments={"id": 7})], {})
    refusing = _task("infeasible-000", [], {"operation": op.name}, {"cannot": "status", "id": 7, "value": "x"})
    report = Task(
        id="case-000",
        family="case",
        level=5,
        knobs={"operation": op.name},
        instruction="x",
        solution=(),
        verifier=Verifier(
            answer=AnswerCheck(
                kind="report", expected={"total": 1.0, "refused": [{"cannot": "policy", "id": 7, "value": "P1"}]}
            )
        ),
    )
    reached: Seen = set()
    refused: Seen = set()
    assert not contradicts(reaching, reached, refused, store_specs)
    remember(reaching, reached, refused, store_specs)
    assert contradicts(refusing, reached, refused, store_specs)  # either order: a refusal after a goal
    assert contradicts(report, reached, refused, store_specs)  # a report's refusals count too
    reached2: Seen = set()
    refused2: Seen = set()
    remember(refusing, reached2, refused2, store_specs)
    assert contradicts(reaching, reached2, refused2, store_specs)  # and a goal after a refusal


def test_a_goal_reached_through_an_update_counts(store_specs: dict[str, ToolSpec]) -> None:
    update = next((s for s in store_specs.values() if s.kind == "update" and s.status_column), None)
    if update is None:
        pytest.skip("no update moves a status in this world")
    status = str(update.status_column)
    reaching = _task("update-000", [ToolCall(tool=update.name, arguments={"id": 3, status: "shipped"})], {})
    assert [(c.table, c.record, c.status) for c in claims(reaching, store_specs)] == [(update.table, 3, "shipped")]


def _conditionals(env: Environment) -> list[Task]:
    return [t for t in env.tasks if t.family == "conditional"]


def _always(env: Environment, task: Task, branch: str) -> float:
    """The reward of a policy that reads what the reference reads, then always takes ``branch``."""
    spec = env.executor.spec
    reads = [c for c in task.solution if spec(c.tool).mode == "read"]
    if task.knobs["branch"] == branch:
        writes = [c for c in task.solution if spec(c.tool).mode == "write"]
    else:
        writes = [ToolCall.model_validate(c) for c in task.knobs["other_branch"]]
    env.reset(task_id=task.id)
    for call in [*reads, *writes]:
        env.step({"tool": call.tool, "arguments": dict(call.arguments)})
    return float(env.step({"answer": "Done."})[1])


def _branch_figures(path: Path) -> tuple[Counter[str], dict[str, float]]:
    """(then/else counts, passes of the always-then and always-else policies) over one bundle."""
    env = Environment.from_bundle(path)
    try:
        tasks = _conditionals(env)
        counts = Counter(str(t.knobs["branch"]) for t in tasks)
        passes = {b: sum(_always(env, t, b) for t in tasks) for b in ("then", "else")}
        return counts, passes
    finally:
        env.close()


def _assert_balanced(name: str, counts: Counter[str], passes: dict[str, float]) -> None:
    total = counts["then"] + counts["else"]
    assert total >= 3, (name, counts)
    assert abs(counts["then"] - counts["else"]) <= 1, (name, counts)
    for branch, won in passes.items():
        # Exactly the tasks whose state selects that branch, so about half, never more.
        assert won == counts[branch] <= math.ceil(total / 2), (name, branch, won, counts)


def test_conditional_branches_are_balanced_and_one_branch_wins_at_most_half(bundles: dict[str, Path]) -> None:
    for name, path in bundles.items():
        counts, passes = _branch_figures(path)
        _assert_balanced(name, counts, passes)


def test_no_two_tasks_expect_opposite_outcomes(bundles: dict[str, Path]) -> None:
    for name, path in bundles.items():
        env = Environment.from_bundle(path)
        try:
            assert conflicts(env.tasks, {t.name: t for t in env.toolset.tools}) == [], name
        finally:
            env.close()


def test_the_wrong_branch_exploits_are_registered() -> None:
    assert {"wrong_branch", "both_branches", "try_each_branch"} <= set(REGISTRY)


@pytest.mark.slow
def test_sample_worlds_are_consistent_and_balanced() -> None:
    """Five domains and three random worlds: no conflicting pair, branches balanced per bundle, an
    always-one-branch policy at most half, and the branch exploits tried on every conditional (the
    wrong branch alone where the tools take all of it) and never passing."""
    for name, path in sample_bundles().items():
        counts, passes = _branch_figures(path)
        _assert_balanced(name, counts, passes)
        env = Environment.from_bundle(path)
        try:
            assert conflicts(env.tasks, {t.name: t for t in env.toolset.tools}) == [], name
            exploits = env.bundle.manifest.as_tool_use().counts.exploits
            assert exploits["try_each_branch"]["tasks"] == len(_conditionals(env)), name
            assert exploits["wrong_branch"]["tasks"] >= len(_conditionals(env)) - 1, name
            for one in ("wrong_branch", "both_branches", "try_each_branch"):
                assert exploits[one]["passed"] == 0, (name, one)
        finally:
            env.close()
