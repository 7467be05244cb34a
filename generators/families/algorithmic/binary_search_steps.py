"""Trace the probes a precisely specified binary search makes.

Tests faithful step-by-step execution of an algorithm rather than knowing its big-O:
the answer is the sequence of values compared, which depends on every midpoint (a count
of probes clusters around log2(length), so one constant count would earn a lot). Harder
levels use longer arrays, targets that are absent (the loop runs until the range is
empty), and a midpoint that rounds up instead of down, which changes the probe sequence.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "binary_search_steps"


@dataclass(frozen=True)
class Config(Knobs):
    length: int = 7
    max_gap: int = 5
    """Consecutive array elements differ by 1..max_gap, which leaves room for absent targets."""
    absent_rate: float = 0.0
    round_up_rate: float = 0.0
    """Share of items whose midpoint is ``(lo + hi + 1) // 2`` instead of ``(lo + hi) // 2``."""

    RANGES: ClassVar = {
        "length": (2, 200),
        "max_gap": (2, 50),
        "absent_rate": (0.0, 1.0),
        "round_up_rate": (0.0, 1.0),
    }


LEVELS = (
    {"length": 7, "max_gap": 4},
    {"length": 12, "max_gap": 5, "absent_rate": 0.2},
    {"length": 20, "max_gap": 6, "absent_rate": 0.4},
    {"length": 35, "max_gap": 8, "absent_rate": 0.4, "round_up_rate": 0.3},
    {"length": 60, "max_gap": 10, "absent_rate": 0.5, "round_up_rate": 0.5},
    {"length": 100, "max_gap": 12, "absent_rate": 0.5, "round_up_rate": 0.5},
)


def probes(values: list[int], target: int, round_up: bool) -> list[int]:
    """Indices compared with the target, in order."""
    lo, hi = 0, len(values) - 1
    seen: list[int] = []
    while lo <= hi:
        mid = (lo + hi + 1) // 2 if round_up else (lo + hi) // 2
        seen.append(mid)
        if values[mid] == target:
            break
        if values[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return seen


def generate(config: Config, rng: random.Random) -> Problem:
    values = [rng.randint(1, config.max_gap)]
    for _ in range(config.length - 1):
        values.append(values[-1] + rng.randint(2 if config.absent_rate else 1, config.max_gap))
    absent = rng.random() < config.absent_rate
    if absent:
        present = set(values)
        candidates = [v for v in range(values[-1] + 2) if v not in present]
        target = rng.choice(candidates)
    else:
        target = rng.choice(values)
    round_up = rng.random() < config.round_up_rate
    mid_rule = "(lo + hi + 1) // 2" if round_up else "(lo + hi) // 2"
    seen = probes(values, target, round_up)
    question = (
        f"A sorted array (0-indexed) holds {config.length} numbers: {', '.join(map(str, values))}.\n"
        f"Binary search for {target} runs as follows: start with lo = 0 and hi = "
        f"{config.length - 1}; while lo <= hi, set mid = {mid_rule} (integer division) and "
        "compare array[mid] with the target: stop if equal, set lo = mid + 1 if array[mid] is "
        "smaller, otherwise set hi = mid - 1.\n"
        "Which values array[mid] are compared with the target, in order, until the search "
        "stops? Answer with those values separated by commas (e.g. 14, 6, 9)."
    )
    return Problem(
        question=question,
        answer=", ".join(str(values[i]) for i in seen),
        extra={"probes": seen, "found": not absent, "round_up": round_up},
    )


FAMILY = Family(
    name=NAME,
    description="Values probed, in order, by an exactly specified binary search on a sorted array.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
)
