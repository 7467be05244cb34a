"""What every trainer adapter shares: open a bundle by path or name, play one episode, keep its verdict.

The adapters are built on the public episode contract alone (``reset`` / ``step`` /
``close`` / ``tool_specs``), so they work the same over a tool-use ``Environment`` and a
single-turn ``ProceduralEnvironment``. What the model reads (system text, tools,
observations, answers) comes from :mod:`pipeline.surface`; the names it used to define
here are re-exported for the adapters that import them.

:class:`Episode` is the one place an adapter's reward comes from. The first final verdict
stands: once the episode has ended, a further tool call or answer returns
:data:`EPISODE_OVER_TEXT` and changes nothing (a pass never becomes a failure, a masked
error never becomes a trained-on 0). A verdict on another task than the one the adapter
assigned is masked (``error``), never scored. Nothing here reads a task's expected answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, cast

from pipeline.bundle.manifest import ProceduralManifest
from pipeline.runtime.wire import Action, Observation, ResetInfo, StepInfo, VerdictStatus
from pipeline.runtime.wrappers import EpisodeEnv, StepLimit
from pipeline.surface import (
    ANSWER_TOOL,
    EPISODE_OVER_TEXT,
    Surface,
    answer_schema,
    decode_answer,
    dumps,
    surface_of,
)
from pipeline.surface import (
    answer_tool as answer_tool_spec,
)
from pipeline.surface import (
    render_observation as _render,
)

Status = VerdictStatus
STATUSES: tuple[Status, ...] = ("passed", "failed", "error")
CONTROL_TOOLS = frozenset({"reset", "synthenv_reset", "synthenv_answer", "synthenv_verify", "get_reward"})
"""Episode-control names an agent is never offered as tools (a reset would let it swap its task)."""

__all__ = [
    "ANSWER_TOOL",
    "CONTROL_TOOLS",
    "EPISODE_OVER_TEXT",
    "STATUSES",
    "Episode",
    "EpisodeEnv",
    "Status",
    "StepLimit",
    "action_from_call",
    "agent_info",
    "answer_schema",
    "answer_tool_spec",
    "decode_answer",
    "dumps",
    "is_procedural",
    "open_env",
    "render_observation",
    "status_of",
    "surface_of",
    "system_prompt",
    "task_ids",
    "tool_specs",
    "verdict_status",
]


def resolve(ref: str | Path, registry: str | None = None) -> Path:
    """A bundle directory, or a bundle ref as ``synthenv pull`` takes it (``name``, ``name@latest``,
    ``name@1.2.0``, ``name@sha256:…``) pulled from ``registry`` (``artifacts/`` by default)."""
    path = Path(ref)
    if path.exists() or (registry is None and ("/" in str(ref) or str(ref).startswith("."))):
        return path
    from pipeline.registry.registry import pull

    return Path(pull(str(ref), registry=registry or "artifacts"))


def open_env(path: str | Path, registry: str | None = None) -> Any:
    """A digest-checked bundle (a directory or a registry ref) as the environment its kind calls for."""
    from pipeline.bundle.format import load_bundle

    bundle = load_bundle(resolve(path, registry))
    if bundle.manifest.kind == "procedural":
        from pipeline.runtime.procedural import ProceduralEnvironment

        return ProceduralEnvironment(bundle)
    from pipeline.runtime.environment import Environment

    return Environment(bundle)


def is_procedural(env: Any) -> bool:
    return isinstance(getattr(getattr(env, "bundle", None), "manifest", None), ProceduralManifest)


def tool_specs(env: Any) -> list[dict[str, Any]]:
    """The bundle's tools as served (``{name, description, parameters}``; none for a procedural bundle)."""
    specs = getattr(env, "tool_specs", None)
    return list(specs()) if callable(specs) else []


def task_ids(env: Any) -> list[str]:
    return [str(t.id if hasattr(t, "id") else t["id"]) for t in env.tasks]


def verdict_status(reward: float, info: StepInfo, assigned: str | None = None) -> Status:
    """The verdict of a final step: the verifier's own status when it gives one, else from the reward.

    A verdict that names another task than ``assigned`` (or than its own ``assigned_task_id``)
    is ``error``: masked, never scored. Verdicts without task ids are taken as they are.
    """
    verification = info.get("verification")
    if isinstance(verification, dict):
        scored = verification.get("task_id")
        wanted = verification.get("assigned_task_id", assigned)
        if scored is not None and ((wanted is not None and scored != wanted) or (assigned and scored != assigned)):
            return "error"
        status = verification.get("status")
        if status in STATUSES:
            return status
    return "passed" if reward >= 1.0 else "failed"


