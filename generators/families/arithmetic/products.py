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


_LOWEST = {digits: max(2, 10 ** (digits - 1)) for digits in range(1, 9)}
_VALUE_RANGES = {digits: (low, 10**digits - low) for digits, low in _LOWEST.items()}
"""Per digit count: the lowest value and how many values there are (a ``randint`` range)."""


def generate(config: Config, rng: random.Random) -> Problem:
    # Both ``rng.randint`` calls per term with their draws inline (same getrandbits calls).
    getrandbits, uniform = rng.getrandbits, rng.random
    low_digits = config.min_digits
    digit_span = config.max_digits - low_digits + 1
    digit_bits = digit_span.bit_length()
    negative_share = config.negative_share
    numbers = []
    product = 1
    for _ in range(config.terms):
        r = getrandbits(digit_bits)
        while r >= digit_span:
            r = getrandbits(digit_bits)
        low, span = _VALUE_RANGES[low_digits + r]
        width = span.bit_length()
        r = getrandbits(width)
        while r >= span:
            r = getrandbits(width)
        value = low + r
        if uniform() < negative_share:
            value = -value
        numbers.append(value)
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
