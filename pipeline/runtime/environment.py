"""The Gymnasium-shaped contract a trainer uses: ``reset``, ``step``, ``close``.

An action is ``{"tool": name, "arguments": {...}}`` or ``{"answer": value}``. Bad
actions never raise: they come back as an observation with a precise error, cost a step
and leave the session's state untouched. Step budgets, logging and reward shaping are
wrappers around this class, not features of it.

Reward is the outcome: 1.0 or 0.0 from the task's verifier on the final answer, 0.0 on
every other step. Each step's ``info["components"]`` records the step signals (call
syntax valid, execution succeeded; and the outcome on the final step) and
``reward_weights`` (from the manifest) says how a shaping wrapper may combine them.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from pipeline.bundle import Bundle, load_bundle
from pipeline.runtime.executor import Executor, ToolError
from pipeline.runtime.session import Session
from pipeline.schema import Schema
from pipeline.tasks import Task
from pipeline.tools import Toolset

Observation = dict[str, Any]
Info = dict[str, Any]
_ANSWER_TYPES = (str, int, float, list, type(None))


def _error(code: str, message: str) -> Observation:
    return {"type": "error", "error": {"code": code, "message": message}}


class Environment:
    """One episode at a time over a bundle; create several for parallel episodes."""

    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        self.schema = Schema.model_validate(bundle.read_json("schema.json"))
        self.toolset = Toolset.model_validate(bundle.read_json("tools.json"))
        self.tasks = [Task.model_validate(t) for t in bundle.read_jsonl("tasks.jsonl")]
        self._by_id = {t.id: t for t in self.tasks}
        self.executor = Executor(self.schema, self.toolset, str(bundle.manifest["frozen_clock"]))
        self._initial = bundle.state_bytes
        self._session: Session | None = None
        self._task: Task | None = None
        self._done = False
        self._steps = 0
        self._rng = random.Random(0)
        self.reward_weights: dict[str, float] = dict(bundle.manifest.get("reward_weights") or {"outcome": 1.0})

    @classmethod
    def from_bundle(cls, path: str | Path) -> Environment:
        """Load and digest-check a bundle directory (refuses a modified one)."""
        return cls(load_bundle(path))

    @property
    def task(self) -> Task | None:
        return self._task

    def tool_specs(self) -> list[dict[str, Any]]:
        return [{"name": t.name, "description": t.description, "parameters": t.parameters} for t in self.toolset.tools]

    def reset(self, task_id: str | None = None, seed: int | None = None) -> tuple[Observation, Info]:
        if not self.tasks:
            raise ValueError(f"bundle {self.bundle.ref} has no tasks")
        if task_id is not None and task_id not in self._by_id:
            raise ValueError(f"unknown task_id {task_id!r}; the bundle has {len(self.tasks)} tasks, e.g. {self.tasks[0].id!r}")
        if seed is not None:
            self._rng = random.Random(seed)
        self._task = self._by_id[task_id] if task_id is not None else self._rng.choice(self.tasks)
        if self._session is not None:
            self._session.close()
        self._session = Session(self._initial, self.executor)
        self._done = False
        self._steps = 0
        obs = {"type": "task", "instruction": self._task.instruction, "tools": [t.name for t in self.toolset.tools]}
        info = {"task_id": self._task.id, "family": self._task.family, "level": self._task.level,
                "knobs": self._task.knobs, "bundle": self.bundle.ref, "digest": self.bundle.digest,
                "reward_weights": self.reward_weights}
        return obs, info

    def step(self, action: Any) -> tuple[Observation, float, bool, bool, Info]:
        session, task = self._session, self._task
        if session is None or task is None:
            return _error("invalid_state", "call reset() before step()"), 0.0, False, False, {"call_valid": False}
        if self._done:
            return _error("invalid_state", "the episode has ended; call reset()"), 0.0, True, False, {"call_valid": False}
        self._steps += 1
        info: Info = {"step": self._steps, "call_valid": False, "call_succeeded": False}
        result = self._dispatch(session, task, action, info)
        info["components"] = {"call_valid": float(info["call_valid"]),
                              "call_succeeded": float(info["call_succeeded"])}
        if "verification" in info:
            info["components"]["outcome"] = result[1]
        return result

    def _dispatch(self, session: Session, task: Task, action: Any,
                  info: Info) -> tuple[Observation, float, bool, bool, Info]:
        if not isinstance(action, dict):
            return _error("invalid_action", f"an action must be an object, got {type(action).__name__}"), 0.0, False, False, info
        keys = set(action)
        if keys == {"answer"}:
            return self._answer(session, task, action["answer"], info)
        if "tool" in keys and keys <= {"tool", "arguments"}:
            return self._call(session, action["tool"], action.get("arguments", {}), info)
        return (_error("invalid_action", "an action is {'tool': name, 'arguments': {...}} or {'answer': value}; "
                       f"got keys {sorted(map(str, keys))}"), 0.0, False, False, info)

    def _call(self, session: Session, tool: Any, arguments: Any, info: Info) -> tuple[Observation, float, bool, bool, Info]:
        if not isinstance(tool, str):
            return _error("invalid_action", "'tool' must be a tool name (string)"), 0.0, False, False, info
        try:
            self.executor.validate(tool, arguments)
            info["call_valid"] = True
            result = session.call(tool, arguments)
        except ToolError as exc:
            info["error"] = exc.code
            return {"type": "tool_error", "tool": tool, "error": exc.as_dict()}, 0.0, False, False, info
        info["call_succeeded"] = True
        return {"type": "tool_result", "tool": tool, "result": result}, 0.0, False, False, info

    def _answer(self, session: Session, task: Task, answer: Any, info: Info) -> tuple[Observation, float, bool, bool, Info]:
        if not isinstance(answer, _ANSWER_TYPES) or isinstance(answer, bool):
            return (_error("invalid_action", "an answer must be a string, a number, a list or null; "
                           f"got {type(answer).__name__}"), 0.0, False, False, info)
        verdict = session.verify(task.verifier, answer)
        self._done = True
        info["call_valid"] = True
        info["call_succeeded"] = True
        info["verification"] = verdict.model_dump(mode="json")
        return {"type": "done", "reward": verdict.reward}, verdict.reward, True, False, info

    def verify(self, answer: Any = None) -> dict[str, Any]:
        """Score the current state (and an answer) without ending the episode."""
        if self._session is None or self._task is None:
            raise ValueError("call reset() before verify()")
        return self._session.verify(self._task.verifier, answer).model_dump(mode="json")

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None
