"""ARC-style: induce the direction of "gravity" from example grids and apply it to a test grid.

In every example the coloured cells slide as far as they can in one hidden direction (down,
up, left or right), keeping their order within each column or row, as if they fell and
stacked. The examples are checked to single out the direction (every direction that fits
them gives the same test output; the identity is a candidate too). Harder levels allow all
four directions instead of the vertical two, and use larger, fuller grids with more colours,
where the stacking order within a line must be kept exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._grids import ARC_INTRO, Grid, examples_question, identifiable, random_grid, render, score_grid

NAME = "grid_gravity"

_RULE_SETS = ("vertical", "all")


def _pack_end(line: tuple[int, ...]) -> tuple[int, ...]:
    cells = tuple(cell for cell in line if cell)
    return (0,) * (len(line) - len(cells)) + cells


def _pack_start(line: tuple[int, ...]) -> tuple[int, ...]:
    cells = tuple(cell for cell in line if cell)
    return cells + (0,) * (len(line) - len(cells))


def fall_down(grid: Grid) -> Grid:
    return tuple(zip(*(_pack_end(column) for column in zip(*grid, strict=True)), strict=True))


def fall_up(grid: Grid) -> Grid:
    return tuple(zip(*(_pack_start(column) for column in zip(*grid, strict=True)), strict=True))


def fall_right(grid: Grid) -> Grid:
    return tuple(_pack_end(row) for row in grid)


def fall_left(grid: Grid) -> Grid:
    return tuple(_pack_start(row) for row in grid)


DIRECTIONS: dict[str, Callable[[Grid], Grid]] = {
    "down": fall_down,
    "up": fall_up,
    "left": fall_left,
    "right": fall_right,
}
_CANDIDATES = (lambda grid: grid, *DIRECTIONS.values())


@dataclass(frozen=True)
class Config(Knobs):
    min_size: int = 3
    max_size: int = 4
    colours: int = 1
    density: float = 0.3
    """Share of coloured cells."""
    examples: int = 3
    directions: str = "vertical"
    """``vertical`` (down or up) or ``all`` four."""

    RANGES: ClassVar = {
        "min_size": (2, 12),
        "max_size": (2, 12),
        "colours": (1, 9),
        "density": (0.05, 0.9),
        "examples": (2, 5),
    }

    def check(self) -> None:
        if self.min_size > self.max_size:
            raise ValueError("grid_gravity: min_size must be <= max_size")
        if self.directions not in _RULE_SETS:
            raise ValueError(f"grid_gravity: directions must be one of {', '.join(_RULE_SETS)}")


LEVELS = (
    {"min_size": 3, "max_size": 4, "colours": 1, "density": 0.3, "examples": 3, "directions": "vertical"},
    {"min_size": 3, "max_size": 5, "colours": 2, "density": 0.3, "examples": 3, "directions": "all"},
    {"min_size": 4, "max_size": 6, "colours": 3, "density": 0.35, "examples": 3, "directions": "all"},
    {"min_size": 4, "max_size": 7, "colours": 4, "density": 0.4, "examples": 3, "directions": "all"},
    {"min_size": 5, "max_size": 8, "colours": 5, "density": 0.45, "examples": 3, "directions": "all"},
    {"min_size": 6, "max_size": 9, "colours": 6, "density": 0.5, "examples": 3, "directions": "all"},
)

_ATTEMPTS = 50


def generate(config: Config, rng: random.Random) -> Problem:
    names = ("down", "up") if config.directions == "vertical" else tuple(DIRECTIONS)
    palette = rng.sample(range(1, 10), config.colours)
    for _ in range(_ATTEMPTS):
        name = rng.choice(names)
        rule = DIRECTIONS[name]
        grids = [
            random_grid(
                rng,
                rng.randint(config.min_size, config.max_size),
                rng.randint(config.min_size, config.max_size),
                palette,
                config.density,
            )
            for _ in range(config.examples + 1)
        ]
        pairs = [(grid, rule(grid)) for grid in grids[:-1]]
        test = grids[-1]
        answer = rule(test)
        if answer != test and identifiable(_CANDIDATES, pairs, test, answer):
            return Problem(examples_question(ARC_INTRO, pairs, test), render(answer), {"rule": name})
    raise ValueError("grid_gravity: no identifiable example set drawn")


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """The exact output grid, rows in order; digits may be spaced, comma separated or run together."""
    return score_grid(answer_text, item)


FAMILY = Family(
    name=NAME,
    description="ARC-style: coloured cells fall in a hidden direction shown by example grids.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:rearc",
)
