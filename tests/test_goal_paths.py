"""'Get it to status S' accepts every legal path whose end state matches, and no path the policy forbids.

For every task that names a status to reach rather than the operations to get there (the
``recoveries`` knob; its verifier leaves free the stamps of every legal path, see
``goal_stamps``), this enumerates the moves the tools accept (each operation's ``allowed_from ->
to``, an update's declared transitions) from the record's initial status to the goal, up to a
horizon, and replays the reference with its path swapped for each of them through the real tools
on a fresh episode (``Environment.reset``/``step``): every legal path scores 1.0, every path
through a move the world's policy forbids on that record scores 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sample_bundles import sample_bundles

from pipeline.policy.check import blocking_rule
from pipeline.policy.model import Policy
from pipeline.runtime.environment import Environment
from pipeline.runtime.task import Task, ToolCall
from pipeline.tasks.exploits.detours import tool_moves
from pipeline.tools.executor import open_copy
from pipeline.world.sqlnames import quote_ident

HORIZON = 4
"""Moves a path may take: the reference's routes take 2-3 (``op_path``), one more allows a detour."""


@dataclass(frozen=True)
class Goal:
    """The status goal of a task: the record, where it starts and ends, and the reference's path."""

    table: str
    column: str
    record: int
    start: str
    goal: str
    first: int
    """Index of the reference's first path call (its path is ``solution[first:last]``)."""
    last: int


@dataclass(frozen=True)
class Route:
    calls: tuple[ToolCall, ...]
    statuses: tuple[str, ...]
    forbidden: bool
    """Some move of it is one the world's policy forbids on the record."""


def status_goal(env: Environment, task: Task) -> Goal | None:
    """The goal of a task that names a status to reach, read from its reference's path of operations."""
    if not task.knobs.get("recoveries"):
        return None
    specs = {t.name: t for t in env.toolset.tools}
    steps = [i for i, c in enumerate(task.solution) if specs[c.tool].kind == "transition"]
    if not steps or steps != list(range(steps[0], steps[-1] + 1)):
        return None
    calls = [task.solution[i] for i in steps]
    targets = {(specs[c.tool].table, specs[c.tool].status_column, c.arguments.get("id")) for c in calls}
    if len(targets) != 1:
        return None
    table, column, record = targets.pop()
    conn = open_copy(env.bundle.state_bytes)
    try:
        row = conn.execute(f"SELECT {quote_ident(str(column))} FROM {quote_ident(table)} WHERE id = ?", (record,))
        start = str(row.fetchone()[0])
    finally:
        conn.close()
    goal = str(specs[calls[-1].tool].to)
    return Goal(table, str(column), int(record), start, goal, steps[0], steps[-1] + 1)


def alternative_paths(env: Environment, goal: Goal, policy: Policy | None) -> list[Route]:
    """Every simple path of moves (no status twice) from the record's status to the goal, within
    :data:`HORIZON` moves, with whether the policy forbids one of its moves on the record."""
    moves = tool_moves(env.toolset.tools, goal.table, goal.column, goal.record)
    conn = open_copy(env.bundle.state_bytes)
    try:
        found: list[Route] = []

        def walk(status: str, calls: tuple[ToolCall, ...], seen: tuple[str, ...]) -> None:
            if status == goal.goal and calls:
                forbidden = policy is not None and any(
                    blocking_rule(policy, conn, goal.table, s, goal.record) is not None for s in seen[1:]
                )
                found.append(Route(calls, seen, forbidden))
                return
            if len(calls) >= HORIZON:
                return
            for nxt, call in moves.get(status, []):
                if nxt not in seen:
                    walk(nxt, (*calls, call), (*seen, nxt))

        walk(goal.start, (), (goal.start,))
        return found
    finally:
        conn.close()


def replay(env: Environment, task: Task, goal: Goal, path: Route) -> tuple[float, list[str]]:
    """The task's reward when its reference takes ``path`` instead of its own, and the tool errors met."""
    calls = (*task.solution[: goal.first], *path.calls, *task.solution[goal.last :])
    env.reset(task_id=task.id)
    errors = []
    for call in calls:
        _, _, _, _, info = env.step({"tool": call.tool, "arguments": dict(call.arguments)})
        if "error" in info:
            errors.append(f"{call.tool}: {info['error']}")
    answer: Any = task.answer if task.answer is not None else "Done."
    _, reward, _, _, _ = env.step({"answer": answer})
    return float(reward), errors


def bundle_policy(env: Environment) -> Policy | None:
    rules = env.bundle.manifest.as_tool_use().policy_rules
    return Policy.model_validate(rules) if rules else None


def _replay_all(path: Path) -> tuple[int, list[tuple[str, str, float, bool, list[str]]]]:
    """(goal tasks, one row per path: task, statuses, reward, forbidden, tool errors) over one bundle."""
    env = Environment.from_bundle(path)
    try:
        policy = bundle_policy(env)
        goals, rows = 0, []
        for task in env.tasks:
            if not task.knobs.get("recoveries"):
                continue
            goal = status_goal(env, task)
            assert goal is not None, (path.name, task.id, "a status goal whose path the test cannot read")
            goals += 1
            paths = alternative_paths(env, goal, policy)
            assert paths, (task.id, "the reference's own path is not among the legal ones")
            for one in paths:
                reward, errors = replay(env, task, goal, one)
                rows.append((task.id, " -> ".join(one.statuses), reward, one.forbidden, errors))
        return goals, rows
    finally:
        env.close()


def _assert_paths(name: str, rows: list[tuple[str, str, float, bool, list[str]]]) -> None:
    for task_id, statuses, reward, forbidden, errors in rows:
        assert not errors, (name, task_id, statuses, errors)
        assert reward == (0.0 if forbidden else 1.0), (name, task_id, statuses, "forbidden" if forbidden else "legal")


def test_every_legal_path_to_a_status_goal_scores_1(bundles: dict[str, Path]) -> None:
    total = 0
    for name, path in bundles.items():
        goals, rows = _replay_all(path)
        _assert_paths(name, rows)
        total += goals
    assert total >= 1


@pytest.mark.slow
def test_sample_worlds_accept_every_legal_path_and_no_forbidden_one() -> None:
    goals, legal, forbidden = 0, 0, 0
    for name, path in sample_bundles().items():
        found, rows = _replay_all(path)
        _assert_paths(name, rows)
        goals += found
        legal += sum(1 for r in rows if not r[3])
        forbidden += sum(1 for r in rows if r[3])
    # More legal paths than goals: some goal is reached by a route other than the reference's. Since
    # payments add up to what they pay (settles), no goal of these worlds has a path the policy
    # forbids (0 of 14 bundles checked); every forbidden detour of every shipped task is still tried
    # at build by the exploit library (``forbidden_detour``), which must score 0.
    assert goals >= 5 and legal > goals, (goals, legal, forbidden)
