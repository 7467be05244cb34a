"""Count the closed rectangles in an ASCII drawing.

Tests visual parsing of a text picture: rectangle outlines drawn with ``#`` on a ``.``
background, side by side or nested inside one another (never touching, so each outline is
unambiguous). Harder levels use larger canvases with more and larger rectangles, deeper
nesting, and distractors: outlines with a one-cell gap, which the question says not to
count. The number of closed rectangles is drawn uniformly from a wide range first, so no
count is common enough for a constant answer to pay.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "rectangle_count"

Box = tuple[int, int, int, int]
"""(top, left, bottom, right), inclusive."""


@dataclass(frozen=True)
class Config(Knobs):
    width: int = 40
    height: int = 20
    max_count: int = 24
    """The number of closed rectangles is drawn from 1..max_count."""
    max_side: int = 8
    broken: int = 0
    """Most outlines with a gap (not to be counted) added as distractors."""

    RANGES: ClassVar = {
        "width": (10, 120),
        "height": (6, 60),
        "max_count": (12, 60),
        "max_side": (3, 40),
        "broken": (0, 20),
    }

    def check(self) -> None:
        if _capacity(self.height + 1, self.width + 1) < 2 * (self.max_count + self.broken):
            raise ValueError("rectangle_count: the canvas is too small for max_count + broken rectangles")


LEVELS = (
    {"width": 40, "height": 20, "max_count": 24, "max_side": 8, "broken": 0},
    {"width": 44, "height": 20, "max_count": 24, "max_side": 10, "broken": 0},
    {"width": 46, "height": 20, "max_count": 24, "max_side": 12, "broken": 2},
    {"width": 52, "height": 22, "max_count": 24, "max_side": 14, "broken": 3},
    {"width": 58, "height": 24, "max_count": 24, "max_side": 16, "broken": 4},
    {"width": 64, "height": 26, "max_count": 24, "max_side": 18, "broken": 6},
)

_CELL = 4
"""Rows/columns one rectangle needs at least: a 3-cell side and a 1-cell gap."""


def _capacity(height: int, width: int) -> int:
    return (height // _CELL) * (width // _CELL)


def _layout(rng: random.Random, region: Box, count: int, max_side: int, boxes: list[Box]) -> None:
    """Place ``count`` outlines in ``region`` (half-open: its last row and column stay empty).

    Regions are split in two along their longer side, or, sometimes, wrapped in an outline
    whose inside (a cell in from it) holds the rest: so outlines never touch or cross, and a
    region that can hold its count always gets it.
    """
    t, lf, b, r = region
    height, width = b - t, r - lf
    if count == 1:
        h = rng.randint(3, min(height - 1, max_side))
        w = rng.randint(3, min(width - 1, 2 * max_side))
        top, left = t + rng.randint(0, height - 1 - h), lf + rng.randint(0, width - 1 - w)
        boxes.append((top, left, top + h - 1, left + w - 1))
        return
    inner = (t + 2, lf + 2, b - 2, r - 2)
    if rng.random() < 0.3 and height - 1 <= max_side and _capacity(height - 4, width - 4) >= count - 1:
        boxes.append((t, lf, b - 2, r - 2))
        _layout(rng, inner, count - 1, max_side, boxes)
        return
    for vertical in (width >= height, width < height):  # the longer side first
        span, across = (width, height) if vertical else (height, width)
        per_line = across // _CELL
        if not per_line:
            continue
        need = [_CELL * -(-part // per_line) for part in range(count)]
        firsts = [first for first in range(1, count) if need[first] + need[count - first] <= span]
        if firsts:
            break
    else:  # unreachable while the region's capacity covers count
        raise ValueError("rectangle_count: region too small")
    first = rng.choice(firsts)
    low, high = need[first], span - need[count - first]
    cut = rng.randint(low, high)
    if vertical:
        _layout(rng, (t, lf, b, lf + cut), first, max_side, boxes)
        _layout(rng, (t, lf + cut, b, r), count - first, max_side, boxes)
    else:
        _layout(rng, (t, lf, t + cut, r), first, max_side, boxes)
        _layout(rng, (t + cut, lf, b, r), count - first, max_side, boxes)


def generate(config: Config, rng: random.Random) -> Problem:
    wanted = rng.randint(1, config.max_count)
    gaps = rng.randint(0, config.broken)
    boxes: list[Box] = []
    # The canvas plus one virtual row and column: the outer regions' reserved gaps.
    _layout(rng, (0, 0, config.height + 1, config.width + 1), wanted + gaps, config.max_side, boxes)
    broken = set(rng.sample(range(len(boxes)), gaps))
    kinds = [index not in broken for index in range(len(boxes))]
    canvas = [["."] * config.width for _ in range(config.height)]
    for (t, lf, b, r), closed in zip(boxes, kinds, strict=True):
        canvas[t][lf : r + 1] = canvas[b][lf : r + 1] = ["#"] * (r - lf + 1)
        for row in range(t + 1, b):
            canvas[row][lf] = canvas[row][r] = "#"
        if not closed:  # knock one non-corner cell out of a random side
            side = rng.randrange(4)
            if side < 2:
                canvas[t if side == 0 else b][rng.randint(lf + 1, r - 1)] = "."
            else:
                canvas[rng.randint(t + 1, b - 1)][lf if side == 2 else r] = "."
    count = sum(kinds)
    drawing = "\n".join("".join(row) for row in canvas)
    note = " Shapes whose outline has a gap are not rectangles and do not count." if config.broken else ""
    question = (
        "How many rectangles are drawn below? Each rectangle is an outline of '#' characters on a '.' "
        "background; rectangles may sit inside other rectangles, and every closed outline counts once."
        f"{note}\n\n{drawing}\n\nAnswer with a single integer."
    )
    return Problem(question, str(count), {"broken": len(kinds) - count})


FAMILY = Family(
    name=NAME,
    description="Count closed '#' rectangle outlines (nested, with gapped distractors) in an ASCII drawing.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
    counterpart="reasoning_gym:rectangle_count",
)
