"""Pick the largest or smallest of several numbers written in different formats.

The same kind of quantity is written plainly (``556952416.67``), with thousands separators
(``556,952,416.67``) or in scientific notation (``5.5695241667e+08``), and the values are
close to each other, so the solver has to normalise the formats before comparing. Harder
levels show more options, closer together, with more digits.

The answer is the chosen number, in any of those formats, compared by exact value; the
option's position ("option 2") or a rounded value scores 0.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, ClassVar

from generators.answers import score_exact_value
from generators.base import Family, Knobs, Problem

NAME = "number_format"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"options": (2, 10), "min_digits": (1, 12), "max_digits": (1, 12), "closeness": (0, 6)}

    options: int = 3
    min_digits: int = 3
    max_digits: int = 5
    closeness: int = 1
    """Options differ from the first one by about 10**-closeness of its size."""

    def check(self) -> None:
        if self.min_digits > self.max_digits:
            raise ValueError("Config.min_digits must be <= max_digits")


LEVELS = (
    {"options": 3, "min_digits": 3, "max_digits": 5, "closeness": 1},
    {"options": 4, "min_digits": 4, "max_digits": 6, "closeness": 1},
    {"options": 4, "min_digits": 5, "max_digits": 7, "closeness": 2},
    {"options": 5, "min_digits": 6, "max_digits": 8, "closeness": 2},
    {"options": 6, "min_digits": 6, "max_digits": 9, "closeness": 3},
    {"options": 7, "min_digits": 7, "max_digits": 10, "closeness": 4},
)


def _plain(value: Decimal) -> str:
    return format(value, "f")


def _commas(value: Decimal) -> str:
    whole, _, frac = format(value, "f").partition(".")
    sign = "-" if whole.startswith("-") else ""
    whole = whole.lstrip("-")
    grouped = f"{int(whole):,}"
    return sign + grouped + (f".{frac}" if frac else "")


def _scientific(value: Decimal) -> str:
    digits = len(value.as_tuple().digits)
    return f"{value:.{max(digits - 1, 0)}e}"


_FORMATS = (_plain, _commas, _scientific)


def generate(config: Config, rng: random.Random) -> Problem:
    digits = rng.randint(config.min_digits, config.max_digits)
    places = rng.randint(0, 2)
    base = rng.randint(10 ** (digits - 1), 10**digits - 1)
    spread = max(1, base // 10**config.closeness)
    values: list[Decimal] = []
    while len(values) < config.options:
        value = Decimal(max(1, base + rng.randint(-spread, spread)) * 10**places + rng.randint(0, 10**places - 1))
        value = value.scaleb(-places)
        if value not in values:
            values.append(value)
    largest = rng.random() < 0.5
    chosen = max(values) if largest else min(values)
    shown = "\n".join(f"{i}) {rng.choice(_FORMATS)(v)}" for i, v in enumerate(values, 1))
    question = (
        f"Which of these numbers is the {'largest' if largest else 'smallest'}?\n{shown}\n"
        "Give the number's value itself (in any of these formats), not its option number."
    )
    exact = Fraction(chosen)
    return Problem(question, _plain(chosen), {"value": f"{exact.numerator}/{exact.denominator}"})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the answer's exact value is the chosen number's."""
    return score_exact_value(answer_text, item)


FAMILY = Family(
    name=NAME,
    description="Largest or smallest of close numbers written plainly, with separators or in scientific notation.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="number",
    score=score,
    counterpart="reasoning_gym:number_format",
)
