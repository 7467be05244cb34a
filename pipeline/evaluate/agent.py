"""Who acts in an episode: the policy contract, and the standard tool-calling LLM agent.

A :class:`Policy` makes one :class:`Agent` per episode from an :class:`EpisodeStart`:
the system text, the instruction, the tools in OpenAI's function format (all three from
:mod:`pipeline.surface`, as every trainer adapter shows them) and nothing else an agent may
not see (no expected answer, no verifier, no knobs). Only a policy that declares
``needs_reference`` (the reference-solution upper bound) is handed the task's reference
solution, through a separate field the LLM agent never reads.

The agent answers each :meth:`Agent.act` with a :class:`Turn`: tool calls (arguments as
the model wrote them: a dict, or raw text when it was not valid JSON), or a final answer.
The episode loop (:mod:`pipeline.evaluate.episode`) turns every call into an environment
step, so malformed calls are judged by the environment like any other bad action.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from pipeline.evaluate.config import EvalConfig
from pipeline.runtime.wire import Observation
from pipeline.surface import ANSWER_TOOL, OBSERVATION_BUDGET, render_observation
from pipeline.surface import answer_tool as answer_tool_spec


@dataclass(frozen=True)
class Call:
    name: str
    arguments: Any
    """A dict when the model wrote valid JSON for it, else the raw text."""
    id: str = ""


@dataclass(frozen=True)
class Turn:
    calls: tuple[Call, ...] = ()
    answer: Any = None
    final: bool = False
    """True when the turn is a final answer without a tool call (a plain-text reply)."""
    text: str | None = None
    """What the model wrote with the turn (a scripted policy writes nothing): it goes into the
    trajectory log beside the turn's first step."""


@dataclass(frozen=True)
class Reference:
    """The task's reference solution: trainer-side knowledge, for the upper-bound policy only."""

    calls: tuple[tuple[str, dict[str, Any]], ...]
    answer: Any
    literal: tuple[tuple[str, dict[str, Any]], ...] = ()
    """What a literal reading of the request does: the reference plus the operation on every record a
    rule of the world's policy forbids (the tools would carry it out); for the literal-compliance policy."""
    literal_answer: Any = None
    """What ignoring the policy answers, where the task records it (a sum over every record asked about)."""
    first_answer: Any = None
    """What taking the first records listed instead of the latest answers, where the task records it."""
    first_pick: tuple[int, int] | None = None
    """(chosen, first listed) where the task chooses one record by what it comes to: the record a plain
    listing shows first stands in for the chosen one."""


@dataclass(frozen=True)
class EpisodeStart:
    task_id: str
    trial: int
    seed: int
    instruction: str
    tools: list[dict[str, Any]]
    """OpenAI function tools, the answer tool last."""
    procedural: bool
    reference: Reference | None = None
    system: str = ""
    """The system text (the surface's, or the config's override)."""


@dataclass
class Usage:
    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


class Agent(Protocol):
    usage: Usage

    def act(self, feedback: list[tuple[str, str]]) -> Turn:
        """The next turn, given ``(call id, observation text)`` for each call of the previous one."""
        ...


class Policy(Protocol):
    name: str
    needs_reference: bool

    def agent(self, start: EpisodeStart) -> Agent: ...


class AgentError(RuntimeError):
    """The agent could not produce a turn for reasons outside the episode (a provider failure, a
    timeout): the episode is an infrastructure error, never scored."""


def openai_tools(tools: list[dict[str, Any]], answer_tool: str = ANSWER_TOOL) -> list[dict[str, Any]]:
    """Surface tools (``{name, description, parameters}``, the answer tool last) in OpenAI's format.

    A procedural bundle's surface has no tools (it is answered in text); the loop still offers the
    answer tool there, since a tool-calling request needs at least one tool.
    """
    listed = list(tools) or [answer_tool_spec()]
    if listed[-1]["name"] != answer_tool or any(t["name"] == answer_tool for t in listed[:-1]):
        raise ValueError(f"the answer tool {answer_tool!r} must be last and only there")
    return [{"type": "function", "function": dict(t)} for t in listed]


def render(obs: Observation, limit: int = OBSERVATION_BUDGET, arguments: Any = None) -> str:
    """An observation as the text the model reads next (:func:`pipeline.surface.render_observation`)."""
    return render_observation(obs, arguments, limit)


def parse_arguments(text: str) -> Any:
    """The model's argument text as a dict; anything else stays the raw text (a malformed call)."""
    try:
        value = json.loads(text) if text.strip() else {}
    except (ValueError, RecursionError):  # RecursionError: nested past the stack, still just a malformed call
        return text
    return value if isinstance(value, dict) else text


@dataclass
class LLMAgent:
    """The standard loop: system prompt, the instruction as the user turn, tool calls and tool results."""

    client: Any
    config: EvalConfig
    start: EpisodeStart
    ledger: Any
    usage: Usage = field(default_factory=Usage)
    messages: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.messages = [
            {"role": "system", "content": self.start.system},
            {"role": "user", "content": self.start.instruction},
        ]

    def act(self, feedback: list[tuple[str, str]]) -> Turn:
        from pipeline.llm.client import LLMError

        for call_id, text in feedback:
            self.messages.append({"role": "tool", "tool_call_id": call_id, "content": text})
        try:
            reply = self.client.chat(
                "evaluate", list(self.messages), self.ledger, self.start.tools, salt=f"trial-{self.start.trial}"
            )
        except LLMError as exc:
            raise AgentError(str(exc)) from None
        self.usage.calls += 1
        self.usage.cached += int(reply.cached)
        self._count()
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if reply.tool_calls:
            message["tool_calls"] = [
                {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
                for c in reply.tool_calls
            ]
        self.messages.append(message)
        if reply.tool_calls:
            calls = tuple(Call(c["name"], parse_arguments(c["arguments"]), c["id"]) for c in reply.tool_calls)
            return Turn(calls, text=reply.text or None)
        if self.config.text_reply == "answer":
            return Turn(answer=reply.text, final=True, text=reply.text)
        self.messages.append({"role": "user", "content": f"Call a tool, or {self.config.answer_tool} to finish."})
        return Turn()

    def _count(self) -> None:
        """Tokens and cost so far, from this agent's own ledger (one per episode)."""
        step = self.ledger.steps.get("evaluate")
        if step is not None:
            self.usage.prompt_tokens, self.usage.completion_tokens = step.prompt_tokens, step.completion_tokens
            self.usage.cost_usd = round(step.cost_usd + step.cost_usd_cached, 8)


@dataclass
class LLMPolicy:
    """Any litellm model (or a local OpenAI-compatible server) through the project's client."""

    settings: Any
    config: EvalConfig
    needs_reference: bool = False

    def __post_init__(self) -> None:
        from pipeline.llm.client import Client

        self.client = Client(self.settings)

    @property
    def name(self) -> str:
        return f"llm:{self.settings.model}"

    def agent(self, start: EpisodeStart) -> Agent:
        from pipeline.llm.usage import Ledger

        return LLMAgent(self.client, self.config, start, Ledger())
