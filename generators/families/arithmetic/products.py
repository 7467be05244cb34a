"""Multiply several integers.

A chain of products with operands of a given number of digits, some negative at harder
levels. Harder levels multiply more and longer numbers, so partial products and carries
pile up; the answer is one exact integer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "products"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"terms": (2, 8), "min_digits": (1, 8), "max_digits": (1, 8), "negative_share": (0.0, 1.0)}

    terms: int = 2
    min_digits: int = 1
    max_digits: int = 2
    negative_share: float = 0.0

    def check(self) -> None:
        if self.min_digits > self.max_digits:
            raise ValueError("Config.min_digits must be <= max_digits")


LEVELS = (
    {"terms": 2, "min_digits": 1, "max_digits": 2, "negative_share": 0.0},
    {"terms": 2, "min_digits": 2, "max_digits": 3, "negative_share": 0.0},
    {"terms": 3, "min_digits": 2, "max_digits": 3, "negative_share": 0.2},
    {"terms": 3, "min_digits": 2, "max_digits": 4, "negative_share": 0.3},
    {"terms": 4, "min_digits": 3, "max_digits": 4, "negative_share": 0.3},
    {"terms": 5, "min_digits": 3, "max_digits": 5, "negative_share": 0.4},
)


def generate(config: Config, rng: random.Random) -> Problem:
    numbers = []
    for _ in range(config.terms):
        digits = rng.randint(config.min_digits, config.max_digits)
        value = rng.randint(max(2, 10 ** (digits - 1)), 10**digits - 1)
        numbers.append(-value if rng.random() < config.negative_share else value)
    product = 1
    for value in numbers:
        product *= value
    shown = " * ".join(f"({v})" if v < 0 else str(v) for v in numbers)
    return Problem(f"Calculate {shown}. Give the exact integer.", str(product), {"numbers": numbers})


FAMILY = Family(
    name=NAME,
    description="Exact product of 2-5 integers of growing length, some negative.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
    counterpart="reasoning_gym:products",
)
