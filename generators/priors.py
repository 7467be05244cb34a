"""Label priors: how much reward one constant answer earns on a family × level.

A policy that learns to answer the same thing whatever the question is trained on the
label distribution, not on the task. This module measures that exploit: for a sample of
items it scores every candidate constant (the family's most frequent gold answers plus
common junk such as "yes", "0" or "none") against every item and keeps the best mean.

The bound a family must meet is :func:`constant_bound`: 0.10, or ``1/k + 0.05`` for a
family whose answer is by nature one of ``k`` choices (``Family.choices``). Tests assert
it over the whole registry; ``benchmarks/generators_bench.py --constant`` prints the table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CONSTANT_BOUND",
    "JUNK_ANSWERS",
    "ConstantResult",
    "best_constant",
    "constant_bound",
    "constant_candidates",
    "measure",
]

CONSTANT_BOUND = 0.10
"""Most mean reward a constant answer may earn on a family whose answers are open-ended."""
CHOICE_SLACK = 0.05
"""Allowance above ``1/k`` for a family whose answer is one of ``k`` choices."""
JUNK_ANSWERS: tuple[str, ...] = (
    "yes",
    "no",
    "0",
    "1",
    "2",
    "3",
    "-1",
    "none",
    "true",
    "false",
    "",
    "A",
    "valid",
    "invalid",
    "SAT",
    "UNSAT",
    "impossible",
    "unknown",
)
"""Constants a policy tries first, whatever the family."""
FREQUENT_GOLD = 12
"""How many of the family's most frequent gold answers are tried as constants."""


@dataclass(frozen=True)
class ConstantResult:
    """The best constant answer on one sample of items, and the bound it must stay under."""

    family: str
    level: int | None
    items: int
    answer: str
    reward: float
    bound: float
    choices: int | None

    @property
    def ok(self) -> bool:
        return self.reward <= self.bound


def constant_bound(choices: int | None) -> float:
    """0.10, or ``1/k + 0.05`` when the answer is by nature one of ``k`` choices."""
    if choices is None:
        return CONSTANT_BOUND
    if isinstance(choices, bool) or not isinstance(choices, int) or choices < 2:
        raise ValueError(f"choices must be an integer >= 2 or None, got {choices!r}")
    return max(CONSTANT_BOUND, 1.0 / choices + CHOICE_SLACK)


def constant_candidates(
    golds: Iterable[str], extra: Iterable[str] = JUNK_ANSWERS, top: int = FREQUENT_GOLD
) -> list[str]:
    """The ``top`` most frequent gold answers (ties broken by text), then ``extra``; no repeats."""
    counts = Counter(str(gold) for gold in golds)
    frequent = sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))[:top]
    out: list[str] = []
    for answer in [*(answer for answer, _ in frequent), *extra]:
        if answer not in out:
            out.append(answer)
    return out


def best_constant(family: Any, items: Sequence[Mapping[str, Any]], candidates: Iterable[str]) -> tuple[str, float]:
    """The candidate with the highest mean score over ``items`` (first one on ties)."""
    from generators.dataset import score

    if not items:
        raise ValueError("best_constant needs at least one item")
    best, best_reward = "", -1.0
    for candidate in candidates:
        reward = sum(score(family, candidate, item) for item in items) / len(items)
        if reward > best_reward:
            best, best_reward = candidate, reward
    return best, best_reward


def measure(name: str, level: int, size: int = 500, seed: int = 0) -> ConstantResult:
    """Generate ``size`` items of ``name`` at ``level`` and find its best constant answer."""
    from generators.dataset import create_dataset
    from generators.registry import get_family

    family = get_family(name)
    dataset = create_dataset(family, level=level, seed=seed, size=size, on_shortfall="truncate")
    items = list(dataset)
    answer, reward = best_constant(family, items, constant_candidates(item["answer"] for item in items))
    choices = getattr(family, "choices", None)
    return ConstantResult(name, level, len(items), answer, reward, constant_bound(choices), choices)
