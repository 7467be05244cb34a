"""Solve a linear equation in one unknown.

Levels move from ``ax + b = c`` to unknowns on both sides, then brackets to expand, then
rational solutions. Equations are built backwards from the solution, so the answer is
exact by construction.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

from generators.answers import format_number
from generators.base import Family, Knobs, Problem

NAME = "linear_equation"

_FORMS = ("simple", "both_sides", "brackets")


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"max_coefficient": (2, 10_000), "max_solution": (1, 10**6), "max_denominator": (1, 100)}

    max_coefficient: int = 9
    max_solution: int = 10
    max_denominator: int = 1
    form: str = "simple"

    def check(self) -> None:
        if self.form not in _FORMS:
            raise ValueError(f"Config.form must be one of {', '.join(_FORMS)}, got {self.form!r}")


LEVELS = (
    {"max_coefficient": 9, "max_solution": 10, "form": "simple"},
    {"max_coefficient": 20, "max_solution": 30, "form": "simple"},
    {"max_coefficient": 15, "max_solution": 30, "form": "both_sides"},
    {"max_coefficient": 12, "max_solution": 50, "form": "brackets"},
    {"max_coefficient": 30, "max_solution": 100, "max_denominator": 6, "form": "both_sides"},
    {"max_coefficient": 50, "max_solution": 200, "max_denominator": 12, "form": "brackets"},
)


def _nonzero(rng: random.Random, bound: int) -> int:
    value = rng.randint(1, bound)
    return value if rng.random() < 0.5 else -value


def _linear(coefficient: int, constant: int, variable: str = "x") -> str:
    if coefficient == 0:
        return str(constant)
    head = {1: variable, -1: f"-{variable}"}.get(coefficient, f"{coefficient}{variable}")
    if constant == 0:
        return head
    return f"{head} {'+' if constant > 0 else '-'} {abs(constant)}"


def _bracket(outer: int, inner: int) -> str:
    inside = f"x {'+' if inner >= 0 else '-'} {abs(inner)}"
    return f"{outer}({inside})" if outer != 1 else f"({inside})"


def generate(config: Config, rng: random.Random) -> Problem:
    den = rng.randint(1, config.max_denominator)
    x = Fraction(rng.randint(-config.max_solution, config.max_solution), den)
    k = config.max_coefficient
    if config.form == "simple":
        a = _nonzero(rng, k) * den
        b = rng.randint(-k * 5, k * 5)
        equation = f"{_linear(a, b)} = {a * x + b}"
    elif config.form == "both_sides":
        c = _nonzero(rng, k)
        a = c + _nonzero(rng, k) * den
        b = rng.randint(-k * 5, k * 5)
        rhs = (a - c) * x + b
        equation = f"{_linear(a, b)} = {_linear(c, int(rhs))}"
    else:
        a = rng.randint(2, k)
        d = a - _nonzero(rng, max(1, k // den)) * den
        if d == 0:
            d = a + den
        b, c, e = rng.randint(-k, k), rng.randint(-k, k), rng.randint(-k, k)
        f = (a - d) * x + a * b + c - d * e
        right = _bracket(d, e) + (f" {'+' if f >= 0 else '-'} {abs(int(f))}" if f else "")
        left = _bracket(a, b) + (f" {'+' if c >= 0 else '-'} {abs(c)}" if c else "")
        equation = f"{left} = {right}"
    question = f"Solve for x: {equation}. Give x as an integer or a fraction in lowest terms."
    return Problem(question, format_number(x), {"equation": equation})


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:simple_equations",
    description="Solve a linear equation in x, built backwards from its solution.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="number",
)
