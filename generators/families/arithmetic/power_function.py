"""An exact power: a base (integer or short decimal, possibly negative) to an integer exponent.

Negative exponents turn the answer into a fraction (``2^-3 = 1/8``), negative bases
alternate the sign, and decimal bases need the decimal point placed right. Harder levels
use larger bases and exponents and mix in decimal bases and negative exponents.

The answer is exact: an integer, a fraction in lowest terms or a terminating decimal,
compared by exact value (``0.125`` and ``1/8`` are both right); there is no tolerance, so a
rounded value does not score.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from math import gcd
from typing import Any, ClassVar

from generators.answers import score_exact_value
from generators.base import Family, Knobs, Problem

NAME = "power_function"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {
        "max_base": (2, 100),
        "max_exponent": (1, 40),
        "negative_exponents": (0.0, 1.0),
        "decimal_bases": (0.0, 1.0),
    }

    max_base: int = 9
    max_exponent: int = 4
    negative_exponents: float = 0.0
    """Share of items with a negative exponent."""
    decimal_bases: float = 0.0
    """Share of items whose base has one decimal place (``1.5``, ``-0.3``)."""


LEVELS = (
    {"max_base": 30, "max_exponent": 6, "negative_exponents": 0.0, "decimal_bases": 0.0},
    {"max_base": 30, "max_exponent": 7, "negative_exponents": 0.2, "decimal_bases": 0.0},
    {"max_base": 30, "max_exponent": 8, "negative_exponents": 0.3, "decimal_bases": 0.2},
    {"max_base": 35, "max_exponent": 10, "negative_exponents": 0.3, "decimal_bases": 0.3},
    {"max_base": 40, "max_exponent": 12, "negative_exponents": 0.4, "decimal_bases": 0.4},
    {"max_base": 50, "max_exponent": 15, "negative_exponents": 0.4, "decimal_bases": 0.5},
)


@cache
def _tenths(max_base: int) -> tuple[int, ...]:
    """Decimal bases in tenths up to a quarter of ``max_base``, whole numbers left out."""
    return tuple(v for v in range(1, 10 * max_base // 4 + 1) if v % 10)


def generate(config: Config, rng: random.Random) -> Problem:
    # The power is computed on a numerator/denominator pair in lowest terms (a power of
    # such a pair stays in lowest terms), the same value and text as with ``Fraction``.
    if rng.random() < config.decimal_bases:
        tenths = rng.choice(_tenths(config.max_base))
        common = gcd(tenths, 10)
        numerator, denominator = tenths // common, 10 // common
        shown = f"{tenths // 10}.{tenths % 10}"
        exponent_cap = max(2, config.max_exponent // 2)
    else:
        numerator, denominator = rng.randint(2, config.max_base), 1
        shown = str(numerator)
        exponent_cap = config.max_exponent
    if rng.random() < 0.3:
        numerator, shown = -numerator, f"-{shown}"
    exponent = rng.randint(2 if exponent_cap > 2 else 1, exponent_cap)
    if rng.random() < config.negative_exponents:
        exponent = -exponent
    if exponent >= 0:
        top, bottom = numerator**exponent, denominator**exponent
    else:
        top, bottom = denominator**-exponent, numerator**-exponent
        if bottom < 0:
            top, bottom = -top, -bottom
    text = str(top) if bottom == 1 else f"{top}/{bottom}"
    kind = "an integer" if bottom == 1 else "a fraction in lowest terms or an exact decimal"
    question = f"Compute ({shown})^({exponent}) exactly. Give {kind}, with no rounding."
    return Problem(question, text, {"value": text})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the answer is exactly the power (integer, fraction or exact decimal)."""
    return score_exact_value(answer_text, item)


FAMILY = Family(
    name=NAME,
    description="Exact power of an integer or one-decimal base to a (possibly negative) integer exponent.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:power_function",
    notes="Level 0 (integer bases up to 30, exponents 2..6, either sign) has about 290 distinct items.",
)
