"""The Gymnasium-shaped contract a trainer uses: ``reset``, ``step``, ``close``.

An action is ``{"tool": name, "arguments": {...}}`` or ``{"answer": value}``; the action,
the observations and the infos are declared once, field by field, in
:mod:`pipeline.runtime.wire`. Bad actions never raise: they come back as an observation
with a precise error, cost a step and leave the session's state untouched. Step budgets,
logging and reward shaping are wrappers around this class, not features of it.

Reward is the outcome: 1.0 or 0.0 from the task's verifier on the final answer, 0.0 on
every other step. Each step's ``info["components"]`` records the step signals (call
syntax valid, execution succeeded; and the outcome on the final step) and
``reward_weights`` (from the manifest) says how a shaping wrapper may combine them.

The final step's ``info["verification"]`` is safe to show an agent: ``status``
(``passed``, ``failed``, or ``error`` when the verification could not run: then the
reward is 0.0 and the episode should be masked, not learned from), the reward, and each
check's name and pass/fail, never an expected value. The trainer's view, with what each
check expected and observed, is :attr:`Environment.verdict` (the last final verdict) and
:meth:`Environment.verify` (the current state, without ending the episode); both stay in
process (over HTTP only behind the trainer credential, see :mod:`pipeline.server.trainer`).

Every verdict names the task it scored (``task_id``) and the task ``reset`` assigned
(``assigned_task_id``); one whose two differ is an ``error``, never a pass. The first final
verdict stands: after it, every action of that episode (tool call, answer, anything) is an
``episode_over`` error observation that changes nothing, with reward 0.0 and no
``verification`` key, so it cannot be mistaken for a second verdict; only ``reset`` (the
trainer's call) starts another episode.
"""

from __future__ import annotations

import random
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from pipeline.bundle.format import Bundle, BundleError, load_bundle
from pipeline.runtime.answers import as_report
from pipeline.runtime.session import Session
from pipeline.runtime.task import Task
from pipeline.runtime.verify import Verdict, for_task
from pipeline.runtime.wire import (
    ErrorDetail,
    ErrorObservation,
    PublicVerdict,
    ResetInfo,
    Step,
    StepInfo,
    TaskObservation,
)
from pipeline.tools.executor import Executor, ToolError, open_reading
from pipeline.tools.jsonvalues import check_json, json_problem
from pipeline.tools.specs import Toolset
from pipeline.world.ddl import undeclared_objects, unreadable_values
from pipeline.world.schema import Schema

_ANSWER_TYPES = (str, int, float, list, dict, type(None))
"""What an answer may be: a dict only as a refusal object (``{"cannot": ...}``) or a report
(``{"total": ..., "refused": [...]}``), sent as an object."""


def _error(code: str, message: str) -> ErrorObservation:
    return {"type": "error", "error": {"code": code, "message": message}}


EPISODE_OVER = "episode_over"
EPISODE_OVER_MESSAGE = (
    "the episode is over: its final answer was scored and that verdict stands; "
    "nothing more happens in this episode until the trainer starts the next one"
)


def episode_over() -> tuple[ErrorObservation, float, bool, bool, StepInfo]:
    """The step after the final answer: an error that changes nothing and carries no verdict."""
    info: StepInfo = {"call_valid": False, "call_succeeded": False, "error": EPISODE_OVER}
    return _error(EPISODE_OVER, EPISODE_OVER_MESSAGE), 0.0, True, False, info


def _refused(action: Any, problem: str, info: StepInfo) -> Step:
    """The observation for an action that is not plain JSON: a tool error when only its arguments are at fault."""
    tool = action.get("tool") if isinstance(action, dict) else None
    if isinstance(tool, str) and problem.startswith("action['arguments']"):
        info["error"] = "invalid_argument"
        error: ErrorDetail = {"code": "invalid_argument", "message": f"{tool}: {problem}"}
        return {"type": "tool_error", "tool": tool, "error": error}, 0.0, False, False, info
    return _error("invalid_action", problem), 0.0, False, False, info


def _check_state_objects(bundle: Bundle, schema: Schema, state: bytes) -> None:
    """Refuse a state holding schema objects (triggers, views, tables, indexes) schema.json does not
    declare, or values it does not allow (see :func:`unreadable_values`)."""
    conn = open_reading(state)
    try:
        problems = undeclared_objects(schema, conn) or unreadable_values(schema, conn)
    finally:
        conn.close()
    if problems:
        raise BundleError(f"{bundle.path}: state.sqlite does not match schema.json: " + "; ".join(problems[:5]))


@dataclass(frozen=True, eq=False)
class _Parsed:
    """What every Environment of one bundle shares: parsed records, the executor, the initial state."""

    schema: Schema
    toolset: Toolset
    tasks: list[Task]
    by_id: dict[str, Task]
    executor: Executor
    initial: bytes


