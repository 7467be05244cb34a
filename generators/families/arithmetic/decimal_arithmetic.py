"""Evaluate an expression over decimal numbers exactly.

Operands have a few decimal places; operators are ``+ - *`` with parentheses. Products of
decimals keep every digit, so the answer is an exact terminating decimal, computed with
:mod:`decimal` at ample precision. Harder levels use more operands, more decimal places,
larger integer parts and negative numbers.

Scoring parses the answer as an exact number and requires equality (``12.50`` equals
``12.5``; ``12.49`` never equals it, however close): no tolerance, so an approximation that
a relative tolerance would accept for large values does not score.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any, ClassVar

from generators.answers import score_exact_value
from generators.base import Family, Knobs, Problem

NAME = "decimal_arithmetic"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"terms": (2, 8), "max_places": (1, 6), "max_integer": (1, 10_000), "negative_share": (0.0, 1.0)}

    terms: int = 2
    max_places: int = 1
    max_integer: int = 10
    negative_share: float = 0.0


LEVELS = (
    {"terms": 2, "max_places": 2, "max_integer": 20, "negative_share": 0.0},
    {"terms": 3, "max_places": 2, "max_integer": 50, "negative_share": 0.0},
    {"terms": 3, "max_places": 3, "max_integer": 100, "negative_share": 0.2},
    {"terms": 4, "max_places": 3, "max_integer": 100, "negative_share": 0.3},
    {"terms": 5, "max_places": 3, "max_integer": 500, "negative_share": 0.3},
    {"terms": 6, "max_places": 4, "max_integer": 1000, "negative_share": 0.4},
)

_PRECEDENCE = {"+": 1, "-": 1, "*": 2}


def _operand(config: Config, rng: random.Random) -> Decimal:
    places = rng.randint(1, config.max_places)
    value = Decimal(rng.randint(1, config.max_integer * 10**places)).scaleb(-places)
    return -value if rng.random() < config.negative_share else value


def _show(value: Decimal) -> str:
    return f"({value})" if value < 0 else str(value)


def generate(config: Config, rng: random.Random) -> Problem:
    with localcontext() as context:
        context.prec = 200
        value = _operand(config, rng)
        text, precedence = _show(value), 3
        for _ in range(config.terms - 1):
            op = rng.choice(("+", "-", "*"))
            other = _operand(config, rng)
            if _PRECEDENCE[op] > precedence:
                text = f"({text})"
            text = f"{text} {op} {_show(other)}"
            value = value + other if op == "+" else value - other if op == "-" else value * other
            precedence = _PRECEDENCE[op]
    exact = Fraction(value)
    answer = format(value.normalize(), "f") if value != 0 else "0"
    if "." in answer:
        answer = answer.rstrip("0").rstrip(".")
    question = f"Calculate {text} exactly. Give the result as a decimal number with all its digits (no rounding)."
    return Problem(question, answer, {"value": f"{exact.numerator}/{exact.denominator}"})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the answer parses to exactly the value (trailing zeros allowed)."""
    return score_exact_value(answer_text, item)


FAMILY = Family(
    name=NAME,
    description="Exact value of a + - * expression over decimals (no tolerance).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:decimal_arithmetic",
)
