"""Indefinite integral of a polynomial.

The question asks for an antiderivative of a polynomial with integer coefficients; most
terms integrate to fractional coefficients (``7x^3`` -> ``(7/4)x^4``), which is where the
work is. Harder levels have more terms, higher powers and larger coefficients.

Any antiderivative is right, so the scorer differentiates the parsed answer and compares
it with the integrand: terms in any order, fractions written as ``x^4/4`` or ``(1/4)x^4``,
with or without ``+ C`` (or any constant). A derivative, a partial answer or a list of
candidates does not differentiate back to the integrand.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer
from generators.base import Family, Knobs, Problem
from generators.families._poly import differentiate, format_polynomial, parse_polynomial

NAME = "simple_integration"

VARIABLES = ("x", "y", "z", "t", "u", "w")
CONSTANTS = ("C", "K")
"""Names a constant of integration may take; such a stand-alone term is ignored."""


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"min_terms": (1, 8), "max_terms": (1, 8), "max_power": (1, 12), "max_coefficient": (1, 100)}

    min_terms: int = 1
    max_terms: int = 2
    max_power: int = 2
    max_coefficient: int = 9

    def check(self) -> None:
        if self.min_terms > self.max_terms:
            raise ValueError("Config.min_terms must be <= max_terms")
        if self.max_terms > self.max_power + 1:
            raise ValueError("Config.max_terms must be <= max_power + 1 (one term per power)")


LEVELS = (
    {"min_terms": 1, "max_terms": 2, "max_power": 3, "max_coefficient": 9},
    {"min_terms": 2, "max_terms": 3, "max_power": 4, "max_coefficient": 12},
    {"min_terms": 2, "max_terms": 4, "max_power": 5, "max_coefficient": 20},
    {"min_terms": 3, "max_terms": 4, "max_power": 6, "max_coefficient": 30},
    {"min_terms": 3, "max_terms": 5, "max_power": 8, "max_coefficient": 50},
    {"min_terms": 4, "max_terms": 6, "max_power": 10, "max_coefficient": 99},
)


def _integrand(meta: Mapping[str, Any]) -> dict[int, Fraction]:
    return {int(p): Fraction(c) for p, c in dict(meta["integrand"]).items()}


def generate(config: Config, rng: random.Random) -> Problem:
    var = rng.choice(VARIABLES)
    count = rng.randint(config.min_terms, config.max_terms)
    powers = rng.sample(range(config.max_power + 1), count)
    integrand = {p: Fraction(rng.randint(1, config.max_coefficient) * rng.choice((1, -1))) for p in powers}
    antiderivative = {p + 1: c / (p + 1) for p, c in integrand.items()}
    question = (
        f"Find the indefinite integral of {format_polynomial(integrand, var)} with respect to {var}.\n"
        f"Give one antiderivative as a polynomial in {var}, with exact fractions where needed "
        f"(for example (3/4){var}^4 - 2{var} + C); the constant of integration + C is optional."
    )
    answer = format_polynomial(antiderivative, var) + " + C"
    return Problem(
        question, answer, {"variable": var, "integrand": {str(p): str(c) for p, c in sorted(integrand.items())}}
    )


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the parsed answer differentiates to the integrand (any constant allowed)."""
    try:
        meta = item.get("metadata") or {}
        var = str(meta["variable"])
        want = _integrand(meta)
        got = parse_polynomial(extract_answer(answer_text), var, drop=CONSTANTS)
        return 1.0 if got is not None and got and differentiate(got) == want else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """The integrand itself, and the antiderivative without its division by the new power
    (doubled instead where every power is 0, as undivided it would be the gold)."""
    meta = item["metadata"]
    var = str(meta["variable"])
    want = _integrand(meta)
    scale = 2 if set(want) <= {0} else 1
    undivided = {p + 1: scale * c for p, c in want.items()}
    return [format_polynomial(want, var), format_polynomial(undivided, var) + " + C"]


FAMILY = Family(
    name=NAME,
    description="An antiderivative of a polynomial (checked by differentiating the parsed answer; + C optional).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:simple_integration",
)
