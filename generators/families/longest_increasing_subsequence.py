"""Length of the longest strictly increasing subsequence.

Tests dynamic programming over a sequence, where the elements need not be adjacent.
Harder levels lengthen the sequence, allow repeated values (which do not count as
increasing), and with ``run_trap`` keep only sequences whose longest contiguous
increasing run is shorter than the answer, so the "longest run" misreading scores zero.
"""

from __future__ import annotations

import bisect
import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "longest_increasing_subsequence"

_MAX_TRIES = 100


@dataclass(frozen=True)
class Config(Knobs):
    length: int = 6
    max_value: int = 20
    run_trap: bool = False

    RANGES: ClassVar = {"length": (3, 80), "max_value": (3, 10_000)}


LEVELS = (
    {"length": 5, "max_value": 20},
    {"length": 8, "max_value": 30},
    {"length": 12, "max_value": 40, "run_trap": True},
    {"length": 18, "max_value": 30, "run_trap": True},
    {"length": 25, "max_value": 50, "run_trap": True},
    {"length": 35, "max_value": 60, "run_trap": True},
)


def lis_length(seq: list[int]) -> int:
    """Patience sorting; ``bisect_left`` makes the subsequence strictly increasing."""
    tails: list[int] = []
    for x in seq:
        i = bisect.bisect_left(tails, x)
        if i == len(tails):
            tails.append(x)
        else:
            tails[i] = x
    return len(tails)


def longest_run(seq: list[int]) -> int:
    best = run = 1
    for prev, cur in zip(seq, seq[1:]):
        run = run + 1 if cur > prev else 1
        best = max(best, run)
    return best


def generate(config: Config, rng: random.Random) -> Problem:
    for _ in range(_MAX_TRIES):
        seq = [rng.randint(1, config.max_value) for _ in range(config.length)]
        answer = lis_length(seq)
        if not config.run_trap or longest_run(seq) < answer:
            break
    question = (
        f"Sequence: {', '.join(map(str, seq))}.\n"
        "What is the length of the longest strictly increasing subsequence? A subsequence keeps "
        "the original order but may skip elements; equal values do not count as increasing. "
        "Answer with the length as an integer."
    )
    return Problem(question=question, answer=str(answer), extra={"sequence": seq})


FAMILY = Family(
    name=NAME,
    description="Length of the longest strictly increasing subsequence of an integer list.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
)
