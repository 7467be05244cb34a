"""The declared records of :mod:`pipeline.runtime.wire` against what the environments return.

Every observation, info and verdict an episode produces (a tool call, a tool error, a refused
action, an answer, a step after the end, a spent step budget, a refused write, a procedural
item, an adapter's episode) is checked key by key and value by value against its TypedDict, and
every key the step and reset infos declare must turn up in one of them: a field added to the
wire without its declaration, or a declaration left behind by a field removed, fails here.
"""

from __future__ import annotations

import copy
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from pipeline.integrations.episode import Episode
from pipeline.runtime import wire
from pipeline.runtime.environment import Environment
from pipeline.runtime.wrappers import StepLimit
from pipeline.server.limits import Budget
from pipeline.server.sessions import SessionManager
from pipeline.surface import ANSWER_TOOL, surface_of

OBSERVATIONS: dict[str, Any] = {get_args(get_type_hints(kind)["type"])[0]: kind for kind in get_args(wire.Observation)}
"""Each observation kind by its ``type`` tag."""


def problems(value: Any, tp: Any, where: str = "value") -> list[str]:
    """How ``value`` departs from the type ``tp`` (TypedDicts checked key by key, recursively)."""
    if tp is Any:
        return []
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, not a {tp.__name__} object"]
        hints = get_type_hints(tp)
        found = [f"{where}: {tp.__name__} lacks required key {k!r}" for k in sorted(tp.__required_keys__ - set(value))]
        found += [f"{where}: key {k!r} is not declared in {tp.__name__}" for k in sorted(set(value) - set(hints))]
        for key in sorted(set(value) & set(hints)):
            found += problems(value[key], hints[key], f"{where}[{key!r}]")
        return found
    origin, args = get_origin(tp), get_args(tp)
    if origin is Literal:
        return [] if value in args else [f"{where}: {value!r} is not one of {args}"]
    if origin in (Union, types.UnionType):
        return [] if any(not problems(value, a, where) for a in args) else [f"{where}: {value!r} is none of {args}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: {type(value).__name__}, not a list"]
        return [p for i, item in enumerate(value) for p in problems(item, args[0], f"{where}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, not an object"]
        found = [f"{where}: key {k!r} is not a {args[0].__name__}" for k in value if not isinstance(k, args[0])]
        return found + [p for k, v in value.items() for p in problems(v, args[1], f"{where}[{k!r}]")]
    if tp is float:  # a float field may hold an int, as typing allows; never a bool
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return [] if ok else [f"{where}: {value!r} is not a number"]
    if tp is type(None):
        return [] if value is None else [f"{where}: {value!r} is not null"]
    if tp is int and isinstance(value, bool):
        return [f"{where}: {value!r} is a bool, not an int"]
    return [] if isinstance(value, tp) else [f"{where}: {type(value).__name__}, not {tp.__name__}"]


class Seen:
    """Checks every reset and step it is handed, and remembers which kinds and info keys turned up."""

    def __init__(self) -> None:
        self.kinds: set[str] = set()
        self.step_keys: set[str] = set()
        self.reset_keys: set[str] = set()

    def observation(self, obs: Any, where: str) -> None:
        kind = obs.get("type") if isinstance(obs, dict) else None
        assert kind in OBSERVATIONS, f"{where}: unknown observation type {kind!r}"
        assert not problems(obs, OBSERVATIONS[kind], where), problems(obs, OBSERVATIONS[kind], where)
        self.kinds.add(kind)

    def reset(self, result: Any, where: str) -> Any:
        obs, info = result
        self.observation(obs, f"{where} observation")
        assert obs["type"] == "task"
        assert not problems(info, wire.ResetInfo, f"{where} info"), problems(info, wire.ResetInfo, f"{where} info")
        self.reset_keys |= set(info)
        return result

    def step(self, result: Any, where: str) -> Any:
        assert isinstance(result, tuple) and len(result) == 5, f"{where}: {result!r}"
        obs, reward, terminated, truncated, info = result
        self.observation(obs, f"{where} observation")
        assert not problems(reward, float, f"{where} reward")
        assert isinstance(terminated, bool) and isinstance(truncated, bool)
        self.info(info, where)
        return result

    def info(self, info: Any, where: str) -> None:
        assert not problems(info, wire.StepInfo, f"{where} info"), problems(info, wire.StepInfo, f"{where} info")
        self.step_keys |= set(info)


def _tool_use_episode(env: Any, seen: Seen, where: str) -> None:
    """A tool call, a tool error, refused actions, the answer and a step after it."""
    task = next(t for t in env.tasks if t.solution)
    seen.reset(env.reset(task_id=task.id), where)
    call = task.solution[0].model_dump()
    assert not problems(call, wire.ToolAction)
    obs = seen.step(env.step(call), f"{where} tool call")[0]
    assert obs["type"] == "tool_result"
    obs = seen.step(env.step({"tool": call["tool"], "arguments": {"no_such_argument": 1}}), f"{where} bad call")[0]
    assert obs["type"] == "tool_error"
    obs = seen.step(env.step({"tool": "no_such_tool"}), f"{where} unknown tool")[0]
    assert obs["type"] == "tool_error"
    for bad in ("not an action", {"tool": 3}, {"answer": True}, {"answer": float("nan")}, {"tool": "x", "y": 1}):
        obs = seen.step(env.step(bad), f"{where} refused {bad!r}")[0]
        assert obs["type"] == "error"
    obs, _, terminated, _, info = seen.step(env.step({"answer": task.answer}), f"{where} answer")
    assert obs["type"] == "done" and terminated and "verification" in info and "components" in info
    assert "outcome" in info["components"] and "checks" in info["verification"]
    obs, _, _, _, info = seen.step(env.step({"answer": task.answer}), f"{where} after the end")
    assert obs["type"] == "error" and obs["error"]["code"] == "episode_over" and "verification" not in info


@pytest.fixture(scope="module")
def procedural(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from pipeline.package.procedural import build_procedural_bundle

    return Path(build_procedural_bundle(["gcd_lcm"], tmp_path_factory.mktemp("proc"), n=4, seed=1).path)


@pytest.fixture(scope="module")
def seen(store_bundle: Path, procedural: Path) -> Iterator[Seen]:
    """Every scenario below, played once; the tests read what it saw."""
    from pipeline.runtime.procedural import ProceduralEnvironment

    seen = Seen()
    env = Environment.from_bundle(store_bundle)
    try:
        seen.step(Environment.from_bundle(store_bundle).step({"answer": 1}), "before reset")
        _tool_use_episode(env, seen, "environment")
        _tool_use_episode(StepLimit(env, 100), seen, "step limit (unspent)")
        limited = StepLimit(env, 1)
        seen.reset(limited.reset(seed=0), "step limit")
        assert seen.step(limited.step({"tool": "no_such_tool"}), "step limit: last step")[3]
        obs = seen.step(limited.step({"answer": None}), "step limit: spent")[0]
        assert obs["type"] == "error" and obs["error"]["code"] == "step_limit"
        write = next(t for t in env.tasks if t.verifier.changes and t.solution)
        budget = Budget(Environment.from_bundle(store_bundle), max_writes=0, max_rows=0)
        seen.reset(budget.reset(task_id=write.id), "budget")
        refused = [seen.step(budget.step(c.model_dump()), "budget")[0] for c in write.solution]
        assert any(o["type"] == "tool_error" and o["error"]["code"] == "limit_exceeded" for o in refused)
        manager = SessionManager(store_bundle, max_sessions=2)
        _sid, obs, info = manager.create(seed=3)
        seen.reset((obs, info), "served session")
        assert "seed" in info
        manager.close_all()

        proc = ProceduralEnvironment.from_bundle(procedural)
        task, other = proc.tasks[0], proc.tasks[1]
        seen.step(ProceduralEnvironment.from_bundle(procedural).step({"answer": "1"}), "procedural before reset")
        seen.reset(proc.reset(task_id=task["id"]), "procedural")
        seen.step(proc.step({"tool": "x"}), "procedural tool call")
        seen.step(proc.step({"answer": True}), "procedural bad answer")
        seen.step(proc.step({"answer": task["answer"]}), "procedural answer")
        seen.step(proc.step({"answer": task["answer"]}), "procedural after the end")
        seen.reset(proc.reset(task_id=task["id"]), "procedural")
        proc._task = other  # a verdict on another task than the one assigned: an error verdict
        info = seen.step(proc.step({"answer": other["answer"]}), "procedural task mismatch")[4]
        assert info["verification"]["status"] == "error" and "error" in info["verification"]

        episode = Episode(copy.copy(env))
        _text, info = episode.reset(seed=1)
        assert not problems(info, wire.ResetInfo)
        episode.act({"answer": "no idea"})
        episode.act({"answer": "again"})
        seen.info(episode.info, "adapter episode after the end")
        assert episode.info.get("episode_over") is True
        short = Episode(copy.copy(env), max_steps=1)
        short.reset(seed=1)
        short.idle()
        seen.info(short.info, "adapter episode out of steps")

        gymnasium = pytest.importorskip("gymnasium")
        del gymnasium
        from pipeline.integrations.gymnasium import BundleGymEnv

        gym = BundleGymEnv(store_bundle)
        gym.reset(seed=0)
        *_, info = gym.step('{"answer": "no idea"}')
        seen.info(info, "gymnasium final step")
        assert "masked" in info
        yield seen
    finally:
        env.close()


def test_every_observation_kind_matches_its_declaration(seen: Seen) -> None:
    assert seen.kinds == set(OBSERVATIONS)


def test_every_declared_info_key_is_one_the_wire_carries(seen: Seen) -> None:
    """No declared key is stale: each turned up in some episode above (and none undeclared did)."""
    assert seen.step_keys == set(get_type_hints(wire.StepInfo))
    assert seen.reset_keys == set(get_type_hints(wire.ResetInfo))


def test_surface_actions_are_declared_actions(store_bundle: Path) -> None:
    env = Environment.from_bundle(store_bundle)
    try:
        surface = surface_of(env)
        answer = surface.action(ANSWER_TOOL, {"answer": "42"})
        assert not problems(answer, wire.AnswerAction) and set(answer) == {"answer"}
        tool = surface.action("get_record", {"table": "orders", "id": 1})
        assert not problems(tool, wire.ToolAction) and set(tool) == {"tool", "arguments"}
        env.reset(seed=0)
        seen = Seen()
        seen.step(env.step(tool), "surface action")
    finally:
        env.close()


def test_the_checker_catches_drift() -> None:
    """The check itself: an undeclared key, a missing one and a wrong value type are each reported."""
    good = {"type": "tool_result", "tool": "get_order", "result": {"id": 1}}
    assert not problems(good, wire.ToolResultObservation)
    assert problems({**good, "extra": 1}, wire.ToolResultObservation)
    assert problems({"type": "tool_result", "tool": "get_order"}, wire.ToolResultObservation)
    assert problems({**good, "tool": 3}, wire.ToolResultObservation)
    assert problems({"call_valid": 1}, wire.StepInfo)
    assert problems({"verification": {"status": "passed", "reward": 1.0, "checks": [{"name": "a"}]}}, wire.StepInfo)
