"""What every adapter must show for one scripted episode: the reference transcript.

A test drives the same task with the same calls through an adapter (TRL, verifiers,
Gymnasium, OpenEnv, ``evaluate``) and compares what that adapter showed the model with
:func:`expected_transcript`: the system text, the tool list, and each observation text.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from pipeline.surface import surface_of


@dataclass
class Transcript:
    system: str
    tools: list[dict[str, Any]]
    instruction: str
    observations: list[str] = field(default_factory=list)


def expected_transcript(env: Any, task_id: str, calls: list[tuple[str, dict[str, Any]]]) -> Transcript:
    """Play ``calls`` (surface-form tool calls, the answer tool included) on a fork of ``env``; what the
    model must read in every adapter."""
    fork = copy.copy(env)
    surface = surface_of(fork)
    obs, _info = fork.reset(task_id=task_id)
    out = Transcript(surface.system, surface.tools, str(obs.get("instruction", "")))
    for name, arguments in calls:
        action = surface.action(name, arguments)
        obs, *_ = fork.step(action)
        out.observations.append(surface.observe(obs, action))
    fork.close()
    return out
