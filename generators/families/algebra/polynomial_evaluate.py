"""Evaluate a polynomial with integer coefficients at an integer point.

Degree, coefficient size and the size/sign of the point grow with the level; values are
computed with Horner's rule on Python integers, so they are exact at any size.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "polynomial_evaluate"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"degree": (1, 12), "max_coefficient": (1, 10_000), "max_point": (1, 1000)}

    degree: int = 1
    max_coefficient: int = 10
    max_point: int = 5
    negative_points: bool = False

    def check(self) -> None:
        if not isinstance(self.negative_points, bool):
            raise ValueError(f"Config.negative_points must be a bool, got {self.negative_points!r}")


LEVELS = (
    {"degree": 1, "max_coefficient": 10, "max_point": 10},
    {"degree": 2, "max_coefficient": 10, "max_point": 6},
    {"degree": 2, "max_coefficient": 20, "max_point": 10, "negative_points": True},
    {"degree": 3, "max_coefficient": 20, "max_point": 10, "negative_points": True},
    {"degree": 4, "max_coefficient": 30, "max_point": 12, "negative_points": True},
    {"degree": 6, "max_coefficient": 50, "max_point": 15, "negative_points": True},
)


def render(coefficients: list[int]) -> str:
    """``[c_n, ..., c_0]`` as ``3x^3 - x + 7``."""
    degree = len(coefficients) - 1
    pieces: list[str] = []
    for offset, c in enumerate(coefficients):
        power = degree - offset
        if c == 0:
            continue
        size = abs(c)
        body = "" if power == 0 else "x" if power == 1 else f"x^{power}"
        text = (str(size) if size != 1 or power == 0 else "") + body
        if not pieces:
            pieces.append(f"-{text}" if c < 0 else text)
        else:
            pieces.append(f" {'-' if c < 0 else '+'} {text}")
    return "".join(pieces) or "0"


def generate(config: Config, rng: random.Random) -> Problem:
    k = config.max_coefficient
    coefficients = [rng.randint(1, k) * rng.choice((1, -1))] + [rng.randint(-k, k) for _ in range(config.degree)]
    low = -config.max_point if config.negative_points else 0
    point = rng.randint(low, config.max_point)
    value = 0
    for c in coefficients:
        value = value * point + c
    polynomial = render(coefficients)
    question = f"Let p(x) = {polynomial}. Compute p({point}). Give a single integer."
    return Problem(question, str(value), {"polynomial": polynomial, "point": point})


FAMILY = Family(
    name=NAME,
    description="Value of an integer polynomial at an integer point.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
)
