"""A bundle of either kind as a real ``gymnasium.Env`` (passes ``gymnasium.utils.env_checker.check_env``).

``Environment`` and ``ProceduralEnvironment`` keep their own contract (dict actions and
observations, no spaces); this wrapper gives Gymnasium's, with text spaces:

* observation: ``Dict({"instruction": text, "observation": text})``: the episode's
  instruction and the last observation's text, rendered by :mod:`pipeline.surface` as in
  every adapter (``env.system`` and ``env.tools`` are the system text and tool list a
  model is shown with it);
* action: text. For a tool-use bundle, one JSON call of the surface's tools, ``{"tool":
  NAME, "arguments": {...}}`` (``submit_answer`` ends the episode; ``{"answer": VALUE}``
  and the executor's flat arguments are taken too; a dict is taken as text would be); for a
  procedural bundle, the answer itself. Text that is not a valid action comes back as an
  error observation, as in the wrapped environment;
* the first final verdict stands: a step after the end returns the "episode is over" text,
  reward 0.0 and ``info["episode_over"]``, and ``env.reward`` (the episode's reward: the
  first verdict's, ``None`` when it was masked as ``error``) does not change. A verdict on
  another task than the one reset assigned is masked: reward 0.0, ``info["masked"]``;
* ``info`` is a deep copy, so a caller editing it (``info["reward_weights"]``,
  ``info["knobs"]``) never changes the environment or its tasks. It is the trainer's
  view (it names the task's knobs); do not show it to the agent.

``reset(seed=…, options={"task_id": …})`` seeds the task draw (same seed, same task).

Registered as ``synthenv/Bundle-v0``: ``gymnasium.make("synthenv/Bundle-v0", ref=REF)``
once this module is imported, or ``gymnasium.make("pipeline.integrations.gymnasium:
synthenv/Bundle-v0", ref=REF)`` without importing it first; ``ref`` is a bundle directory
or a registry ref (``name@1.2.0``; ``registry=``), and ``max_episode_steps=N`` adds
Gymnasium's own step limit.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, cast

import gymnasium
import numpy as np
from gymnasium import spaces

from pipeline.integrations.episode import Episode, is_procedural, open_env
from pipeline.runtime.wire import ResetInfo, StepInfo
from pipeline.surface import decode_answer
from pipeline.tools.jsonvalues import parse_json

MAX_TEXT = 1_000_000
"""Longest instruction, observation or action the spaces admit (characters)."""
_SAMPLE_CHARSET = "".join(chr(c) for c in range(32, 127))


class AnyText(spaces.Text):
    """A text space that admits any string up to ``max_length`` characters (instructions and
    tool results use all of Unicode); samples are printable ASCII, at most 64 characters."""

    def __init__(self, max_length: int = MAX_TEXT, seed: int | np.random.Generator | None = None) -> None:
        super().__init__(max_length=max_length, min_length=0, charset=_SAMPLE_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        length = int(self.np_random.integers(0, 65))
        picks = self.np_random.integers(0, len(_SAMPLE_CHARSET), size=length)
        return "".join(_SAMPLE_CHARSET[i] for i in picks)

    def __repr__(self) -> str:
        return f"AnyText({self.max_length})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AnyText) and other.max_length == self.max_length


def _gym_info(info: ResetInfo | StepInfo) -> dict[str, Any]:
    """``info`` as Gymnasium's ``Env`` declares it (a plain dict type, which mypy does not take a TypedDict
    for); the same dict, unchanged."""
    return cast(dict[str, Any], info)


class BundleGymEnv(gymnasium.Env):  # type: ignore[type-arg]
    """A tool-use or procedural bundle as a ``gymnasium.Env`` (see the module docstring)."""

    # gymnasium declares ``metadata`` an instance attribute, so no ClassVar here.
    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        bundle: str | Path | Any = None,
        render_mode: str | None = None,
        ref: str | None = None,
        registry: str | None = None,
    ) -> None:
        if render_mode is not None:
            raise ValueError(f"render_mode {render_mode!r} is not supported; the observation is already text")
        source = ref if ref is not None else bundle
        if source is None:
            raise ValueError("give the bundle: a directory or a registry ref (ref=...)")
        self.env = open_env(source, registry) if isinstance(source, (str, Path)) else source
        self.episode = Episode(self.env)
        self.procedural = is_procedural(self.env)
        self.render_mode = render_mode
        self.observation_space = spaces.Dict({"instruction": AnyText(), "observation": AnyText()})
        self.action_space = AnyText()
        self._instruction = ""

    @property
    def system(self) -> str:
        """The system text a model is shown with these observations."""
        return self.episode.surface.system

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tool list a model is shown (the answer tool last; empty for a procedural bundle)."""
        return self.episode.surface.tools

    @property
    def reward(self) -> float | None:
        """The episode's reward: 0.0 until it ends, then the first verdict's (None when masked)."""
        return self.episode.reward

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, str], dict[str, Any]]:
        super().reset(seed=seed)
        task_id = (options or {}).get("task_id")
        # Without a seed, draw one from the Gymnasium RNG so a seeded env stays reproducible.
        draw = seed if seed is not None else int(self.np_random.integers(0, 2**63 - 1))
        self._instruction, info = self.episode.reset(task_id=task_id, seed=draw)
        return {"instruction": self._instruction, "observation": self._instruction}, _gym_info(copy.deepcopy(info))

    def step(self, action: Any) -> tuple[dict[str, str], float, bool, bool, dict[str, Any]]:
        was_done = self.episode.done
        text = self.episode.act(self._action(action))
        info = copy.deepcopy(self.episode.info)
        reward = 0.0
        if self.episode.done and not was_done:
            reward = float(self.episode.reward or 0.0)
            info["masked"] = self.episode.reward is None
        return (
            {"instruction": self._instruction, "observation": text},
            reward,
            self.episode.done,
            False,
            _gym_info(info),
        )

    def _action(self, action: Any) -> Any:
        if self.procedural:
            return {"answer": action}
        if isinstance(action, dict):
            try:
                action = json.dumps(action, allow_nan=False)
            except (TypeError, ValueError, RecursionError) as exc:  # not JSON, or nested past the stack
                return {f"invalid_json ({type(exc).__name__}: {str(exc)[:120]})": None}
        if not isinstance(action, str):
            return action  # refused by the environment as a typed error observation
        try:
            # Strict and bounded (no NaN, 64-bit integers, limited nesting): a hostile text is a
            # ValueError here, never a RecursionError out of step.
            call = parse_json(action, "action")
        except ValueError as exc:
            # Not an action: comes back as an error observation naming the problem (the key).
            return {f"invalid_json ({str(exc)[:160]})": action[:200]}
        if isinstance(call, dict) and set(call) == {"answer"}:
            return {"answer": decode_answer(call["answer"])}
        if isinstance(call, dict) and isinstance(call.get("tool"), str) and set(call) <= {"tool", "arguments"}:
            return self.episode.surface.action(call["tool"], call.get("arguments", {}))
        return call

    def close(self) -> None:
        self.env.close()
        super().close()


ENV_ID = "synthenv/Bundle-v0"
if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="pipeline.integrations.gymnasium:BundleGymEnv")
