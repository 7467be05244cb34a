"""Greatest common divisor or least common multiple of several integers.

Numbers share a planted common factor so the GCD is rarely 1; harder levels use more and
larger numbers and mix GCD with LCM questions.

The common factor is drawn up to twice ``isqrt(max_value)`` (:func:`factor_limit`), not up
to ``isqrt(max_value)``: a small factor range piles the GCDs on a few small values, and a
constant answer would farm them. Enumerating every draw at level 0 (two numbers up to 120,
GCD only), the most frequent answer, 6, is the gold with probability 0.0429 (0.0857 with
the factor up to ``isqrt``); ``tests/generators/test_exact_priors.py`` recomputes it.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "gcd_lcm"

_MODES = ("gcd", "lcm", "mixed")


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"count": (2, 8), "max_value": (4, 10**12)}

    count: int = 2
    max_value: int = 50
    mode: str = "gcd"

    def check(self) -> None:
        if self.mode not in _MODES:
            raise ValueError(f"Config.mode must be one of {', '.join(_MODES)}, got {self.mode!r}")


LEVELS = (
    {"count": 2, "max_value": 120, "mode": "gcd"},
    {"count": 2, "max_value": 200, "mode": "mixed"},
    {"count": 3, "max_value": 1000, "mode": "mixed"},
    {"count": 3, "max_value": 10_000, "mode": "mixed"},
    {"count": 4, "max_value": 100_000, "mode": "mixed"},
    {"count": 5, "max_value": 1_000_000, "mode": "mixed"},
)


def factor_limit(max_value: int) -> int:
    """The largest planted common factor: ``2 * isqrt(max_value)``, capped at half of it so that
    every number (the factor times at least 2) stays within ``max_value``."""
    return max(1, min(2 * math.isqrt(max_value), max_value // 2))


def generate(config: Config, rng: random.Random) -> Problem:
    mode = config.mode if config.mode != "mixed" else rng.choice(("gcd", "lcm"))
    common = rng.randint(1, factor_limit(config.max_value))
    limit = max(2, config.max_value // common)
    numbers = [common * rng.randint(2 if limit >= 2 else 1, limit) for _ in range(config.count)]
    if mode == "gcd":
        answer = math.gcd(*numbers)
        what = "greatest common divisor (GCD)"
    else:
        answer = math.lcm(*numbers)
        what = "least common multiple (LCM)"
    listed = ", ".join(str(n) for n in numbers)
    question = f"Find the {what} of {listed}. Give a single integer."
    return Problem(question, str(answer), {"mode": mode, "numbers": numbers})


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:gcd",
    description="GCD or LCM of two to five integers with a planted common factor.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
)
