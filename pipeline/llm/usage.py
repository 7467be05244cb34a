"""Tokens, cost and cache keys per step: what a run summary reports and a manifest records.

A :class:`Ledger` is plain data so a step can return it across a process boundary (a
Dask worker) and the flow can add the ledgers of its steps together. Cost comes from
litellm's local cost map at the time of the call and is stored with the cached reply:
``cost_usd`` is what this run spent (a cached reply costs nothing now), ``cost_usd_cached``
what the replies taken from the cache cost when they were made.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

FIGURES = ("calls", "cached", "attempts", "prompt_tokens", "completion_tokens", "cost_usd", "cost_usd_cached")


@dataclass
class StepUsage:
    calls: int = 0
    """Replies used (from the provider or the cache)."""
    cached: int = 0
    """Of those, replies taken from the cache."""
    attempts: int = 0
    """HTTP requests sent, retries included (0 when everything came from the cache)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cost_usd_cached: float = 0.0
    keys: list[str] = field(default_factory=list)
    """Cache keys of the replies, in the order they were used (the lineage of what the step made)."""

    def add(self, other: StepUsage) -> None:
        self.calls += other.calls
        self.cached += other.cached
        self.attempts += other.attempts
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost_usd = round(self.cost_usd + other.cost_usd, 8)
        self.cost_usd_cached = round(self.cost_usd_cached + other.cost_usd_cached, 8)
        self.keys.extend(other.keys)

    def figures(self) -> dict[str, Any]:
        """Everything but the keys: what a summary prints."""
        return {k: v for k, v in asdict(self).items() if k != "keys"}


@dataclass
class Ledger:
    """Usage per step name (``blueprint``, ``vocab``, ``paraphrase``, ``proposals``)."""

    steps: dict[str, StepUsage] = field(default_factory=dict)

    def step(self, name: str) -> StepUsage:
        return self.steps.setdefault(name, StepUsage())

    def merge(self, other: Ledger) -> Ledger:
        for name, usage in other.steps.items():
            self.step(name).add(usage)
        return self

    @classmethod
    def total_of(cls, ledgers: Iterable[Ledger]) -> Ledger:
        out = cls()
        for ledger in ledgers:
            out.merge(ledger)
        return out

    def total(self) -> StepUsage:
        out = StepUsage()
        for usage in self.steps.values():
            out.add(usage)
        return out

    def keys(self) -> dict[str, list[str]]:
        """Cache keys by step, for the manifest's lineage."""
        return {name: list(u.keys) for name, u in sorted(self.steps.items())}

    def summary(self) -> dict[str, Any]:
        """Figures per step and in total (no keys): the ``llm`` part of a run summary."""
        return {
            "steps": {name: u.figures() for name, u in sorted(self.steps.items())},
            "total": self.total().figures(),
        }

    @classmethod
    def from_summary(cls, data: Mapping[str, Any]) -> Ledger:
        """Rebuild figures from :meth:`summary` output (for adding up a batch's summaries)."""
        out = cls()
        for name, figures in data.get("steps", {}).items():
            out.steps[name] = StepUsage(**{k: figures[k] for k in FIGURES if k in figures})
        return out
