"""The evaluation config: everything about the agent loop that can move a score, pinned and named.

Two runs are comparable only when they ran the same loop: the same system text, sampling
temperature, step budget, tool-call format and answer convention. All of it lives in one
frozen :class:`EvalConfig`; its :meth:`~EvalConfig.config_id` (a hash of its canonical
JSON) is recorded with every episode and in every report, and a resumed run refuses a
config other than the one its directory was started with. ``CONFIG_VERSION`` names the
loop's code-level conventions (how observations are shown, how a plain-text reply is read);
it changes whenever those do, so an old id is never mistaken for the new behaviour.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal

from pipeline.surface import ANSWER_TOOL, OBSERVATION_BUDGET

CONFIG_VERSION = "agent-loop/7"
"""``agent-loop/7``: the answer forms name the object a choice asks for too (a total alone).
``agent-loop/6``: the refusal form says ``id`` is a record's "id" number as the tools show it, never
its code or name. ``agent-loop/5``: the answer forms name the JSON object a top-level request asks for (a total with
the parts refused). ``agent-loop/4``: the system text carries the world's policy and the refusal form
names ``policy`` and partial compliance (one refusal object per record refused). ``agent-loop/3``: the tools are
:mod:`pipeline.surface.records`' record verbs with one table catalog (``agent-loop/2`` listed every bundle
tool); the system text, tools and observations are :mod:`pipeline.surface`'s (the same every trainer adapter
shows), observations are cut at 6,000 characters with a pointer to the rest."""


@dataclass(frozen=True)
class EvalConfig:
    """How the agent loop runs; hashed into :meth:`config_id`."""

    version: str = CONFIG_VERSION
    tool_use_prompt: str | None = None
    """A system text replacing the surface's for tool-use bundles; None: the surface's own (see
    :func:`pipeline.surface.system_text`, the text every trainer adapter shows)."""
    procedural_prompt: str | None = None
    """The same for procedural bundles."""
    temperature: float = 0.0
    max_tokens: int | None = 2048
    max_steps: int = 64
    """Environment steps (tool calls, malformed ones included, plus the answer) before the episode is cut
    and scored as failed. A careful agent playing level-5 sweeps blind made 18 to 40 tool calls where
    the reference makes 10 to 19 (it reads every record before judging any), so a budget of 30 cut
    correct play short."""
    tool_call_format: Literal["openai"] = "openai"
    """OpenAI-style ``tools`` / ``tool_calls`` (what litellm translates for every provider)."""
    answer_tool: str = ANSWER_TOOL
    text_reply: Literal["answer", "nudge"] = "answer"
    """A reply with no tool call: ``answer`` takes its text as the final answer; ``nudge`` tells the model
    to call a tool (costs a step)."""
    observation_chars: int = OBSERVATION_BUDGET
    """Longest observation text shown to the model; a longer one is cut and says how to fetch the rest
    (the surface's budget by default, so an evaluation reads what training reads)."""
    request_timeout: float = 120.0
    """Seconds per model request; one that never answers is an infrastructure error, not a failure."""
    retries: int = 2
    """Extra tries for a transient provider failure before the episode is counted as an error."""

    def __post_init__(self) -> None:
        if not 0 <= self.temperature <= 2:
            raise ValueError(f"temperature must be in [0, 2], got {self.temperature}")
        if not 1 <= self.max_steps <= 1000:
            raise ValueError(f"max_steps must be in 1..1000, got {self.max_steps}")
        if self.max_tokens is not None and not 1 <= self.max_tokens <= 1_000_000:
            raise ValueError(f"max_tokens must be in 1..1000000, got {self.max_tokens}")
        if not 100 <= self.observation_chars <= 1_000_000:
            raise ValueError(f"observation_chars must be in 100..1000000, got {self.observation_chars}")
        if not 0 < self.request_timeout <= 3600:
            raise ValueError(f"request_timeout must be in (0, 3600], got {self.request_timeout}")
        if not 0 <= self.retries <= 10:
            raise ValueError(f"retries must be in 0..10, got {self.retries}")
        if self.tool_call_format != "openai":
            raise ValueError(f"tool_call_format must be 'openai', got {self.tool_call_format!r}")
        if self.text_reply not in ("answer", "nudge"):
            raise ValueError(f"text_reply must be 'answer' or 'nudge', got {self.text_reply!r}")
        if not self.answer_tool.isidentifier():
            raise ValueError(f"answer_tool must be an identifier, got {self.answer_tool!r}")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def config_id(self) -> str:
        """``evalcfg-`` and 16 hex digits of the SHA-256 of the canonical JSON: equal ids, same loop."""
        text = json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return "evalcfg-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def prompt(self, procedural: bool, surface_text: str) -> str:
        """The system text of an episode: this config's override, else the surface's ``surface_text``."""
        override = self.procedural_prompt if procedural else self.tool_use_prompt
        return override if override is not None else surface_text

    def with_overrides(self, **changes: Any) -> EvalConfig:
        """A copy with the given fields changed (``None`` values are ignored: "not given")."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvalConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown evaluation config keys {unknown}; known: {sorted(known)}")
        return cls(**data)

    @classmethod
    def load(cls, path: str | Path) -> EvalConfig:
        """A JSON file holding any subset of the fields (the rest keep their defaults)."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"cannot read evaluation config {path}: {exc}") from None
        if not isinstance(data, dict):
            raise ValueError(f"{path}: an evaluation config is a JSON object")
        return cls.from_dict(data)
