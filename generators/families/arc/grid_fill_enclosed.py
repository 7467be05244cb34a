"""ARC-style: fill every region enclosed by an outline with a hidden colour.

The examples show rectangle outlines of various colours whose insides come out filled
with one fixed colour (the same in every example, never an outline colour), and the
test asks for the same. Harder levels add larger grids, more outlines and distractors:
outlines with a one-cell gap, whose inside is not enclosed and stays empty. Whenever the
test has such a gap, an example has one too, so the rule "fill every outline" is ruled
out by the examples rather than left to a guess.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._grids import ARC_INTRO, Grid, examples_question, render, score_grid

NAME = "grid_fill_enclosed"

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class Config(Knobs):
    min_size: int = 6
    max_size: int = 7
    max_outlines: int = 1
    max_broken: int = 0
    examples: int = 3

    RANGES: ClassVar = {
        "min_size": (5, 16),
        "max_size": (5, 16),
        "max_outlines": (1, 8),
        "max_broken": (0, 4),
        "examples": (2, 5),
    }

    def check(self) -> None:
        if self.min_size > self.max_size:
            raise ValueError("grid_fill_enclosed: min_size must be <= max_size")


LEVELS = (
    {"min_size": 6, "max_size": 7, "max_outlines": 1, "max_broken": 0},
    {"min_size": 6, "max_size": 8, "max_outlines": 2, "max_broken": 0},
    {"min_size": 7, "max_size": 9, "max_outlines": 2, "max_broken": 1},
    {"min_size": 8, "max_size": 10, "max_outlines": 3, "max_broken": 1},
    {"min_size": 9, "max_size": 11, "max_outlines": 3, "max_broken": 1},
    {"min_size": 9, "max_size": 11, "max_outlines": 3, "max_broken": 2},
)

_TRIES = 30
_PLACE_TRIES = 8


def _apart(box: Box, others: list[Box]) -> bool:
    t, lf, b, r = box
    return all(b + 1 < ot or ob + 1 < t or r + 1 < ol or orr + 1 < lf for ot, ol, ob, orr in others)


def _draw(
    rng: random.Random, config: Config, colours: list[int], fill: int, closed: int, broken: int
) -> tuple[Grid, Grid, int]:
    """(input, output, gapped outlines placed): up to ``closed`` whole outlines and
    ``broken`` gapped ones, fewer if they do not fit (the caller checks what it needs)."""
    rows = rng.randint(config.min_size, config.max_size)
    cols = rng.randint(config.min_size, config.max_size)
    boxes: list[tuple[Box, bool]] = []
    placed: list[Box] = []
    # random() arithmetic rather than randint: placement tries are the hot loop.
    draw = rng.random
    tall, wide = min(5, rows // 2 + 1) - 2, min(6, cols // 2 + 1) - 2
    for whole in [True] + [False] * broken + [True] * (closed - 1):  # the ones a check needs first
        for _ in range(_PLACE_TRIES):
            h, w = 3 + int(draw() * tall), 3 + int(draw() * wide)
            top, left = int(draw() * (rows - h + 1)), int(draw() * (cols - w + 1))
            box = (top, left, top + h - 1, left + w - 1)
            if _apart(box, placed):
                boxes.append((box, whole))
                placed.append(box)
                break
    given = [[0] * cols for _ in range(rows)]
    result = [[0] * cols for _ in range(rows)]
    for (t, lf, b, r), whole in boxes:
        colour = rng.choice(colours)
        for grid in (given, result):
            grid[t][lf : r + 1] = grid[b][lf : r + 1] = [colour] * (r - lf + 1)
            for row in range(t + 1, b):
                grid[row][lf] = grid[row][r] = colour
        if whole:
            for row in range(t + 1, b):
                result[row][lf + 1 : r] = [fill] * (r - lf - 1)
        else:
            side = rng.randrange(4)
            if side < 2:
                at = (t if side == 0 else b, rng.randint(lf + 1, r - 1))
            else:
                at = (rng.randint(t + 1, b - 1), lf if side == 2 else r)
            given[at[0]][at[1]] = result[at[0]][at[1]] = 0
    gapped = sum(not whole for _, whole in boxes)
    return tuple(map(tuple, given)), tuple(map(tuple, result)), gapped


def generate(config: Config, rng: random.Random) -> Problem:
    fill = rng.randint(1, 9)
    colours = rng.sample([c for c in range(1, 10) if c != fill], 3)
    for _ in range(_TRIES):
        plans = []
        for _ in range(config.examples + 1):
            closed = rng.randint(1, config.max_outlines)
            broken = rng.randint(0, config.max_broken)
            plans.append((closed, broken))
        if config.max_broken and not any(broken for _, broken in plans[:-1]):
            plans[rng.randrange(config.examples)] = (plans[0][0], 1)  # an example shows a gapped outline
        drawn = [_draw(rng, config, colours, fill, closed, broken) for closed, broken in plans]
        if not all(any(fill in row for row in result) for _, result, _ in drawn):
            continue  # every grid needs a filled inside, or the fill colour is not shown
        if drawn[-1][2] and not any(gapped for _, _, gapped in drawn[:-1]):
            continue  # a gapped outline in the test must have a precedent among the examples
        pairs = [(given, result) for given, result, _ in drawn[:-1]]
        test, answer, _ = drawn[-1]
        extra = {"fill": fill}
        return Problem(examples_question(ARC_INTRO, pairs, test), render(answer), extra)
    raise ValueError("grid_fill_enclosed: no example set drawn")


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """The exact output grid, rows in order; digits may be spaced, comma separated or run together."""
    return score_grid(answer_text, item)


FAMILY = Family(
    name=NAME,
    description="ARC-style: insides of closed outlines filled with a colour shown by examples; gapped ones stay open.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:rearc",
)
