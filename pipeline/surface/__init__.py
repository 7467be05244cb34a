"""What a model reads, written once for every adapter: system text, tool list, observations, answers.

:func:`surface_of` gives the :class:`Surface` of an environment (either bundle kind): the
system text, the tools in their compact form (the answer tool last), how a tool call
becomes an environment action, and how an observation reads. TRL, verifiers, Gymnasium,
OpenEnv and ``evaluate`` all take these from here, so the same episode reads the same in
each of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipeline.surface.observe import EPISODE_OVER_TEXT, OBSERVATION_BUDGET, dumps, render_observation
from pipeline.surface.text import (
    ANSWER_TOOL,
    POLICY_HEADING,
    REFUSAL_FORM,
    answer_schema,
    answer_tool,
    decode_answer,
    policy_of,
    system_text,
)
from pipeline.surface.tools import CONVENTIONS, compact_tools, folds, to_arguments, to_surface

__all__ = [
    "ANSWER_TOOL",
    "CONVENTIONS",
    "EPISODE_OVER_TEXT",
    "OBSERVATION_BUDGET",
    "POLICY_HEADING",
    "REFUSAL_FORM",
    "Surface",
    "answer_schema",
    "answer_tool",
    "compact_tools",
    "decode_answer",
    "dumps",
    "render_observation",
    "surface_of",
    "system_text",
]


def _procedural(env: Any) -> bool:
    bundle = getattr(env, "bundle", None)
    return bundle is not None and bundle.manifest.get("kind") == "procedural"


def _specs(env: Any) -> list[dict[str, Any]]:
    specs = getattr(env, "tool_specs", None)
    return list(specs()) if callable(specs) else []


@dataclass(frozen=True)
class Surface:
    """Everything a model reads of one bundle, and how its tool calls become actions."""

    procedural: bool
    system: str
    tools: list[dict[str, Any]]
    """The bundle's tools (compact), then the answer tool; empty for a procedural bundle (single-turn)."""
    folded: dict[str, str] = field(default_factory=dict)
    budget: int = OBSERVATION_BUDGET

    @property
    def bundle_tools(self) -> list[dict[str, Any]]:
        return [t for t in self.tools if t["name"] != ANSWER_TOOL]

    def action(self, name: str, arguments: Any) -> dict[str, Any]:
        """A model's tool call as an environment action (the answer tool becomes ``{"answer": ...}``)."""
        if name == ANSWER_TOOL:
            answer = arguments.get("answer") if isinstance(arguments, dict) else arguments
            return {"answer": decode_answer(answer)}
        return {"tool": name, "arguments": to_arguments(name, arguments, self.folded)}

    def surface_arguments(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The executor's arguments of a call as a model writes them with these tools."""
        return to_surface(name, arguments, self.folded)

    def observe(self, obs: Any, action: Any = None) -> str:
        """The text of an observation; ``action`` is the environment action it answers."""
        arguments = action.get("arguments") if isinstance(action, dict) else None
        return render_observation(obs, arguments, self.budget)


_CACHE: dict[tuple[str, str], Surface] = {}


def surface_of(env: Any, budget: int = OBSERVATION_BUDGET) -> Surface:
    """The surface of ``env`` (cached per bundle digest: the bundle's files fix it)."""
    bundle = getattr(env, "bundle", None)
    digest = str(getattr(bundle, "digest", "")) or str(id(env))
    key = (digest, str(budget))
    if key not in _CACHE:
        procedural = _procedural(env)
        specs = [] if procedural else _specs(env)
        if any(s["name"] == ANSWER_TOOL for s in specs):
            raise ValueError(f"the bundle has a tool named {ANSWER_TOOL!r}, which every surface uses for answers")
        tools = [] if procedural else [*compact_tools(specs), answer_tool()]
        _CACHE[key] = Surface(
            procedural=procedural,
            system=system_text(procedural, policy_of(env)),
            tools=tools,
            folded=folds(specs),
            budget=budget,
        )
    return _CACHE[key]
