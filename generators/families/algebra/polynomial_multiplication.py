"""Expand a product of polynomials into one polynomial.

The question multiplies two to four polynomials in one variable, each written in a random
mix of term orders; the answer is the expanded product. Harder levels multiply more
factors of higher degree with larger coefficients, so there are more cross terms to
collect and more carries between like powers.

Any equivalent expanded form is right (terms in any order, ``x**2`` or ``x^2``, like terms
not yet combined), so the scorer parses the answer into coefficients with the bounded
linear parser of ``_poly`` and compares those; a factored or partial answer does not parse
or does not match.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer
from generators.base import Family, Knobs, Problem
from generators.families._poly import format_polynomial, multiply, parse_polynomial

NAME = "polynomial_multiplication"

VARIABLES = ("x", "y", "z", "t", "a", "b", "n", "k")


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"factors": (2, 4), "max_degree": (1, 6), "max_terms": (1, 5), "max_coefficient": (1, 100)}

    factors: int = 2
    """How many polynomials are multiplied."""
    max_degree: int = 1
    max_terms: int = 2
    """Most non-zero terms in one factor."""
    max_coefficient: int = 5


LEVELS = (
    {"factors": 2, "max_degree": 1, "max_terms": 2, "max_coefficient": 9},
    {"factors": 2, "max_degree": 2, "max_terms": 2, "max_coefficient": 9},
    {"factors": 2, "max_degree": 3, "max_terms": 3, "max_coefficient": 12},
    {"factors": 3, "max_degree": 3, "max_terms": 3, "max_coefficient": 12},
    {"factors": 3, "max_degree": 4, "max_terms": 3, "max_coefficient": 15},
    {"factors": 4, "max_degree": 4, "max_terms": 3, "max_coefficient": 15},
)


def _factor(config: Config, rng: random.Random) -> dict[int, int]:
    degree = rng.randint(1, config.max_degree)
    count = rng.randint(min(2, config.max_terms), min(config.max_terms, degree + 1))
    powers = [degree, *rng.sample(range(degree), count - 1)]
    return {p: rng.randint(1, config.max_coefficient) * rng.choice((1, -1)) for p in powers}


def _shuffled(poly: dict[int, int], var: str, rng: random.Random) -> str:
    """The factor with its terms in a random order, so the question is not already sorted."""
    terms = [format_polynomial({p: c}, var) for p, c in sorted(poly.items(), reverse=True)]
    rng.shuffle(terms)
    text = terms[0]
    for term in terms[1:]:
        text += f" - {term[1:]}" if term.startswith("-") else f" + {term}"
    return text


def generate(config: Config, rng: random.Random) -> Problem:
    var = rng.choice(VARIABLES)
    factors = [_factor(config, rng) for _ in range(config.factors)]
    product: dict[int, int] = {0: 1}
    for factor in factors:
        product = multiply(product, factor)
    shown = " * ".join(f"({_shuffled(f, var, rng)})" for f in factors)
    question = (
        f"Expand and simplify the product {shown}.\n"
        f"Write the result as a polynomial in {var} with like terms combined, for example "
        f"3{var}^2 - 2{var} + 5 (use ^ for powers)."
    )
    answer = format_polynomial(product, var)
    coefficients = {str(p): str(c) for p, c in sorted(product.items())}
    return Problem(question, answer, {"variable": var, "coefficients": coefficients})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the answer, parsed into coefficients, is the product (any expanded form)."""
    try:
        meta = item.get("metadata") or {}
        var = str(meta["variable"])
        want = {int(p): Fraction(c) for p, c in dict(meta["coefficients"]).items()}
        got = parse_polynomial(extract_answer(answer_text), var)
        return 1.0 if got is not None and got == want else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """The product with its constant term bumped, and with its leading term dropped."""
    meta = item["metadata"]
    var = str(meta["variable"])
    want = {int(p): Fraction(c) for p, c in dict(meta["coefficients"]).items()}
    bumped = dict(want)
    bumped[0] = bumped.get(0, Fraction(0)) + 1
    top = max(want)
    partial = {p: c for p, c in want.items() if p != top} or {0: Fraction(1)}
    return [format_polynomial({p: c for p, c in bumped.items() if c}, var), format_polynomial(partial, var)]


FAMILY = Family(
    name=NAME,
    description="Expand a product of 2-4 one-variable polynomials (any equivalent expanded form is parsed).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:polynomial_multiplication",
)
