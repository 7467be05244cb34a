"""Triangle centres and measures: an angle, the incircle radius or the orthocentre.

Tests multi-step analytic geometry on a triangle with integer corners: the angle at a corner
(dot product and arccos), the inradius (area over semi-perimeter, three square roots) or the
orthocentre (two altitudes, an exact linear system). Harder levels widen the coordinates and
mix in the longer tasks. Angles and radii are rounded half-up to the places the question
states; the orthocentre is exact (``(3/2, -4)`` == ``(1.5, -4)``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
from generators.base import Family, Knobs, Problem
from generators.families._geom import (
    circumcentre,
    cross,
    decimal_string,
    format_point,
    score_number,
    score_point,
    show_point,
)

NAME = "advanced_geometry"

_TASKS = ("angle", "incircle_radius", "orthocenter")
"""In the order the ``tasks`` knob unlocks them."""


@dataclass(frozen=True)
class Config(Knobs):
    span: int = 8
    """Corner coordinates are integers in [-span, span]."""
    tasks: int = 1
    """How many of angle / incircle radius / orthocentre are drawn from (in that order)."""
    places: int = 2
    """Decimal places of a rounded answer (angles in degrees, radii)."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "span": (3, 10**5),
        "tasks": (1, 3),
        "places": (1, 6),
    }


LEVELS: tuple[dict[str, object], ...] = (
    {"span": 8, "tasks": 1, "places": 2},
    {"span": 10, "tasks": 2, "places": 2},
    {"span": 10, "tasks": 3, "places": 2},
    {"span": 15, "tasks": 3, "places": 3},
    {"span": 30, "tasks": 3, "places": 3},
    {"span": 60, "tasks": 3, "places": 3},
)

_LABELS = "ABC"


def _sqrt(value: int) -> Decimal:
    return Decimal(value).sqrt()


def generate(config: Config, rng: random.Random) -> Problem:
    while True:
        pts = [(rng.randint(-config.span, config.span), rng.randint(-config.span, config.span)) for _ in range(3)]
        if cross(*pts):
            break
    task = _TASKS[rng.randrange(config.tasks)]
    named = ", ".join(f"{_LABELS[i]} = {show_point(p)}" for i, p in enumerate(pts))
    rounding = f"Round to {config.places} decimal places (round half up) and answer with the number only."
    extra: dict[str, Any] = {"task": task, "points": [list(p) for p in pts]}
    if task == "angle":
        k = rng.randrange(3)
        here, u, v = pts[k], pts[(k + 1) % 3], pts[(k + 2) % 3]
        a = (u[0] - here[0], u[1] - here[1])
        b = (v[0] - here[0], v[1] - here[1])
        degrees = math.degrees(math.atan2(abs(a[0] * b[1] - a[1] * b[0]), a[0] * b[0] + a[1] * b[1]))
        gold = decimal_string(degrees, config.places)
        ask = f"What is the interior angle of the triangle at corner {_LABELS[k]}, in degrees? {rounding}"
        extra["vertex"] = _LABELS[k]
    elif task == "incircle_radius":
        with localcontext() as ctx:
            ctx.prec = 50
            sides = [_sqrt((pts[i][0] - pts[i - 1][0]) ** 2 + (pts[i][1] - pts[i - 1][1]) ** 2) for i in range(3)]
            radius = Decimal(abs(cross(*pts))) / sum(sides, Decimal(0))  # r = area / s = |cross| / perimeter
            gold = decimal_string(Fraction(radius), config.places)
        ask = f"What is the radius of the circle inscribed in the triangle (its incircle)? {rounding}"
    else:
        ox, oy = circumcentre(pts)
        hx = sum(p[0] for p in pts) - 2 * ox  # Euler: H = A + B + C - 2 O
        hy = sum(p[1] for p in pts) - 2 * oy
        gold = format_point((hx, hy))
        ask = (
            "What is the orthocentre of the triangle (where its three altitudes meet)? Answer with its exact "
            "coordinates as (x, y): each an integer, a fraction in lowest terms such as -7/3, or a terminating "
            "decimal such as 2.5."
        )
    question = f"Consider the triangle with corners {named}.\n{ask}"
    return Problem(question, gold, extra)


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """The orthocentre exactly; angles and radii equal to the rounded gold (a unit allowed)."""
    try:
        if item["metadata"]["task"] == "orthocenter":
            return score_point(answer_text, str(item["answer"]))
        return score_number(answer_text, str(item["answer"]))
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    description="Angle at a corner, incircle radius (rounded) or exact orthocentre of a lattice triangle.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:advanced_geometry",
)
