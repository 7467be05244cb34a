"""ARC-style: induce how a small grid is blown up (cells scaled into blocks, the grid tiled,
or tiled with mirror images) from examples and apply it to a test grid.

Every example output is made from its input by one hidden rule and factor. The output's
size fixes the factors, so only rules of those factors can fit; the examples are checked to
rule out the others (each that fits must give the test the same output), else redrawn.
Harder levels mix the three rules, allow different row and column factors and larger
inputs with more colours, so the answer is a larger grid to write out exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._grids import ARC_INTRO, Grid, examples_question, identifiable, random_grid, render, score_grid

NAME = "grid_upscale"

_MODE_SETS = {"scale": ("scale",), "scale_tile": ("scale", "tile"), "all": ("scale", "tile", "mirror")}


def scale(grid: Grid, rows: int, cols: int) -> Grid:
    """Every cell becomes a ``rows`` x ``cols`` block of its colour."""
    return tuple(tuple(cell for cell in row for _ in range(cols)) for row in grid for _ in range(rows))


def tile(grid: Grid, rows: int, cols: int) -> Grid:
    """The whole grid repeated ``rows`` times down and ``cols`` times across."""
    return tuple(row * cols for _ in range(rows) for row in grid)


def mirror_tile(grid: Grid) -> Grid:
    """A 2 x 2 arrangement: the grid, its mirror image to the right, both flipped below."""
    top = tuple(row + row[::-1] for row in grid)
    return top + top[::-1]


def rule_for(mode: str, rows: int, cols: int) -> Callable[[Grid], Grid]:
    if mode == "scale":
        return lambda grid: scale(grid, rows, cols)
    if mode == "tile":
        return lambda grid: tile(grid, rows, cols)
    return mirror_tile


@dataclass(frozen=True)
class Config(Knobs):
    min_size: int = 2
    max_size: int = 3
    min_factor: int = 2
    max_factor: int = 2
    colours: int = 2
    modes: str = "scale"
    """``scale``, ``scale_tile`` or ``all`` (adds mirror tiling)."""
    free_factors: bool = False
    """Rows and columns each get their own factor (else they share one)."""
    examples: int = 3

    RANGES: ClassVar = {
        "min_size": (1, 8),
        "max_size": (1, 8),
        "min_factor": (2, 4),
        "max_factor": (2, 4),
        "colours": (1, 9),
        "examples": (2, 5),
    }

    def check(self) -> None:
        if self.min_size > self.max_size or self.min_factor > self.max_factor:
            raise ValueError("grid_upscale: min_size/min_factor must be <= max_size/max_factor")
        if self.modes not in _MODE_SETS:
            raise ValueError(f"grid_upscale: modes must be one of {', '.join(_MODE_SETS)}, got {self.modes!r}")


LEVELS = (
    {"min_size": 2, "max_size": 3, "min_factor": 2, "max_factor": 2, "colours": 2, "modes": "scale"},
    {"min_size": 2, "max_size": 3, "min_factor": 2, "max_factor": 3, "colours": 2, "modes": "scale_tile"},
    {"min_size": 2, "max_size": 4, "min_factor": 2, "max_factor": 3, "colours": 3, "modes": "all"},
    {
        "min_size": 3,
        "max_size": 4,
        "min_factor": 2,
        "max_factor": 3,
        "colours": 3,
        "modes": "all",
        "free_factors": True,
    },
    {
        "min_size": 3,
        "max_size": 5,
        "min_factor": 2,
        "max_factor": 3,
        "colours": 4,
        "modes": "all",
        "free_factors": True,
    },
    {
        "min_size": 3,
        "max_size": 5,
        "min_factor": 2,
        "max_factor": 4,
        "colours": 5,
        "modes": "all",
        "free_factors": True,
    },
)

_ATTEMPTS = 50


def generate(config: Config, rng: random.Random) -> Problem:
    palette = rng.sample(range(1, 10), config.colours)
    for _ in range(_ATTEMPTS):
        mode = rng.choice(_MODE_SETS[config.modes])
        rows = cols = 2
        if mode != "mirror":
            rows = rng.randint(config.min_factor, config.max_factor)
            cols = rng.randint(config.min_factor, config.max_factor) if config.free_factors else rows
        rule = rule_for(mode, rows, cols)
        grids = [
            random_grid(
                rng,
                rng.randint(config.min_size, config.max_size),
                rng.randint(config.min_size, config.max_size),
                palette,
                0.55,
            )
            for _ in range(config.examples + 1)
        ]
        pairs = [(grid, rule(grid)) for grid in grids[:-1]]
        test = grids[-1]
        answer = rule(test)
        # Only rules with these factors give outputs of this size, so they are the rivals.
        rivals = [rule_for(other, rows, cols) for other in ("scale", "tile")]
        if rows == cols == 2:
            rivals.append(mirror_tile)
        if identifiable(rivals, pairs, test, answer):
            extra = {"rule": mode, "factors": [rows, cols]}
            return Problem(examples_question(ARC_INTRO, pairs, test), render(answer), extra)
    raise ValueError("grid_upscale: no identifiable example set drawn")


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """The exact output grid, rows in order; digits may be spaced, comma separated or run together."""
    return score_grid(answer_text, item)


FAMILY = Family(
    name=NAME,
    description="ARC-style: a grid scaled into blocks, tiled or mirror-tiled by a hidden rule shown by examples.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:rearc",
)
