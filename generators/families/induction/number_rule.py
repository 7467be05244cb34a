"""Induce a hidden integer function f(x) from (x, f(x)) pairs and evaluate it at a new x.

Tests function induction from scattered samples: unlike a sequence, the x values are not
consecutive, so differences cannot simply be read off. Rules are polynomials (degree 1 to
3 as levels rise), functions with one linear rule for even and another for odd x, and
exponentials ``c * b**x + d``. Harder levels unlock the higher degrees and the other
shapes, use larger coefficients and spread x wider.

The pairs are checked to determine the answer: every rule shape of the level (a polynomial
of degree up to the level's maximum, a parity-split line pair, an exponential with base 2
or 3), fitted exactly to the pairs with rational coefficients, either fails to reproduce
them or gives the gold at the query; otherwise another pair is shown.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem

NAME = "number_rule"

_SHAPES = ("polynomial", "parity", "exponential")
_MAX_TRIES = 40

Pairs = list[tuple[int, int]]


@dataclass(frozen=True)
class Config(Knobs):
    degree: int = 1
    shapes: int = 1
    """Rule shapes unlocked, in the order of ``_SHAPES``."""
    max_coefficient: int = 5
    max_x: int = 10

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "degree": (1, 4),
        "shapes": (1, len(_SHAPES)),
        "max_coefficient": (1, 50),
        "max_x": (5, 30),
    }


LEVELS = (
    {"degree": 1, "shapes": 1, "max_coefficient": 9, "max_x": 10},
    {"degree": 2, "shapes": 1, "max_coefficient": 5, "max_x": 10},
    {"degree": 2, "shapes": 2, "max_coefficient": 9, "max_x": 12},
    {"degree": 3, "shapes": 2, "max_coefficient": 9, "max_x": 12},
    {"degree": 3, "shapes": 3, "max_coefficient": 12, "max_x": 15},
    {"degree": 3, "shapes": 3, "max_coefficient": 20, "max_x": 20},
)


def _lagrange(points: Pairs, x: int) -> Fraction:
    total = Fraction(0)
    for i, (xi, yi) in enumerate(points):
        term = Fraction(yi)
        for j, (xj, _) in enumerate(points):
            if i != j:
                term *= Fraction(x - xj, xi - xj)
        total += term
    return total


def _polynomial_fit(pairs: Pairs, degree: int, x: int) -> tuple[bool, Fraction | None]:
    """(whether a polynomial of degree <= ``degree`` goes through the pairs, its value at
    ``x``); the value is None when too few pairs leave it open."""
    if len(pairs) <= degree:
        return True, None
    base = pairs[: degree + 1]
    if any(_lagrange(base, xi) != yi for xi, yi in pairs[degree + 1 :]):
        return False, None
    return True, _lagrange(base, x)


def predictions(pairs: Pairs, x: int, degree: int, shapes: int) -> list[Fraction | None]:
    """What each rule shape of the level that fits ``pairs`` says f(x) is; None for a shape
    that fits but is not pinned down (ambiguous). Shapes that do not fit are left out."""
    out: list[Fraction | None] = []
    fits, value = _polynomial_fit(pairs, degree, x)
    if fits:
        out.append(value)
    if shapes >= 2:
        side = [(xi, yi) for xi, yi in pairs if xi % 2 == x % 2]
        other = [(xi, yi) for xi, yi in pairs if xi % 2 != x % 2]
        fits_side, value = _polynomial_fit(side, 1, x)
        if fits_side and _polynomial_fit(other, 1, x)[0]:
            out.append(value)
    if shapes >= 3:
        for base in (2, 3):
            # y = c * t + d is a line in t = base**x
            points = [(Fraction(base) ** xi, Fraction(yi)) for xi, yi in pairs]
            (t0, y0), (t1, y1) = points[0], points[1]
            c = (y1 - y0) / (t1 - t0)
            d = y0 - c * t0
            if all(c * t + d == y for t, y in points):
                out.append(c * Fraction(base) ** x + d)
    return out


def _rule(shape: str, config: Config, rng: random.Random) -> tuple[str, Any]:
    k = config.max_coefficient
    if shape == "polynomial":
        degree = rng.randint(1, config.degree)
        coefficients = [rng.randint(-k, k) for _ in range(degree)] + [rng.choice([c for c in range(-k, k + 1) if c])]
        return shape, coefficients
    if shape == "parity":
        lines = [(rng.randint(-k, k), rng.randint(-k, k)) for _ in range(2)]
        if lines[0] == lines[1]:
            lines[1] = (lines[1][0], lines[1][1] + 1)
        return shape, lines
    return shape, (rng.choice((2, 3)), rng.choice([c for c in range(-3, 4) if c]), rng.randint(-k, k))


def _apply(rule: tuple[str, Any], x: int) -> int:
    shape, params = rule
    if shape == "polynomial":
        return int(sum(c * x**i for i, c in enumerate(params)))
    if shape == "parity":
        a, b = params[x % 2]
        return int(a * x + b)
    base, c, d = params
    return int(c * base**x + d)


def generate(config: Config, rng: random.Random) -> Problem:
    for _ in range(_MAX_TRIES):
        shape = rng.choice(_SHAPES[: config.shapes])
        rule = _rule(shape, config, rng)
        low = 0 if shape == "exponential" else -config.max_x // 2
        high = min(config.max_x, 9) if shape == "exponential" else config.max_x
        xs = rng.sample(range(low, high + 1), min(high - low + 1, config.degree + 5))
        query, shown = xs[0], sorted(xs[1 : config.degree + 3])
        pool = xs[config.degree + 3 :]
        pairs = [(x, _apply(rule, x)) for x in shown]
        answer = _apply(rule, query)
        while True:
            guesses = predictions(pairs, query, config.degree, config.shapes)
            if all(guess == answer for guess in guesses):
                break
            if not pool:
                break
            x = pool.pop()
            pairs = sorted([*pairs, (x, _apply(rule, x))])
        if all(guess == answer for guess in guesses) and len({y for _, y in pairs}) > 1:
            break
    else:
        raise ValueError("number_rule: no item whose pairs fix the answer")
    listing = "\n".join(f"f({x}) = {y}" for x, y in pairs)
    question = (
        f"A hidden rule f maps integers to integers. Known values:\n{listing}\n\n"
        f"What is f({query})? Answer with one integer."
    )
    return Problem(question, str(answer), {"shape": shape, "query": query, "pairs": len(pairs)})


FAMILY = Family(
    name=NAME,
    description="f(x) at a new x for a hidden polynomial, parity-split or exponential rule given scattered pairs.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
)
