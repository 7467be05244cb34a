"""The exact area of a simple polygon given by its lattice corners (shoelace formula).

Tests coordinate geometry carried out without error over many terms. Harder levels have
more corners (non-convex, star-shaped outlines rather than triangles) and larger
coordinates, so the shoelace sum has more and bigger products. Areas of lattice polygons
are multiples of 1/2, so the answer is exact: ``12.5`` and ``25/2`` are the same answer.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
from generators.base import Family, Knobs, Problem
from generators.families._geom import lattice_polygon, score_number, show_point, twice_area

NAME = "polygon_area"


@dataclass(frozen=True)
class Config(Knobs):
    min_vertices: int = 3
    max_vertices: int = 4
    span: int = 10
    """Corners have integer coordinates in [0, span]."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "min_vertices": (3, 20),
        "max_vertices": (3, 20),
        "span": (4, 10_000),
    }

    def check(self) -> None:
        if self.min_vertices > self.max_vertices:
            raise ValueError("polygon_area: min_vertices must be <= max_vertices")
        if (self.span + 1) ** 2 < 4 * self.max_vertices:
            raise ValueError("polygon_area: span too small for max_vertices")


LEVELS: tuple[dict[str, object], ...] = (
    {"min_vertices": 3, "max_vertices": 3, "span": 10},
    {"min_vertices": 3, "max_vertices": 4, "span": 12},
    {"min_vertices": 4, "max_vertices": 5, "span": 20},
    {"min_vertices": 5, "max_vertices": 7, "span": 30},
    {"min_vertices": 6, "max_vertices": 9, "span": 60},
    {"min_vertices": 8, "max_vertices": 12, "span": 100},
)


def generate(config: Config, rng: random.Random) -> Problem:
    n = rng.randint(config.min_vertices, config.max_vertices)
    ring = lattice_polygon(n, config.span, rng)
    if rng.random() < 0.5:
        ring.reverse()  # clockwise half the time: the sign of the shoelace sum is not the area
    start = rng.randrange(n)
    ring = ring[start:] + ring[:start]
    area = Fraction(abs(twice_area(ring)), 2)
    gold = str(area.numerator) if area.denominator == 1 else f"{area.numerator // 2}.5"
    corners = ", ".join(show_point(p) for p in ring)
    question = (
        f"A simple polygon (its edges do not cross) has these {n} corners, listed in order around its "
        f"boundary: {corners}. Each corner is joined to the next and the last to the first.\n"
        "What is the exact area of the polygon? Answer with a single number: an integer, or a "
        "decimal such as 12.5 or a fraction such as 25/2 when it is not whole."
    )
    return Problem(question, gold, {"vertices": [list(p) for p in ring]})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """Exact value equality (``12.5`` == ``25/2``), a trailing "square units" allowed."""
    try:
        return score_number(answer_text, str(item["answer"]))
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    description="Exact area of a simple lattice polygon from its corners (shoelace formula).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="number",
    score=score,
    counterpart="",
)
