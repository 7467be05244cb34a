"""Gymnasium-style wrappers around the episode contract: one behaviour each, everything else forwarded.

:class:`~pipeline.runtime.environment.Environment` and
:class:`~pipeline.runtime.procedural.ProceduralEnvironment` stay small on purpose (see
:mod:`pipeline.runtime.environment`): a step budget, a log or reward shaping is a wrapper that
holds the inner environment, as Gymnasium's ``TimeLimit`` and ``RecordEpisodeStatistics`` do,
so every adapter (``evaluate``, TRL, verifiers, Gymnasium, OpenEnv, the server) gets the same
behaviour from the same code instead of re-counting steps in its own loop.

* :class:`Wrapper` forwards ``reset`` / ``step`` / ``close`` and every attribute it does not
  define (``tasks``, ``tool_specs``, ``bundle``, ``verdict``, ...), so wrappers stack in any
  order and an adapter cannot tell a wrapped environment from a bare one.
* :class:`StepLimit` ends an episode as ``truncated`` after ``max_steps`` steps. A turn that
  costs the agent a step without reaching the environment (a reply with no tool call, a reply
  that is not an action) is counted with :meth:`StepLimit.idle`, so "steps" means the same
  thing in every loop that budgets them.

What passes through them (:data:`Observation`, :data:`Step`, the infos) is declared in
:mod:`pipeline.runtime.wire` and re-exported here.

The trajectory log (:class:`pipeline.integrations.trajectory.RecordTrajectory`) is a
:class:`Wrapper` too; it lives with the log's format and writer. This module imports nothing
heavy: adapters that only budget steps do not pay for the runtime's database stack.
"""

from __future__ import annotations

from typing import Any, Protocol

from pipeline.runtime.wire import Observation, ResetInfo, Step, StepInfo, TaskObservation

Info = StepInfo
"""A step's info (kept for callers of this name): :class:`~pipeline.runtime.wire.StepInfo`."""

STEP_LIMIT = "step_limit"
"""The error code of a step taken after a :class:`StepLimit` has ended the episode."""

__all__ = [
    "STEP_LIMIT",
    "EpisodeEnv",
    "Info",
    "Observation",
    "ResetInfo",
    "Step",
    "StepInfo",
    "StepLimit",
    "TaskObservation",
    "Wrapper",
]


class EpisodeEnv(Protocol):
    """The public contract both environment kinds (and every wrapper) implement."""

    @property
    def bundle(self) -> Any: ...

    def reset(self, task_id: str | None = None, seed: int | None = None) -> tuple[TaskObservation, ResetInfo]: ...

    def step(self, action: Any) -> Step: ...

    def close(self) -> None: ...


class Wrapper:
    """Holds an environment and forwards the whole contract to it; subclasses override one behaviour.

    Attribute reads the wrapper does not answer itself go to the wrapped environment, so a
    stack of wrappers reads like the environment at its bottom (:attr:`unwrapped`).
    """

    def __init__(self, env: EpisodeEnv) -> None:
        self.env = env

    def __getattr__(self, name: str) -> Any:
        # Only reached for names the wrapper lacks. ``env`` itself missing (a half-built copy or
        # unpickle) and dunder lookups must fail plainly, not recurse through ``self.env``.
        if name == "env" or (name.startswith("__") and name.endswith("__")):
            raise AttributeError(name)
        return getattr(self.env, name)

    @property
    def bundle(self) -> Any:
        """The bundle of the wrapped environment (declared so a wrapper satisfies :class:`EpisodeEnv`)."""
        return self.env.bundle

    @property
    def unwrapped(self) -> Any:
        """The environment at the bottom of the stack."""
        env: Any = self.env
        while isinstance(env, Wrapper):
            env = env.env
        return env

    def reset(self, task_id: str | None = None, seed: int | None = None) -> tuple[TaskObservation, ResetInfo]:
        return self.env.reset(task_id=task_id, seed=seed)

    def step(self, action: Any) -> Step:
        return self.env.step(action)

    def close(self) -> None:
        self.env.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__}{self.env!r}>"


class StepLimit(Wrapper):
    """Ends an episode as ``truncated`` once ``max_steps`` steps are spent, as Gymnasium's ``TimeLimit``.

    The ``max_steps``-th step that does not end the episode comes back with ``truncated`` set
    and ``info["truncated_by"]`` naming the limit; whoever reads it scores the episode as failed
    (the agent never answered). A step that ends it (the answer) is never truncated, so the
    budget includes the answer. After the limit has ended an episode, further steps never reach
    the environment (a runaway agent cannot keep writing): each is a :data:`STEP_LIMIT` error
    observation, reward 0.0, ``truncated``. ``reset`` starts the count again.
    """

    def __init__(self, env: EpisodeEnv, max_steps: int) -> None:
        if max_steps < 1:
            raise ValueError(f"max_steps must be >= 1, got {max_steps}")
        super().__init__(env)
        self.max_steps = max_steps
        self.steps = 0
        """Steps spent in the current episode: environment steps and :meth:`idle` turns."""
        self.truncated = False
        """Whether this limit has ended the current episode."""

    @property
    def spent(self) -> bool:
        """Whether the budget is used up (the episode may also have ended with its last step)."""
        return self.steps >= self.max_steps

    @property
    def reason(self) -> str:
        return f"step limit {self.max_steps}"

    def reset(self, task_id: str | None = None, seed: int | None = None) -> tuple[TaskObservation, ResetInfo]:
        self.steps, self.truncated = 0, False
        return self.env.reset(task_id=task_id, seed=seed)

    def step(self, action: Any) -> Step:
        if self.truncated:
            return self._refused()
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.steps += 1
        if not terminated and self.spent:
            self.truncated = truncated = True
            info = {**info, "truncated_by": self.reason}
        return obs, reward, terminated, truncated, info

    def idle(self) -> bool:
        """Count a turn that cost the agent a step without an action reaching the environment.

        An agent loop calls this for a reply with no tool call or one that is not an action:
        the environment never sees it, but it spends the budget like a step. Returns whether the
        budget is now spent (the episode then ends as truncated, as after a step).
        """
        if not self.truncated:
            self.steps += 1
            self.truncated = self.spent
        return self.truncated

    def _refused(self) -> Step:
        message = (
            f"the step limit of {self.max_steps} steps is spent: nothing more happens in this episode "
            "until the next reset"
        )
        info: StepInfo = {
            "call_valid": False,
            "call_succeeded": False,
            "error": STEP_LIMIT,
            "truncated_by": self.reason,
        }
        return {"type": "error", "error": {"code": STEP_LIMIT, "message": message}}, 0.0, False, True, info
