"""A bundle of either kind as a real ``gymnasium.Env`` (passes ``gymnasium.utils.env_checker.check_env``).

``Environment`` and ``ProceduralEnvironment`` keep their own contract (dict actions and
observations, no spaces); this wrapper gives Gymnasium's, with text spaces:

* observation: ``Dict({"instruction": text, "observation": text})``: the episode's
  instruction and the last observation as JSON (the task, a tool result, an error, done);
* action: text. For a tool-use bundle, one JSON action, ``{"tool": NAME, "arguments":
  {...}}`` or ``{"answer": VALUE}`` (a dict is taken as is too); for a procedural bundle,
  the answer itself. Text that is not a valid action comes back as an error observation,
  as in the wrapped environment;
* ``info`` is a deep copy, so a caller editing it (``info["reward_weights"]``,
  ``info["knobs"]``) never changes the environment or its tasks. It is the trainer's
  view (it names the task's knobs); do not show it to the agent.

``reset(seed=…, options={"task_id": …})`` seeds the task draw (same seed, same task).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from pipeline.integrations.episode import is_procedural, open_env

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


class BundleGymEnv(gymnasium.Env):  # type: ignore[type-arg]
    """A tool-use or procedural bundle as a ``gymnasium.Env`` (see the module docstring)."""

    # gymnasium declares ``metadata`` an instance attribute, so no ClassVar here.
    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012

    def __init__(self, bundle: str | Path | Any, render_mode: str | None = None) -> None:
        if render_mode is not None:
            raise ValueError(f"render_mode {render_mode!r} is not supported; the observation is already text")
        self.env = open_env(bundle) if isinstance(bundle, (str, Path)) else bundle
        self.procedural = is_procedural(self.env)
        self.render_mode = render_mode
        self.observation_space = spaces.Dict({"instruction": AnyText(), "observation": AnyText()})
        self.action_space = AnyText()
        self._instruction = ""

    def _observation(self, obs: dict[str, Any]) -> dict[str, str]:
        return {"instruction": self._instruction, "observation": json.dumps(obs, sort_keys=True, default=str)}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, str], dict[str, Any]]:
        super().reset(seed=seed)
        task_id = (options or {}).get("task_id")
        # Without a seed, draw one from the Gymnasium RNG so a seeded env stays reproducible.
        draw = seed if seed is not None else int(self.np_random.integers(0, 2**63 - 1))
        obs, info = self.env.reset(task_id=task_id, seed=draw)
        self._instruction = str(obs.get("instruction", ""))
        return self._observation(obs), copy.deepcopy(info)

    def step(self, action: Any) -> tuple[dict[str, str], float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(self._action(action))
        return self._observation(obs), float(reward), bool(terminated), bool(truncated), copy.deepcopy(info)

    def _action(self, action: Any) -> Any:
        if isinstance(action, dict):
            return copy.deepcopy(action)
        if self.procedural:
            return {"answer": action}
        if not isinstance(action, str):
            return action  # refused by the environment as a typed error observation
        try:
            return json.loads(action)
        except ValueError:
            return {"invalid_json": action[:200]}  # not an action: comes back as an error observation

    def close(self) -> None:
        self.env.close()
        super().close()
