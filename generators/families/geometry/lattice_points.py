"""Count lattice points strictly inside, on the boundary of, or in a lattice polygon.

Tests Pick's theorem (area = interior + boundary/2 - 1) and the gcd rule for the lattice
points on a segment, or the patience to count. Harder levels have more corners and larger
coordinates, so counting by hand stops working and the two formulas must be combined; the
question asks for interior or all points, so no single formula answers every item.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._geom import boundary_points, lattice_polygon, show_point, twice_area

NAME = "lattice_points"

_ASKS = ("interior", "total")
"""Boundary counts alone cluster on a few small values (3, 4, 5 for triangles), so they are
never asked on their own; they still enter every "total" answer."""


@dataclass(frozen=True)
class Config(Knobs):
    min_vertices: int = 3
    max_vertices: int = 3
    span: int = 16
    """Corners have integer coordinates in [0, span]."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "min_vertices": (3, 20),
        "max_vertices": (3, 20),
        "span": (6, 10_000),
    }

    def check(self) -> None:
        if self.min_vertices > self.max_vertices:
            raise ValueError("lattice_points: min_vertices must be <= max_vertices")
        if (self.span + 1) ** 2 < 4 * self.max_vertices:
            raise ValueError("lattice_points: span too small for max_vertices")


LEVELS: tuple[dict[str, object], ...] = (
    {"min_vertices": 3, "max_vertices": 3, "span": 16},
    {"min_vertices": 3, "max_vertices": 4, "span": 20},
    {"min_vertices": 4, "max_vertices": 5, "span": 28},
    {"min_vertices": 5, "max_vertices": 6, "span": 40},
    {"min_vertices": 6, "max_vertices": 8, "span": 80},
    {"min_vertices": 7, "max_vertices": 10, "span": 150},
)

_WORDING = {
    "interior": "strictly inside the polygon (not on its edges)",
    "total": "inside the polygon or on its boundary",
}


def generate(config: Config, rng: random.Random) -> Problem:
    n = rng.randint(config.min_vertices, config.max_vertices)
    ring = lattice_polygon(n, config.span, rng)
    area2 = twice_area(ring)
    boundary = boundary_points(ring)
    interior = (area2 - boundary + 2) // 2  # Pick: A = I + B/2 - 1
    ask = rng.choice(_ASKS)
    answer = interior if ask == "interior" else interior + boundary
    corners = ", ".join(show_point(p) for p in ring)
    question = (
        f"A simple polygon has these {n} corners with integer coordinates, in order around its boundary: "
        f"{corners} (the last corner joins the first).\n"
        f"How many points with integer coordinates lie {_WORDING[ask]}? Answer with a single integer."
    )
    return Problem(question, str(answer), {"ask": ask, "vertices": [list(p) for p in ring]})


FAMILY = Family(
    name=NAME,
    description="Lattice points inside / on / in a lattice polygon (Pick's theorem, gcd edge rule).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
    counterpart="",
)
