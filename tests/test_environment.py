"""The runtime contract: reset/step/close, isolation, and no crash on any input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline import Environment


@pytest.fixture(scope="module")
def env(store_bundle: Path) -> Environment:
    return Environment.from_bundle(store_bundle)


def test_reset_returns_instruction_and_info(env: Environment) -> None:
    obs, info = env.reset(seed=1)
    assert obs["type"] == "task" and obs["instruction"]
    assert info["task_id"] in {t.id for t in env.tasks}
    _again, info2 = env.reset(seed=1)
    assert info2["task_id"] == info["task_id"]


def test_unknown_task_id_is_a_clear_error(env: Environment) -> None:
    with pytest.raises(ValueError, match="unknown task_id"):
        env.reset(task_id="nope")


def test_gold_solution_through_step_earns_reward_one(env: Environment) -> None:
    for task in env.tasks:
        env.reset(task_id=task.id)
        for call in task.solution:
            obs, reward, terminated, truncated, info = env.step(call.model_dump())
            assert obs["type"] == "tool_result" and info["call_succeeded"], obs
            assert reward == 0.0 and not terminated
        obs, reward, terminated, truncated, info = env.step({"answer": task.answer})
        assert (reward, terminated, truncated) == (1.0, True, False), info["verification"]
        assert all(c["passed"] for c in info["verification"]["checks"])


def test_each_reset_starts_from_the_initial_state(env: Environment) -> None:
    task = next(t for t in env.tasks if t.verifier.changes)
    env.reset(task_id=task.id)
    for call in task.solution:
        env.step(call.model_dump())
    env.reset(task_id=task.id)
    assert env.step({"answer": None})[1] == 0.0


def test_step_after_done_and_before_reset(store_bundle: Path) -> None:
    fresh = Environment.from_bundle(store_bundle)
    assert fresh.step({"answer": 1})[0]["error"]["code"] == "invalid_state"
    fresh.reset()
    fresh.step({"answer": 1})
    obs, reward, terminated, _, info = fresh.step({"answer": 1})
    assert obs["error"]["code"] == "episode_over" and terminated and reward == 0.0 and "verification" not in info
    fresh.close()
    fresh.close()


def test_the_first_verdict_stands_in_process(store_bundle: Path) -> None:
    fresh = Environment.from_bundle(store_bundle)
    task = next(t for t in fresh.tasks if t.verifier.changes)
    fresh.reset(task_id=task.id)
    for call in task.solution:
        fresh.step(call.model_dump())
    _, reward, _, _, info = fresh.step({"answer": task.answer})
    shown = info["verification"]
    assert reward == 1.0 and shown["status"] == "passed"
    assert shown["task_id"] == shown["assigned_task_id"] == task.id
    first, state = fresh.verdict, fresh.verify(task.answer)
    assert first is not None and first.task_id == first.assigned_task_id == task.id
    for action in [{"answer": "other"}, *(c.model_dump() for c in task.solution), {"x": 1}, "junk"]:
        obs, reward, terminated, _, info = fresh.step(action)
        assert obs["error"]["code"] == "episode_over" and reward == 0.0 and terminated
        assert "verification" not in info and "components" not in info
    assert fresh.verdict is first and fresh.verify(task.answer) == state  # nothing written, verdict unchanged
    fresh.reset(task_id=task.id)
    assert (
        fresh.verdict is None and fresh.step({"tool": "get_order", "arguments": {"id": 1}})[0]["type"] == "tool_result"
    )
    fresh.close()


def test_a_verdict_on_another_task_than_the_assigned_one_is_an_error(store_bundle: Path) -> None:
    fresh = Environment.from_bundle(store_bundle)
    assigned, other = fresh.tasks[0], fresh.tasks[1]
    fresh.reset(task_id=assigned.id)
    fresh._task = other  # the episode's task swapped behind the trainer's back
    for call in other.solution:
        fresh.step(call.model_dump())
    _, reward, terminated, _, info = fresh.step({"answer": other.answer})
    shown = info["verification"]
    assert (reward, terminated, shown["status"]) == (0.0, True, "error")
    assert (shown["task_id"], shown["assigned_task_id"]) == (other.id, assigned.id)
    assert fresh.verdict is not None and fresh.verdict.status == "error" and not fresh.verdict.passed
    fresh.close()


def test_procedural_verdicts_name_their_task_and_the_first_one_stands(tmp_path: Path) -> None:
    from pipeline.package.procedural import build_procedural_bundle
    from pipeline.runtime.procedural import ProceduralEnvironment

    bundle = build_procedural_bundle(["gcd_lcm"], tmp_path, n=4, seed=1)
    proc = ProceduralEnvironment.from_bundle(bundle.path)
    task, other = proc.tasks[0], proc.tasks[1]
    proc.reset(task_id=task["id"])
    _, reward, _, _, info = proc.step({"answer": task["answer"]})
    assert reward == 1.0 and info["verification"] == {
        "status": "passed",
        "reward": 1.0,
        "task_id": task["id"],
        "assigned_task_id": task["id"],
    }
    first = proc.verdict
    for action in ({"answer": "0"}, {"answer": task["answer"]}, {"tool": "x"}):
        obs, reward, terminated, _, info = proc.step(action)
        assert obs["error"]["code"] == "episode_over" and reward == 0.0 and terminated and "verification" not in info
    assert proc.verdict == first and proc.done
    proc.reset(task_id=task["id"])
    proc._task = other  # swapped behind the trainer's back
    _, reward, _, _, info = proc.step({"answer": other["answer"]})
    assert reward == 0.0 and info["verification"]["status"] == "error"
    assert info["verification"]["assigned_task_id"] == task["id"] and info["verification"]["task_id"] == other["id"]


BAD_ACTIONS: list[Any] = [
    None,
    3,
    "get_order",
    [],
    {},
    {"tool": 5},
    {"tool": "get_order"},
    {"tool": "get_order", "arguments": []},
    {"tool": "get_order", "arguments": {"id": "x"}},
    {"tool": "get_order", "arguments": {"id": -1}},
    {"tool": "get_order", "arguments": {"id": 10**30}},
    {"tool": "list_orders", "arguments": {"limit": 10**6}},
    {"tool": "nope", "arguments": {}},
    {"answer": {"a": 1}},
    {"answer": 1, "tool": "x"},
    {"answer": True},
    {"tool": "create_category", "arguments": {"name": "x" * 10_000}},
]


@pytest.mark.parametrize("action", BAD_ACTIONS)
def test_bad_actions_return_errors_without_touching_state(env: Environment, action: Any) -> None:
    env.reset(task_id=env.tasks[0].id)
    before = env._session.conn.serialize()
    obs, reward, terminated, _truncated, _info = env.step(action)
    assert obs["type"] in ("error", "tool_error"), obs
    assert obs["error"]["message"]
    assert reward == 0.0 and not terminated
    assert env._session.conn.serialize() == before


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    tool=st.sampled_from(["get_order", "list_orders", "create_order", "update_product", "cancel_order", "x"]),
    arguments=json_values,
)
def test_step_never_raises_on_arbitrary_arguments(env: Environment, tool: str, arguments: Any) -> None:
    env.reset(task_id=env.tasks[0].id)
    obs, _reward, terminated, _truncated, _info = env.step({"tool": tool, "arguments": arguments})
    assert obs["type"] in ("tool_result", "tool_error")
    assert not terminated


def test_tampered_bundle_is_refused(store_bundle: Path, tmp_path: Path) -> None:
    import shutil

    from pipeline.bundle.format import BundleError

    copy = tmp_path / "copy"
    shutil.copytree(store_bundle, copy)
    with (copy / "state.sqlite").open("r+b") as fh:
        fh.seek(200)
        fh.write(b"\x00\x01")
    with pytest.raises(BundleError, match=r"state\.sqlite"):
        Environment.from_bundle(copy)


def test_step_components_and_weights_are_reported(env: Environment) -> None:
    task = next(t for t in env.tasks if t.verifier.answer is not None and t.verifier.answer.kind == "number")
    _, info = env.reset(task_id=task.id)
    assert info["reward_weights"]["outcome"] == 1.0
    _, reward, _, _, info = env.step({"tool": "nope", "arguments": {}})
    assert info["components"] == {"call_valid": 0.0, "call_succeeded": 0.0} and reward == 0.0
    _, _, _, _, info = env.step(task.solution[0].model_dump())
    assert info["components"] == {"call_valid": 1.0, "call_succeeded": 1.0}
    _, reward, terminated, _, info = env.step({"answer": task.answer})
    assert terminated and info["components"]["outcome"] == reward == 1.0


def test_a_failed_verdict_explains_itself_to_the_trainer_only(env: Environment) -> None:
    """The step info (what an agent may see) names the failed checks; the trainer's verdict says why."""
    task = next(t for t in env.tasks if t.verifier.changes)
    env.reset(task_id=task.id)
    _, reward, _, _, info = env.step({"answer": "done"})
    assert reward == 0.0 and info["verification"]["status"] == "failed"
    failed = [c for c in info["verification"]["checks"] if not c["passed"]]
    assert failed and all(set(c) == {"name", "passed"} for c in info["verification"]["checks"])
    assert env.verdict is not None
    full = [c for c in env.verdict.checks if not c.passed]
    assert [c.name for c in full] == [c["name"] for c in failed]
    assert all(c.expected is not None and c.observed is not None for c in full)


def test_no_step_info_reveals_an_expected_value(env: Environment) -> None:
    """Whatever an agent answers, the info it could be shown holds none of the gold: not the answer,
    not the rows or values the task expects to change."""
    import json

    for task in env.tasks:
        secrets = {json.dumps(task.answer)} if task.answer is not None else set()
        for change in task.verifier.changes:
            secrets |= {json.dumps(v) for v in change.key.values() if isinstance(v, str) and len(v) > 3}
        for answer in (None, "wrong", task.answer):
            _, info = env.reset(task_id=task.id)
            assert "knobs" in info  # in process the trainer sees the knobs ...
            _, _, _, _, step_info = env.step({"answer": answer})
            shown = json.dumps(step_info)
            assert step_info["verification"]["status"] in ("passed", "failed")
            for secret in secrets:
                assert secret not in shown, (task.id, secret)


def test_refusal_tasks_need_an_explicit_refusal(env: Environment) -> None:
    task = next(t for t in env.tasks if t.family == "infeasible")
    env.reset(task_id=task.id)
    assert env.step({"answer": None})[1] == 0.0
    env.reset(task_id=task.id)
    assert env.step({"answer": task.answer})[1] == 1.0
