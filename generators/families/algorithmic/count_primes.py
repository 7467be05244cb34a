"""Count the primes in an interval [a, b].

The interval's width is drawn uniformly from a wide range, so the counts are spread out
and no constant answer pays. Harder levels move the interval to larger numbers (fewer
primes per number, harder to test by hand) and widen it.
"""

from __future__ import annotations

import bisect
import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "count_primes"

LIMIT = 200_000


def _sieve(limit: int) -> tuple[int, ...]:
    flags = bytearray([1]) * (limit + 1)
    flags[0:2] = b"\x00\x00"
    for n in range(2, int(limit**0.5) + 1):
        if flags[n]:
            flags[n * n :: n] = bytearray(len(range(n * n, limit + 1, n)))
    return tuple(n for n in range(limit + 1) if flags[n])


PRIMES = _sieve(LIMIT)
"""Every prime up to ``LIMIT``: built once at import, read by bisection per item."""


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"max_start": (1, LIMIT // 2), "min_width": (1, LIMIT // 2), "max_width": (1, LIMIT // 2)}

    max_start: int = 100
    min_width: int = 10
    max_width: int = 100

    def check(self) -> None:
        if self.min_width > self.max_width:
            raise ValueError("Config.min_width must be <= max_width")


LEVELS = (
    {"max_start": 200, "min_width": 20, "max_width": 400},
    {"max_start": 1000, "min_width": 30, "max_width": 600},
    {"max_start": 5000, "min_width": 50, "max_width": 800},
    {"max_start": 20_000, "min_width": 50, "max_width": 1000},
    {"max_start": 50_000, "min_width": 100, "max_width": 1500},
    {"max_start": 90_000, "min_width": 100, "max_width": 2000},
)


def count_between(low: int, high: int) -> int:
    return bisect.bisect_right(PRIMES, high) - bisect.bisect_left(PRIMES, low)


def generate(config: Config, rng: random.Random) -> Problem:
    low = rng.randint(1, config.max_start)
    high = low + rng.randint(config.min_width, config.max_width)
    question = f"How many prime numbers are there between {low} and {high}, both inclusive? Give a single integer."
    return Problem(question, str(count_between(low, high)), {"low": low, "high": high})


FAMILY = Family(
    name=NAME,
    description="Number of primes in an interval [a, b] of widely varying width.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
    counterpart="reasoning_gym:count_primes",
)
