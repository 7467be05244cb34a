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

from pipeline.bundle.manifest import ProceduralManifest
from pipeline.runtime.wire import Action
from pipeline.surface.observe import EPISODE_OVER_TEXT, OBSERVATION_BUDGET, dumps, render_observation
from pipeline.surface.records import VERB_NAMES, Routes, routes, verb_tools
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
    "VERB_NAMES",
    "Surface",
    "answer_schema",
    "answer_tool",
    "compact_tools",
    "decode_answer",
    "dumps",
    "render_observation",
    "surface_of",
    "system_text",
    "verb_tools",
]


def _procedural(env: Any) -> bool:
    manifest = getattr(getattr(env, "bundle", None), "manifest", None)
    if isinstance(manifest, dict):  # the summary a Harbor task container stands in with
        return manifest.get("kind") == "procedural"
    return isinstance(manifest, ProceduralManifest)


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
    routes: Routes | None = None
    """How the record verbs map onto the bundle's tools (None: the bundle's tools are listed one by one)."""

    @property
    def bundle_tools(self) -> list[dict[str, Any]]:
        return [t for t in self.tools if t["name"] != ANSWER_TOOL]

    def action(self, name: str, arguments: Any) -> Action:
        """A model's tool call as an environment action (the answer tool becomes ``{"answer": ...}``)."""
        if name == ANSWER_TOOL:
            answer = arguments.get("answer") if isinstance(arguments, dict) else arguments
            return {"answer": decode_answer(answer)}
        if self.routes is not None and name in VERB_NAMES:
            tool, args = self.routes.to_action(name, arguments)
            return {"tool": tool, "arguments": args}
        return {"tool": name, "arguments": to_arguments(name, arguments, self.folded)}

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """A bundle tool call (a reference solution's) as a model writes it with these tools: name, arguments."""
        if self.routes is not None:
            return self.routes.to_call(tool, arguments)
        return tool, to_surface(tool, arguments, self.folded)

    def observe(self, obs: Any, action: Any = None) -> str:
        """The text of an observation; ``action`` is the environment action it answers."""
        arguments = action.get("arguments") if isinstance(action, dict) else None
        tool = action.get("tool") if isinstance(action, dict) else None
        again = None
        if self.routes is not None and isinstance(tool, str):
            if tool in VERB_NAMES and isinstance(obs, dict) and obs.get("type") == "tool_error":
                # Not routed: the executor knows no such tool; say what the verb takes instead.
                error = {"code": "invalid_argument", "message": self.routes.explain(tool, arguments)}
                return render_observation({"type": "tool_error", "error": error}, None, self.budget)
            if tool in self.routes.verbs:
                verb, table = self.routes.verbs[tool]
                again = f"{verb} again with table={table},"
        return render_observation(obs, arguments, self.budget, again)


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
        schema, toolset = getattr(env, "schema", None), getattr(env, "toolset", None)
        paths = None
        if procedural:
            tools: list[dict[str, Any]] = []
        elif schema is not None and toolset is not None:  # the record verbs, one table catalog
            tools, paths = [*verb_tools(schema, toolset.tools), answer_tool()], routes(toolset.tools)
        else:  # an environment that exposes only its tool specs: each tool listed on its own
            tools = [*compact_tools(specs), answer_tool()]
        _CACHE[key] = Surface(
            procedural=procedural,
            system=system_text(procedural, policy_of(env)),
            tools=tools,
            folded={} if paths is not None else folds(specs),
            budget=budget,
            routes=paths,
        )
    return _CACHE[key]
