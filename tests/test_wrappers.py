"""Wrappers around the episode contract: the step limit, forwarding through a stack, the trajectory recorder."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from pipeline.evaluate import trajectory
from pipeline.evaluate.agent import EpisodeStart, Turn, Usage
from pipeline.evaluate.config import EvalConfig
from pipeline.evaluate.episode import run_episode
from pipeline.integrations import episode as adapter_episode
from pipeline.integrations.episode import Episode
from pipeline.integrations.trajectory import RecordTrajectory, TrajectoryWriter
from pipeline.runtime.environment import Environment
from pipeline.runtime.task import Task
from pipeline.runtime.wrappers import STEP_LIMIT, StepLimit, Wrapper


class Counting(Wrapper):
    """Counts the calls that reach the environment below it."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.calls: list[tuple[str, Any]] = []

    def reset(self, task_id: str | None = None, seed: int | None = None) -> Any:
        self.calls.append(("reset", (task_id, seed)))
        return super().reset(task_id=task_id, seed=seed)

    def step(self, action: Any) -> Any:
        self.calls.append(("step", action))
        return super().step(action)

    def close(self) -> None:
        self.calls.append(("close", None))
        super().close()


def _task(env: Environment) -> Task:
    """A lookup task with a short reference solution (one or two reads)."""
    return next(t for t in env.tasks if t.family == "lookup" and 1 <= len(t.solution) <= 2)


def _read(task: Task) -> dict[str, Any]:
    """A valid call that does not end the episode: the reference's first call."""
    return task.solution[0].model_dump()


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_step_limit_truncates_at_n_on_a_real_environment(store_bundle: Path) -> None:
    env = Environment.from_bundle(store_bundle)
    bare = Environment.from_bundle(store_bundle)
    counted = Counting(env)
    limited = StepLimit(counted, 3)
    task = _task(env)
    limited.reset(task_id=task.id)
    bare.reset(task_id=task.id)
    got = [limited.step(_read(task)) for _ in range(3)]
    want = [bare.step(_read(task)) for _ in range(3)]
    assert [g[0] for g in got] == [w[0] for w in want]  # the environment's own observations
    assert [(g[2], g[3]) for g in got] == [(False, False), (False, False), (False, True)]
    assert got[2][4]["truncated_by"] == "step limit 3" and "truncated_by" not in got[1][4]
    assert limited.spent and limited.truncated and not env.done
    # Past the limit nothing reaches the environment: an error observation, still truncated.
    obs, reward, terminated, truncated, info = limited.step(_read(task))
    assert obs["error"]["code"] == STEP_LIMIT and (reward, terminated, truncated) == (0.0, False, True)
    assert info["error"] == STEP_LIMIT and [c for c, _ in counted.calls].count("step") == 3
    # The answer counts within the budget and is never truncated; reset starts the count again.
    limited = StepLimit(env, len(task.solution) + 1)
    limited.reset(task_id=task.id)
    for call in task.solution:
        assert limited.step(call.model_dump())[3] is False
    _, reward, terminated, truncated, info = limited.step({"answer": task.answer})
    assert (reward, terminated, truncated) == (1.0, True, False) and "truncated_by" not in info
    assert limited.spent and not limited.truncated
    limited.reset(task_id=task.id)
    assert (limited.steps, limited.truncated) == (0, False)
    with pytest.raises(ValueError, match="max_steps"):
        StepLimit(env, 0)
    env.close()
    bare.close()


def test_idle_turns_spend_the_budget_without_reaching_the_environment(store_bundle: Path) -> None:
    counted = Counting(Environment.from_bundle(store_bundle))
    limited = StepLimit(counted, 3)
    task = _task(counted.unwrapped)
    limited.reset(task_id=task.id)
    assert limited.idle() is False
    assert limited.step(_read(task))[3] is False
    assert limited.idle() is True and limited.truncated and limited.steps == 3
    assert limited.idle() is True and limited.steps == 3  # nothing more to spend
    assert limited.step(_read(task))[0]["error"]["code"] == STEP_LIMIT
    assert [c for c, _ in counted.calls] == ["reset", "step"]
    limited.close()