def status_of(reward: float, info: StepInfo) -> Status:
    """:func:`verdict_status` without an adapter-assigned task (kept for existing callers)."""
    return verdict_status(reward, info)


def agent_info(info: StepInfo) -> StepInfo:
    """The parts of ``info`` an agent may see: step signals, never the verifier's checks."""
    keep: tuple[Literal["step", "call_valid", "call_succeeded", "error"], ...] = (
        "step",
        "call_valid",
        "call_succeeded",
        "error",
    )
    # A cast: mypy types a comprehension as a plain dict; its keys and values are ``info``'s own.
    return cast(StepInfo, {k: info[k] for k in keep if k in info})


def render_observation(obs: Observation) -> str:
    """One observation as the text a model reads next (see :func:`pipeline.surface.render_observation`)."""
    return _render(obs)


def system_prompt(env: Any) -> str:
    """How to act in this bundle (see :mod:`pipeline.surface.text`)."""
    return surface_of(env).system


def action_from_call(name: str, arguments: Any, env: Any = None) -> Action:
    """A model's tool call as an environment action (the answer tool becomes ``{"answer": ...}``);
    with ``env``, folded arguments (``where``, ``fields``) are unfolded as its surface renders them."""
    if env is not None:
        return surface_of(env).action(name, arguments)
    if name == ANSWER_TOOL:
        answer = arguments.get("answer") if isinstance(arguments, dict) else arguments
        return {"answer": decode_answer(answer)}
    return {"tool": name, "arguments": arguments}


class Episode:
    """One adapter-side episode over an environment: what the model reads, and a reward that stands.

    ``reward`` is ``0.0`` until the episode ends, then the first verdict's reward, or ``None``
    (masked) when that verdict is ``error`` (an infrastructure failure or a verdict on another
    task). Calls after the end return :data:`EPISODE_OVER_TEXT` and touch nothing.

    With ``max_steps`` the environment is stepped through a :class:`StepLimit`
    (:mod:`pipeline.runtime.wrappers`): the step that spends the budget without an answer ends
    the episode as ``failed``, reward 0.0; :meth:`idle` counts a turn that reached no step.
    """

    def __init__(self, env: Any, max_steps: int | None = None) -> None:
        self.env = env
        self.surface: Surface = surface_of(env)
        self.limit: StepLimit | None = StepLimit(env, max_steps) if max_steps is not None else None
        self._stepper: EpisodeEnv = self.limit if self.limit is not None else env
        self.task_id: str | None = None
        self.done = False
        self.status: Status | None = None
        self.reward: float | None = 0.0
        self.steps = 0
        """Environment steps taken in this episode (turns counted by :meth:`idle` are not steps)."""
        self.info: StepInfo = {}
        """The trainer-side ``info`` of the last step (never shown to the agent)."""

    def reset(self, task_id: str | None = None, seed: int | None = None) -> tuple[str, ResetInfo]:
        """Start a task; returns the instruction text and the trainer-side ``info``."""
        obs, info = self._stepper.reset(task_id=task_id, seed=seed)
        self.task_id = str(info.get("task_id", task_id)) if info.get("task_id", task_id) is not None else None
        self.done, self.status, self.reward, self.steps = False, None, 0.0, 0
        return str(obs.get("instruction", "")), info

    def call(self, name: str, arguments: Any) -> str:
        """A model's tool call (the answer tool included); returns the observation text."""
        return self.act(self.surface.action(name, arguments))

    def act(self, action: Any) -> str:
        """An environment action; returns the observation text the model reads next."""
        if self.done:
            self.info = {"episode_over": True, "status": self.status}
            return EPISODE_OVER_TEXT
        obs, reward, terminated, truncated, info = self._stepper.step(action)
        self.info = info
        self.steps += 1
        if terminated or truncated:
            self.done = True
            self.status = verdict_status(float(reward), info, self.task_id) if terminated else "failed"
            self.reward = None if self.status == "error" else (float(reward) if terminated else 0.0)
        return self.surface.observe(obs, action)

    def idle(self) -> None:
        """A model turn that became no action (a reply that is not a call): no environment step, but
        it spends one step of the budget; when that was the last one the episode ends as ``failed``
        (no answer), as when a step spends it. Without ``max_steps`` there is no budget to spend."""
        if self.done or self.limit is None:
            return
        if self.limit.idle():
            self.done, self.status, self.reward = True, "failed", 0.0
            self.info = {"truncated_by": self.limit.reason}

    def close(self) -> None:
        self.env.close()
