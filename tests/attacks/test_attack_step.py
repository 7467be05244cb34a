"""Hostile actions in process: ``Environment.step`` answers with a typed error and keeps the episode."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.runtime.environment import Environment


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


HOSTILE: dict[str, Any] = {
    "infinity": float("inf"),
    "minus-infinity": -math.inf,
    "nan": float("nan"),
    "lone-surrogate": "\ud800",
    "surrogate-in-list": ["ok", "\udfff"],
    "nested-500": _nested(500),
    "nested-dict-500": json.loads('{"a":' * 500 + "1" + "}" * 500),
    "int-400-digits": 10**399,
    "negative-int-400-digits": -(10**399),
    "non-string-key": {1: "x"},
    "bytes": b"raw",
    "object": object(),
}


@pytest.fixture(scope="module")
def env(store_bundle: Path) -> Environment:
    return Environment.from_bundle(store_bundle)


def _number_task(env: Environment) -> Any:
    """A task whose answer is a number: the kind a huge integer used to crash."""
    return next(t for t in env.tasks if t.verifier.answer is not None and t.verifier.answer.kind == "number")


def _finish(env: Environment, task: Any) -> float:
    for call in task.solution:
        env.step({"tool": call.tool, "arguments": dict(call.arguments)})
    _, reward, terminated, _, _ = env.step({"answer": task.answer})
    assert terminated
    return reward


def _assert_typed_error(obs: dict[str, Any], terminated: bool) -> None:
    assert obs["type"] in ("error", "tool_error"), obs
    error = obs["error"]
    assert error["code"] in ("invalid_action", "invalid_argument") and error["message"]
    assert not terminated
    json.dumps(obs, allow_nan=False)  # the observation itself is plain JSON


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_hostile_answer_is_a_typed_error_and_the_episode_goes_on(env: Environment, kind: str) -> None:
    task = _number_task(env)
    env.reset(task_id=task.id)
    obs, reward, terminated, truncated, _ = env.step({"answer": HOSTILE[kind]})
    _assert_typed_error(obs, terminated)
    assert reward == 0.0 and not truncated
    assert _finish(env, task) == 1.0


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_hostile_tool_argument_is_a_typed_error_and_writes_nothing(env: Environment, kind: str) -> None:
    env.reset(task_id=env.tasks[0].id)
    before = env.step({"tool": "get_order", "arguments": {"id": 1}})[0]["result"]
    # ``total`` has a minimum and no maximum: the schema alone lets infinity through.
    for field in ("total", "order_number", "customer_id"):
        obs, _, terminated, _, _ = env.step({"tool": "update_order", "arguments": {"id": 1, field: HOSTILE[kind]}})
        _assert_typed_error(obs, terminated)
    after = env.step({"tool": "get_order", "arguments": {"id": 1}})[0]
    assert after["type"] == "tool_result" and after["result"] == before
    json.dumps(after, allow_nan=False)


@pytest.mark.parametrize("kind", ["infinity", "lone-surrogate", "nested-500", "int-400-digits"])
def test_a_hostile_value_anywhere_in_the_action_is_refused(env: Environment, kind: str) -> None:
    env.reset(task_id=env.tasks[0].id)
    for action in ({"tool": HOSTILE[kind]}, {"answer": 1, "extra": HOSTILE[kind]}, HOSTILE[kind]):
        obs, _, terminated, _, _ = env.step(action)
        assert obs["type"] == "error" and not terminated


def test_verify_refuses_a_hostile_answer_without_raising(env: Environment) -> None:
    task = _number_task(env)
    env.reset(task_id=task.id)
    for value in HOSTILE.values():
        with pytest.raises(ValueError):
            env.verify(value)
    assert _finish(env, task) == 1.0


JSON_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**500), max_value=10**500)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    | st.sampled_from(["\ud800", "a\udfffb", "\x00", "\u202e"])
)
TOOLS = ["get_order", "update_order", "list_orders", "aggregate"]
ANY_JSON = st.recursive(
    JSON_LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(
    action=st.one_of(
        ANY_JSON,
        st.fixed_dictionaries({"answer": ANY_JSON}),
        st.fixed_dictionaries({"tool": st.sampled_from(TOOLS), "arguments": ANY_JSON}),
    )
)
def test_step_never_raises_and_never_ends_on_a_bad_action(store_bundle: Path, action: Any) -> None:
    env = _shared(store_bundle)
    task = _number_task(env)
    env.reset(task_id=task.id)
    obs, reward, terminated, _, info = env.step(action)
    json.dumps([obs, reward, info], allow_nan=False)
    if obs["type"] in ("error", "tool_error"):
        assert not terminated
        assert _finish(env, task) == 1.0


_ENVS: dict[Path, Environment] = {}


def _shared(path: Path) -> Environment:
    if path not in _ENVS:
        _ENVS[path] = Environment.from_bundle(path)
    return _ENVS[path]
