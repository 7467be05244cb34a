"""Area covered by all, or by at least one, of several axis-aligned rectangles.

Tests interval reasoning in two dimensions: the overlap of rectangles is the product of the
overlaps of their sides, and the union needs inclusion-exclusion or a sweep. Harder levels
add rectangles (union of up to six needs many overlap terms) and widen the coordinates.
Rectangles asked for their common area always share some area, so "0" is never the answer.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "rectangle_overlap"

Rect = tuple[int, int, int, int]
"""(x1, y1, x2, y2) with x1 < x2 and y1 < y2."""


@dataclass(frozen=True)
class Config(Knobs):
    min_rects: int = 2
    max_rects: int = 2
    span: int = 16
    union_share: float = 0.0
    """Share of items asking for the union (covered by at least one) instead of the overlap."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "min_rects": (2, 10),
        "max_rects": (2, 10),
        "span": (6, 10**6),
        "union_share": (0.0, 1.0),
    }

    def check(self) -> None:
        if self.min_rects > self.max_rects:
            raise ValueError("rectangle_overlap: min_rects must be <= max_rects")


LEVELS: tuple[dict[str, object], ...] = (
    {"min_rects": 2, "max_rects": 2, "span": 16, "union_share": 0.0},
    {"min_rects": 2, "max_rects": 2, "span": 20, "union_share": 0.5},
    {"min_rects": 2, "max_rects": 3, "span": 30, "union_share": 0.5},
    {"min_rects": 3, "max_rects": 4, "span": 50, "union_share": 0.6},
    {"min_rects": 3, "max_rects": 5, "span": 100, "union_share": 0.7},
    {"min_rects": 4, "max_rects": 6, "span": 200, "union_share": 0.8},
)


def _rect(rng: random.Random, span: int, must_contain: tuple[int, int] | None) -> Rect:
    if must_contain is None:
        x1, x2 = sorted(rng.sample(range(span + 1), 2))
        y1, y2 = sorted(rng.sample(range(span + 1), 2))
        return x1, y1, x2, y2
    px, py = must_contain
    return rng.randint(0, px), rng.randint(0, py), rng.randint(px + 1, span), rng.randint(py + 1, span)


def overlap(rects: list[Rect]) -> int:
    width = min(r[2] for r in rects) - max(r[0] for r in rects)
    height = min(r[3] for r in rects) - max(r[1] for r in rects)
    return max(0, width) * max(0, height)


def union(rects: list[Rect]) -> int:
    """Area of the union by a sweep over x: per strip, the merged length of the covering y-spans."""
    xs = sorted({v for r in rects for v in (r[0], r[2])})
    area = 0
    for left, right in itertools.pairwise(xs):
        spans = sorted((r[1], r[3]) for r in rects if r[0] <= left and right <= r[2])
        covered, reach = 0, None
        for low, high in spans:
            if reach is None or low > reach:
                covered += high - low
                reach = high
            elif high > reach:
                covered += high - reach
                reach = high
        area += covered * (right - left)
    return area


def generate(config: Config, rng: random.Random) -> Problem:
    count = rng.randint(config.min_rects, config.max_rects)
    ask_union = rng.random() < config.union_share
    if ask_union:
        rects = [_rect(rng, config.span, None) for _ in range(count)]
        answer = union(rects)
        what = "covered by at least one of the rectangles (overlapping parts counted once)"
    else:
        common = (rng.randint(0, config.span - 1), rng.randint(0, config.span - 1))
        rects = [_rect(rng, config.span, common) for _ in range(count)]
        answer = overlap(rects)
        what = "covered by all of the rectangles at once"
    if answer <= 0:
        raise ValueError("rectangle_overlap: empty answer region")
    listed = "\n".join(
        f"- R{i + 1}: lower-left corner ({x1}, {y1}), upper-right corner ({x2}, {y2})"
        for i, (x1, y1, x2, y2) in enumerate(rects)
    )
    question = (
        f"These {count} rectangles have sides parallel to the axes:\n{listed}\n"
        f"What is the area of the region {what}? Answer with a single integer."
    )
    return Problem(
        question, str(answer), {"ask": "union" if ask_union else "overlap", "rects": [list(r) for r in rects]}
    )


FAMILY = Family(
    name=NAME,
    description="Area of the overlap or the union of several axis-aligned rectangles.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
    counterpart="",
)
