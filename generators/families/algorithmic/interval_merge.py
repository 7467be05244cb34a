"""Merge overlapping closed intervals.

Tests sorting plus a running sweep: the answer is the sorted list of maximal disjoint
intervals covering the same points. Harder levels add more intervals, shuffle them,
nest intervals inside others, and include intervals that only touch at an endpoint
(which merge, since the intervals are closed) or that are one apart (which do not).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "interval_merge"


@dataclass(frozen=True)
class Config(Knobs):
    count: int = 4
    max_coord: int = 20
    max_length: int = 5
    shuffled: bool = False
    """Present the intervals in random order instead of sorted by start."""
    edge_cases: bool = False
    """Plant touching, nested and one-apart pairs, the spots where sweeps go wrong."""

    RANGES: ClassVar = {"count": (2, 40), "max_coord": (10, 10_000), "max_length": (1, 1000)}

    def check(self) -> None:
        if self.max_length >= self.max_coord:
            raise ValueError("max_length must be smaller than max_coord")


LEVELS = (
    {"count": 3, "max_coord": 20, "max_length": 6},
    {"count": 5, "max_coord": 40, "max_length": 8, "shuffled": True},
    {"count": 7, "max_coord": 60, "max_length": 10, "shuffled": True, "edge_cases": True},
    {"count": 10, "max_coord": 100, "max_length": 15, "shuffled": True, "edge_cases": True},
    {"count": 14, "max_coord": 200, "max_length": 25, "shuffled": True, "edge_cases": True},
    {"count": 20, "max_coord": 500, "max_length": 40, "shuffled": True, "edge_cases": True},
)


def merge(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Classic sweep; closed intervals, so ``[1, 3]`` and ``[3, 5]`` merge."""
    merged: list[list[int]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(a, b) for a, b in merged]


def _edge_pair(rng: random.Random, config: Config) -> list[tuple[int, int]]:
    start = rng.randint(0, config.max_coord - config.max_length)
    end = start + rng.randint(1, config.max_length)
    kind = rng.choice(("touch", "nested", "gap"))
    if kind == "touch":
        return [(start, end), (end, min(config.max_coord, end + rng.randint(1, config.max_length)))]
    if kind == "nested" and end - start >= 2:
        inner = rng.randint(start + 1, end - 1)
        return [(start, end), (inner, rng.randint(inner, end - 1))]
    if end + 1 < config.max_coord:
        return [(start, end), (end + 1, min(config.max_coord, end + 1 + rng.randint(0, config.max_length)))]
    return [(start, end)]


def generate(config: Config, rng: random.Random) -> Problem:
    intervals: list[tuple[int, int]] = []
    if config.edge_cases:
        while len(intervals) < config.count // 2:
            intervals.extend(_edge_pair(rng, config))
        intervals = intervals[: config.count]
    while len(intervals) < config.count:
        start = rng.randint(0, config.max_coord - config.max_length)
        intervals.append((start, start + rng.randint(0, config.max_length)))
    if config.shuffled:
        rng.shuffle(intervals)
    else:
        intervals.sort()
    merged = merge(intervals)
    shown = ", ".join(f"[{a}, {b}]" for a, b in intervals)
    question = (
        f"Merge the following closed intervals: {shown}.\n"
        "Intervals that overlap or share an endpoint merge into one; [1, 3] and [4, 6] stay "
        "separate. Answer with the merged intervals sorted by start, written as "
        "[start, end] and separated by commas, e.g. [1, 5], [7, 9]."
    )
    answer = ", ".join(f"[{a}, {b}]" for a, b in merged)
    return Problem(
        question=question,
        answer=answer,
        extra={"intervals": [list(p) for p in intervals], "merged_count": len(merged)},
    )


FAMILY = Family(
    name=NAME,
    description="Merge overlapping closed integer intervals into a sorted disjoint list.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
    notes="Compared as an ordered token list, so bracket style and spacing do not matter.",
)
