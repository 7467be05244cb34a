"""ARC-style: induce a rotation or reflection from example grids and apply it to a test grid.

Each item shows a few input→output pairs that share one hidden symmetry of the square
(quarter turns, a half turn, mirrors, transposes) and asks for the test input's output.
The examples are checked to pin the rule down: every transformation of the set that fits
all of them must give the same test output, else the item is drawn again. Harder levels
use the full set of eight symmetries instead of the rotations alone, larger and
non-square grids (where a quarter turn also changes the shape) and more colours.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._grids import ARC_INTRO, Grid, examples_question, identifiable, random_grid, render, score_grid

NAME = "grid_rotate_flip"

_RULE_SETS = ("rotations", "all")


def rotate_cw(grid: Grid) -> Grid:
    return tuple(zip(*grid[::-1], strict=True))


def rotate_half(grid: Grid) -> Grid:
    return tuple(row[::-1] for row in grid[::-1])


def rotate_ccw(grid: Grid) -> Grid:
    return tuple(zip(*grid, strict=True))[::-1]


def mirror_left_right(grid: Grid) -> Grid:
    return tuple(row[::-1] for row in grid)


def mirror_top_bottom(grid: Grid) -> Grid:
    return grid[::-1]


def transpose(grid: Grid) -> Grid:
    return tuple(zip(*grid, strict=True))


def anti_transpose(grid: Grid) -> Grid:
    return rotate_half(transpose(grid))


def identity(grid: Grid) -> Grid:
    return grid


TRANSFORMS = {
    "rotate_cw": rotate_cw,
    "rotate_half": rotate_half,
    "rotate_ccw": rotate_ccw,
    "mirror_left_right": mirror_left_right,
    "mirror_top_bottom": mirror_top_bottom,
    "transpose": transpose,
    "anti_transpose": anti_transpose,
}
"""The seven non-trivial symmetries of the square; with the identity they form its group."""
_CANDIDATES = (identity, *TRANSFORMS.values())


@dataclass(frozen=True)
class Config(Knobs):
    min_size: int = 3
    max_size: int = 3
    """Rows and columns are drawn independently from [min_size, max_size]."""
    colours: int = 2
    """Distinct non-background colours in a grid."""
    examples: int = 3
    rules: str = "rotations"
    """``rotations`` (three turns) or ``all`` (all seven symmetries)."""

    RANGES: ClassVar = {"min_size": (2, 12), "max_size": (2, 12), "colours": (1, 9), "examples": (2, 5)}

    def check(self) -> None:
        if self.min_size > self.max_size:
            raise ValueError("grid_rotate_flip: min_size must be <= max_size")
        if self.rules not in _RULE_SETS:
            raise ValueError(f"grid_rotate_flip: rules must be one of {', '.join(_RULE_SETS)}, got {self.rules!r}")


LEVELS = (
    {"min_size": 3, "max_size": 3, "colours": 2, "examples": 3, "rules": "rotations"},
    {"min_size": 3, "max_size": 4, "colours": 2, "examples": 3, "rules": "all"},
    {"min_size": 3, "max_size": 5, "colours": 3, "examples": 3, "rules": "all"},
    {"min_size": 4, "max_size": 6, "colours": 4, "examples": 3, "rules": "all"},
    {"min_size": 4, "max_size": 8, "colours": 5, "examples": 3, "rules": "all"},
    {"min_size": 5, "max_size": 9, "colours": 6, "examples": 3, "rules": "all"},
)

_ATTEMPTS = 50


def generate(config: Config, rng: random.Random) -> Problem:
    names = ("rotate_cw", "rotate_half", "rotate_ccw") if config.rules == "rotations" else tuple(TRANSFORMS)
    palette = rng.sample(range(1, 10), config.colours)
    for _ in range(_ATTEMPTS):
        name = rng.choice(names)
        rule = TRANSFORMS[name]
        grids = []
        for _ in range(config.examples + 1):
            rows = rng.randint(config.min_size, config.max_size)
            cols = rng.randint(config.min_size, config.max_size)
            grids.append(random_grid(rng, rows, cols, palette, 0.5))
        pairs = [(grid, rule(grid)) for grid in grids[:-1]]
        test = grids[-1]
        answer = rule(test)
        if answer != test and identifiable(_CANDIDATES, pairs, test, answer):
            question = examples_question(ARC_INTRO, pairs, test)
            return Problem(question, render(answer), {"rule": name})
    raise ValueError("grid_rotate_flip: no identifiable example set drawn")


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """The exact output grid, rows in order; digits may be spaced, comma separated or run together."""
    return score_grid(answer_text, item)


FAMILY = Family(
    name=NAME,
    description="ARC-style: a hidden rotation/reflection shown by example grids, applied to a test grid.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:rearc",
)
