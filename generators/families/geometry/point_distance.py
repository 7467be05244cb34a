"""The Euclidean distance between two points with integer coordinates, rounded as stated.

Tests the distance formula and careful square roots. Harder levels move from the plane to
three dimensions, widen the coordinates (bigger squares to sum, negative differences) and
ask for more decimal places, so a rough estimate of the root no longer rounds right.
The gold is the exact root rounded half-up (50 significant digits before rounding).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
from generators.base import Family, Knobs, Problem
from generators.families._geom import score_number, show_point, sqrt_string

NAME = "point_distance"


@dataclass(frozen=True)
class Config(Knobs):
    dims: int = 2
    span: int = 10
    """Coordinates are integers in [-span, span]."""
    places: int = 2
    """Decimal places of the rounded answer."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "dims": (2, 3),
        "span": (3, 10**6),
        "places": (1, 6),
    }


LEVELS: tuple[dict[str, object], ...] = (
    {"dims": 2, "span": 10, "places": 2},
    {"dims": 2, "span": 30, "places": 2},
    {"dims": 2, "span": 100, "places": 2},
    {"dims": 3, "span": 100, "places": 2},
    {"dims": 3, "span": 1000, "places": 3},
    {"dims": 3, "span": 10_000, "places": 3},
)


def generate(config: Config, rng: random.Random) -> Problem:
    while True:
        a = [rng.randint(-config.span, config.span) for _ in range(config.dims)]
        b = [rng.randint(-config.span, config.span) for _ in range(config.dims)]
        if a != b:
            break
    square = sum((x - y) ** 2 for x, y in zip(a, b))
    gold = sqrt_string(square, config.places)
    space = "plane" if config.dims == 2 else "three-dimensional space"
    question = (
        f"In the {space}, what is the Euclidean (straight-line) distance between the points "
        f"A = {show_point(a)} and B = {show_point(b)}?\n"
        f"Round to {config.places} decimal places (round half up) and answer with that number only, "
        f"for example {'3.' + '1' * config.places}."
    )
    return Problem(question, gold, {"squared_distance": square})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """Value equality with the rounded gold (``5.40`` == ``5.4``); a trailing "units" is allowed."""
    try:
        return score_number(answer_text, str(item["answer"]))
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    description="Euclidean distance between two integer points in 2D or 3D, rounded as stated.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="number",
    score=score,
    counterpart="",
)