_PARSED: weakref.WeakValueDictionary[tuple[str, str], _Parsed] = weakref.WeakValueDictionary()
_PARSED_LOCK = threading.Lock()


def _parsed(bundle: Bundle) -> _Parsed:
    """Parse ``bundle`` once per process while any Environment of it lives (keyed by path and digest).

    Building the executor (a compiled validator per tool) and checking the state cost tens of
    milliseconds and a copy of the state; a thousand Environments of one bundle pay that once.
    """
    key = (str(bundle.path.resolve()), bundle.digest)
    with _PARSED_LOCK:
        hit = _PARSED.get(key)
        if hit is not None:
            return hit
        schema = Schema.model_validate(bundle.read_json("schema.json"))
        toolset = Toolset.model_validate(bundle.read_json("tools.json"))
        tasks = [Task.model_validate(t) for t in bundle.read_jsonl("tasks.jsonl")]
        executor = Executor(schema, toolset, str(bundle.manifest.frozen_clock))
        initial = bundle.state_bytes
        _check_state_objects(bundle, schema, initial)
        parsed = _Parsed(schema, toolset, tasks, {t.id: t for t in tasks}, executor, initial)
        _PARSED[key] = parsed
        return parsed


class Environment:
    """One episode at a time over a bundle; create several for parallel episodes.

    Environments of one bundle share its parsed records, executor and initial state
    (see :func:`_parsed`), and each episode runs in a shared session
    (:mod:`pipeline.runtime.session`): building one costs microseconds, ``reset`` a rollback.
    """

    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        parsed = _parsed(bundle)
        self._parsed = parsed  # keeps the shared parts alive as long as this Environment
        self.schema = parsed.schema
        self.toolset = parsed.toolset
        self.tasks = parsed.tasks
        self._by_id = parsed.by_id
        self.executor = parsed.executor
        self._initial = parsed.initial
        self._session: Session | None = None
        self._task: Task | None = None
        self._done = False
        self._steps = 0
        self._rng = random.Random(0)
        self.verdict: Verdict | None = None
        """The episode's final verdict with expected and observed values (trainer-side only)."""
        self.assigned_task_id: str | None = None
        """The task the last ``reset`` assigned; every verdict is checked against it."""
        self.reward_weights: dict[str, float] = dict(bundle.manifest.as_tool_use().reward_weights or {"outcome": 1.0})

    def __copy__(self) -> Environment:
        """A fork: the same shared parts, no episode (its first ``reset`` opens its own session).

        Sharing the session would let one fork's writes and resets reach the other's episode.
        """
        fork = self.__class__.__new__(self.__class__)
        fork.__dict__.update(self.__dict__)
        fork._session, fork._task, fork.verdict, fork.assigned_task_id = None, None, None, None
        fork._done, fork._steps = False, 0
        fork._rng = random.Random(0)
        return fork

    @classmethod
    def from_bundle(cls, path: str | Path) -> Environment:
        """Load and digest-check a bundle directory (refuses a modified one)."""
        return cls(load_bundle(path))

    @property
    def task(self) -> Task | None:
        return self._task

    @property
    def done(self) -> bool:
        """Whether the current episode has ended (a final answer was given)."""
        return self._done

    def tool_specs(self) -> list[dict[str, Any]]:
        return [{"name": t.name, "description": t.description, "parameters": t.parameters} for t in self.toolset.tools]

    def reset(self, task_id: str | None = None, seed: int | None = None) -> tuple[TaskObservation, ResetInfo]:
        if not self.tasks:
            raise ValueError(f"bundle {self.bundle.ref} has no tasks")
        if task_id is not None and task_id not in self._by_id:
            raise ValueError(
                f"unknown task_id {task_id!r}; the bundle has {len(self.tasks)} tasks, e.g. {self.tasks[0].id!r}"
            )
        if seed is not None:
            self._rng = random.Random(seed)
        self._task = self._by_id[task_id] if task_id is not None else self._rng.choice(self.tasks)
        if self._session is None:
            self._session = Session(self._initial, self.executor, shared=True)
        else:
            self._session.reset()
        self.verdict = None
        self.assigned_task_id = self._task.id
        self._done = False
        self._steps = 0
        obs: TaskObservation = {
            "type": "task",
            "instruction": self._task.instruction,
            "tools": [t.name for t in self.toolset.tools],
        }
        policy = self.bundle.manifest.as_tool_use().policy
        if policy:
            obs["policy"] = policy  # the world's rules the request is judged against (every adapter's system text)
        info: ResetInfo = {
            "task_id": self._task.id,
            "family": self._task.family,
            "level": self._task.level,
            # Trainer-only: knobs can reveal the answer (which branch a conditional takes, what blocks
            # an infeasible request). Agent-facing adapters pass on only the step signals
            # (pipeline.integrations.episode.agent_info).
            "knobs": self._task.knobs,
            "bundle": self.bundle.ref,
            "digest": self.bundle.digest,
            "reward_weights": self.reward_weights,
        }
        return obs, info

    def step(self, action: Any) -> Step:
        """One action (any value: a well-formed one is a :data:`~pipeline.runtime.wire.Action`)."""
        session, task = self._session, self._task
        if session is None or task is None:
            return _error("invalid_state", "call reset() before step()"), 0.0, False, False, {"call_valid": False}
        if self._done:
            return episode_over()
        self._steps += 1
        info: StepInfo = {"step": self._steps, "call_valid": False, "call_succeeded": False}
        # Refused at the boundary: values no tool, verifier or encoder can take (infinity, lone
        # surrogates, 64-bit overflow, extreme nesting) never reach the session.
        problem = json_problem(action, "action")
        result = self._dispatch(session, task, action, info) if problem is None else _refused(action, problem, info)
        info["components"] = {"call_valid": float(info["call_valid"]), "call_succeeded": float(info["call_succeeded"])}
        if "verification" in info:
            info["components"]["outcome"] = result[1]
        return result

    def _dispatch(self, session: Session, task: Task, action: Any, info: StepInfo) -> Step:
        if not isinstance(action, dict):
            return (
                _error("invalid_action", f"an action must be an object, got {type(action).__name__}"),
                0.0,
                False,
                False,
                info,
            )
        keys = set(action)
        if keys == {"answer"}:
            return self._answer(session, task, action["answer"], info)
        if "tool" in keys and keys <= {"tool", "arguments"}:
            return self._call(session, action["tool"], action.get("arguments", {}), info)
        return (
            _error(
                "invalid_action",
                "an action is {'tool': name, 'arguments': {...}} or {'answer': value}; "
                f"got keys {sorted(map(str, keys))}",
            ),
            0.0,
            False,
            False,
            info,
        )

    def _call(self, session: Session, tool: Any, arguments: Any, info: StepInfo) -> Step:
        if not isinstance(tool, str):
            return _error("invalid_action", "'tool' must be a tool name (string)"), 0.0, False, False, info
        try:
            # Validated once; ``step`` has already checked the whole action is plain JSON.
            spec = self.executor.validate(tool, arguments, plain_json=True)
            info["call_valid"] = True
            result = session.run(spec, arguments)
        except ToolError as exc:
            info["error"] = exc.code
            # A cast: ``ToolError.as_dict()`` (pipeline/tools/errors.py) is typed ``dict[str, str]``; it is
            # ``{"code", "message"}``, an ErrorDetail.
            error = cast(ErrorDetail, exc.as_dict())
            return {"type": "tool_error", "tool": tool, "error": error}, 0.0, False, False, info
        info["call_succeeded"] = True
        return {"type": "tool_result", "tool": tool, "result": result}, 0.0, False, False, info

    def _answer(self, session: Session, task: Task, answer: Any, info: StepInfo) -> Step:
        if (
            not isinstance(answer, _ANSWER_TYPES)
            or isinstance(answer, bool)
            or (isinstance(answer, dict) and "cannot" not in answer and as_report(answer) is None)
        ):
            return (
                _error(
                    "invalid_action",
                    "an answer must be a string, a number, a list, a refusal or report object or null; got "
                    f"{type(answer).__name__}",
                ),
                0.0,
                False,
                False,
                info,
            )
        verdict = for_task(session.verify(task.verifier, answer), task.id, self.assigned_task_id)
        self.verdict = verdict
        self._done = True
        info["call_valid"] = True
        info["call_succeeded"] = True
        # A cast: ``public()`` keeps its plain-dict return type for pipeline/harbor/verify.py, which extends
        # it with plain dicts; it builds a PublicVerdict key for key (tests/test_wire_types.py checks the keys).
        info["verification"] = cast(PublicVerdict, verdict.public())
        return {"type": "done", "reward": verdict.reward}, verdict.reward, True, False, info

    def verify(self, answer: Any = None) -> dict[str, Any]:
        """Trainer-side: score the current state (and an answer) without ending the episode.

        The result holds every check's expected and observed values: never hand it (or
        this method, as a tool) to the agent being trained.
        """
        if self._session is None or self._task is None:
            raise ValueError("call reset() before verify()")
        check_json(answer, "answer")
        verdict = self._session.verify(self._task.verifier, answer)
        return for_task(verdict, self._task.id, self.assigned_task_id).full()

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None
