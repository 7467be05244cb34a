"""Figures about a task set, shared by the manifest, the report and the benchmark."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from pipeline.runtime.task import Task

_WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")


def per_family(tasks: Sequence[Task]) -> dict[str, int]:
    return dict(sorted(Counter(t.family for t in tasks).items()))


def per_level(tasks: Sequence[Task]) -> dict[str, int]:
    return {str(k): v for k, v in sorted(Counter(t.level for t in tasks).items())}


def _mean(values: Sequence[int]) -> float:
    return round(sum(values) / len(values), 2) if values else 0.0


def reference_calls(tasks: Sequence[Task]) -> dict[str, Any]:
    """Mean reference-solution length (tool calls) per level, overall and per family."""
    by_level: dict[int, list[int]] = defaultdict(list)
    by_family: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for t in tasks:
        by_level[t.level].append(len(t.solution))
        by_family[t.family][t.level].append(len(t.solution))
    return {
        "per_level": {str(lvl): _mean(v) for lvl, v in sorted(by_level.items())},
        "per_family": {
            f: {str(lvl): _mean(v) for lvl, v in sorted(levels.items())} for f, levels in sorted(by_family.items())
        },
    }


DEPTH_KNOBS = ("entity_types", "disambiguations", "extra_pages", "recoveries")
"""Per-task knobs of depth: tables the reference touches, names the instruction must disambiguate
with a second attribute, list pages read past the first, refused first moves the task routes around."""


def depth(tasks: Sequence[Task]) -> dict[str, dict[str, float]]:
    """Per level: reference calls (mean, max) and the mean of each depth knob."""
    by_level: dict[int, list[Task]] = defaultdict(list)
    for t in tasks:
        by_level[t.level].append(t)
    out: dict[str, dict[str, float]] = {}
    for level, group in sorted(by_level.items()):
        lengths = [len(t.solution) for t in group]
        row: dict[str, float] = {"tasks": len(group), "calls_mean": _mean(lengths), "calls_max": max(lengths)}
        for knob in DEPTH_KNOBS:
            row[knob] = _mean([int(t.knobs.get(knob, 0)) for t in group])
        out[str(level)] = row
    return out


def distinct_ngrams(texts: Sequence[str], n: int) -> float:
    """Distinct n-grams over all n-grams of the instructions (1.0 = nothing repeats)."""
    grams: list[tuple[str, ...]] = []
    for text in texts:
        tokens = _WORD.findall(text.casefold())
        grams += [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
    return round(len(set(grams)) / len(grams), 4) if grams else 0.0


def diversity(tasks: Sequence[Task]) -> dict[str, float]:
    texts = [t.instruction for t in tasks]
    return {f"distinct_{n}": distinct_ngrams(texts, n) for n in (1, 2, 3)}


def summary(tasks: Sequence[Task]) -> dict[str, Any]:
    """The task figures a manifest records."""
    return {
        "per_family": per_family(tasks),
        "per_level": per_level(tasks),
        "reference_calls": reference_calls(tasks),
        "depth_per_level": depth(tasks),
        "instruction_diversity": diversity(tasks),
    }
