"""The circle through three given points: its exact centre or the square of its radius.

Tests the circumcentre construction (perpendicular bisectors, i.e. a 2x2 linear system) and
exact arithmetic. Easy levels place the points on a lattice circle around a whole centre;
harder levels widen the coordinates and draw the points freely, so the centre has fractional
coordinates and the squared radius is a fraction. The answer is exact: the centre as
``(x, y)`` or the squared radius as one number (``1.5`` == ``3/2``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, format_number
from generators.base import Family, Knobs, Problem
from generators.families._geom import circumcentre, cross, format_point, score_number, score_point, show_point

NAME = "circle_through_points"

_ASKS = ("center", "radius_squared")


@dataclass(frozen=True)
class Config(Knobs):
    span: int = 6
    """Coordinates (and lattice radii) are bounded by span."""
    free_share: float = 0.0
    """Share of items whose three points are drawn freely (fractional centre) rather than on a
    lattice circle around a whole centre."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "span": (5, 10**5),
        "free_share": (0.0, 1.0),
    }


LEVELS: tuple[dict[str, object], ...] = (
    {"span": 6, "free_share": 0.0},
    {"span": 10, "free_share": 0.0},
    {"span": 12, "free_share": 0.4},
    {"span": 20, "free_share": 0.7},
    {"span": 30, "free_share": 1.0},
    {"span": 50, "free_share": 1.0},
)


@cache
def _rings(limit: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Lattice points grouped by squared distance from the origin (at least 2, at most ``limit``)."""
    groups: dict[int, list[tuple[int, int]]] = {}
    for x in range(-limit, limit + 1):
        for y in range(-limit, limit + 1):
            if 0 < x * x + y * y <= limit * limit:
                groups.setdefault(x * x + y * y, []).append((x, y))
    return tuple(tuple(groups[key]) for key in sorted(groups) if key >= 4)


def _lattice(rng: random.Random, span: int) -> list[tuple[int, int]]:
    ring = rng.choice(_rings(min(span, 30)))
    cx, cy = rng.randint(-span, span), rng.randint(-span, span)
    return [(cx + x, cy + y) for x, y in rng.sample(ring, 3)]


def _free(rng: random.Random, span: int) -> list[tuple[int, int]]:
    while True:
        pts = [(rng.randint(-span, span), rng.randint(-span, span)) for _ in range(3)]
        if cross(*pts):
            return pts


def generate(config: Config, rng: random.Random) -> Problem:
    pts = _free(rng, config.span) if rng.random() < config.free_share else _lattice(rng, config.span)
    ux, uy = circumcentre(pts)
    r2 = (ux - pts[0][0]) ** 2 + (uy - pts[0][1]) ** 2
    if any((ux - x) ** 2 + (uy - y) ** 2 != r2 for x, y in pts):
        raise ValueError("circle_through_points: centre is not equidistant")
    ask = rng.choice(_ASKS)
    listed = ", ".join(show_point(p) for p in pts)
    if ask == "center":
        what = (
            "What is the centre of the circle? Answer with its exact coordinates as (x, y): each an integer, "
            "a fraction in lowest terms such as -7/3, or a terminating decimal such as 2.5."
        )
        gold = format_point((ux, uy))
    else:
        what = (
            "What is the square of the circle's radius? Answer with one exact number: an integer, a fraction "
            "in lowest terms such as 65/4, or a terminating decimal such as 16.25."
        )
        gold = format_number(r2)
    question = f"Exactly one circle passes through the three points {listed}.\n{what}"
    return Problem(question, gold, {"ask": ask, "points": [list(p) for p in pts]})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """Exact equality with the centre (x, y) or with the squared radius, as the item asks."""
    try:
        if item["metadata"]["ask"] == "center":
            return score_point(answer_text, str(item["answer"]))
        return score_number(answer_text, str(item["answer"]))
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    description="Exact centre or squared radius of the circle through three lattice points.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="",
)