def test_a_wrapper_stack_forwards_reset_step_close_and_attributes(store_bundle: Path, tmp_path: Path) -> None:
    env = Environment.from_bundle(store_bundle)
    spy = Counting(env)
    writer = TrajectoryWriter(tmp_path / "t.jsonl")
    stack = Wrapper(StepLimit(RecordTrajectory(spy, writer), 5))
    task = _task(env)
    # Attributes the wrappers lack come from the environment at the bottom.
    assert stack.unwrapped is env and stack.bundle is env.bundle and stack.tasks is env.tasks
    assert stack.tool_specs() == env.tool_specs() and stack.max_steps == 5
    with pytest.raises(AttributeError):
        _ = stack.no_such_attribute
    obs, info = stack.reset(task_id=task.id, seed=3)
    assert info["task_id"] == task.id and obs["instruction"] == task.instruction
    stepped = stack.step(_read(task))
    assert stepped[0]["type"] == "tool_result" and env.task is task
    stack.close()
    writer.close()
    assert spy.calls == [("reset", (task.id, 3)), ("step", _read(task)), ("close", None)]
    assert env.step(_read(task))[0]["error"]["code"] == "invalid_state"  # closed: no session left
    # A copy (or an unpickled one) never recurses looking for its environment.
    assert copy.copy(stack).env is stack.env
    assert adapter_episode.StepLimit is StepLimit  # the adapters' name is this one


def test_the_recorder_records_what_was_stepped(store_bundle: Path, tmp_path: Path) -> None:
    env = Environment.from_bundle(store_bundle)
    task = _task(env)
    log = tmp_path / "t.jsonl"
    writer = TrajectoryWriter(log)
    # The limit outside the log: the log holds what the environment answered; refused steps are not
    # rows; the run-out budget is one cut row after the last step, and nothing after it is logged.
    recorded = RecordTrajectory(env, writer, model="m", rollout_id="r")
    limited = StepLimit(recorded, 2)
    limited.reset(task_id=task.id)
    answers = [limited.step(a) for a in (_read(task), {"tool": "no_such_tool", "arguments": {}})]
    limited.step(_read(task))
    recorded.cut("failed", "no answer within 2 steps")
    recorded.step(_read(task))
    # The limit inside the log: the log sees the truncation and ends the episode there.
    inner = RecordTrajectory(StepLimit(env, 1), writer)
    inner.reset(task_id=task.id)
    inner.step(_read(task))
    writer.close()
    rows = _rows(log)
    assert [(r["step"], r["action"]) for r in rows[:3]] == [
        (0, None),
        (1, _read(task)),
        (2, {"tool": "no_such_tool", "arguments": {}}),
    ]
    assert [r["observation"] for r in rows[1:3]] == [a[0] for a in answers]
    assert all(r["truncated"] is False and r["status"] is None for r in rows[:3])
    cut = rows[3]
    assert (cut["step"], cut["status"], cut["truncated"]) == (2, "failed", True)
    assert cut["error"] == "no answer within 2 steps"
    assert (cut["model"], cut["rollout_id"], cut["episode"]) == ("m", "r", rows[0]["episode"])
    assert len(rows) == 6 and rows[4]["episode"] != rows[0]["episode"]
    assert (rows[5]["truncated"], rows[5]["status"], rows[5]["terminated"]) == (True, "failed", False)
    with pytest.raises(ValueError, match="cut episode"):
        recorded.cut("passed", "not a cut")
    env.close()


def test_an_adapter_episode_spends_its_budget_on_idle_turns(store_bundle: Path) -> None:
    env = Environment.from_bundle(store_bundle)
    task = _task(env)
    episode = Episode(env, max_steps=2)
    episode.reset(task_id=task.id)
    episode.idle()
    assert not episode.done
    episode.act(_read(task))
    assert (episode.done, episode.status, episode.reward, episode.steps) == (True, "failed", 0.0, 1)
    episode.reset(task_id=task.id)
    episode.idle()
    episode.idle()
    assert (episode.done, episode.status, episode.reward, episode.steps) == (True, "failed", 0.0, 0)
    unlimited = Episode(env)
    unlimited.reset(task_id=task.id)
    unlimited.idle()
    assert not unlimited.done
    with pytest.raises(ValueError, match="max_steps"):
        Episode(env, max_steps=0)
    env.close()


class Nudged:
    """Never calls a tool: every turn is a nudge that costs a step."""

    name = "nudged"
    needs_reference = False

    def agent(self, start: EpisodeStart) -> Any:
        class A:
            usage = Usage()

            def act(self, feedback: list[tuple[str, str]]) -> Turn:
                return Turn(text="thinking")

        return A()


def test_evaluate_counts_turns_without_calls_against_the_budget(store_bundle: Path, tmp_path: Path) -> None:
    env = Environment.from_bundle(store_bundle)
    writer = trajectory.open_log(tmp_path / "t.jsonl")
    result = run_episode(env, writer, Nudged(), EvalConfig(max_steps=3), _task(env).id, 0)
    writer.close()
    assert (result.status, result.end, result.steps, result.tool_calls) == ("failed", "max_steps", 3, 0)
    rows = _rows(tmp_path / "t.jsonl")
    assert len(rows) == 2 and rows[1]["error"] == "no answer within 3 steps" and rows[1]["truncated"] is True
