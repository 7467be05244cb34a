"""ARC-style: induce a colour substitution from example grids and apply it to a test grid.

Every example output is its input with each colour replaced by a fixed colour (some colours
swap, some merge, some stay; the background stays). The substitution is only determined for
colours the examples show, so every colour of the test input is made to appear in some
example input, and the test must change. Harder levels use larger grids and more colours,
with more of them changed, so the whole table has to be read off several examples.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._grids import ARC_INTRO, Grid, examples_question, plant, random_grid, render, score_grid

NAME = "grid_recolor"


@dataclass(frozen=True)
class Config(Knobs):
    min_size: int = 3
    max_size: int = 4
    colours: int = 2
    """Colours in use (besides the background)."""
    changed: int = 1
    """How many of them the substitution changes."""
    examples: int = 3

    RANGES: ClassVar = {
        "min_size": (2, 12),
        "max_size": (2, 12),
        "colours": (1, 9),
        "changed": (1, 9),
        "examples": (2, 5),
    }

    def check(self) -> None:
        if self.min_size > self.max_size:
            raise ValueError("grid_recolor: min_size must be <= max_size")
        if self.changed > self.colours:
            raise ValueError("grid_recolor: changed must be <= colours")


LEVELS = (
    {"min_size": 3, "max_size": 4, "colours": 2, "changed": 1, "examples": 3},
    {"min_size": 3, "max_size": 5, "colours": 3, "changed": 2, "examples": 3},
    {"min_size": 4, "max_size": 6, "colours": 4, "changed": 2, "examples": 3},
    {"min_size": 4, "max_size": 7, "colours": 5, "changed": 3, "examples": 3},
    {"min_size": 5, "max_size": 8, "colours": 6, "changed": 4, "examples": 3},
    {"min_size": 6, "max_size": 9, "colours": 7, "changed": 5, "examples": 4},
)

_ATTEMPTS = 20


def substitution(rng: random.Random, palette: list[int], changed: int) -> dict[int, int]:
    """Colour -> colour (background fixed); exactly ``changed`` palette colours change."""
    table = {0: 0, **{colour: colour for colour in palette}}
    for colour in rng.sample(palette, changed):
        table[colour] = rng.choice([other for other in range(1, 10) if other != colour])
    return table


def generate(config: Config, rng: random.Random) -> Problem:
    palette = rng.sample(range(1, 10), config.colours)
    table = substitution(rng, palette, config.changed)
    moving = [colour for colour in palette if table[colour] != colour]
    grids: list[Grid] = []
    for _ in range(config.examples + 1):
        rows = rng.randint(config.min_size, config.max_size)
        cols = rng.randint(config.min_size, config.max_size)
        used = rng.sample(palette, rng.randint(max(1, len(palette) - 2), len(palette)))
        grids.append(plant(rng, random_grid(rng, rows, cols, used, 0.6), [rng.choice(moving)]))
    test = grids.pop()
    # Every test colour must appear in some example, or its substitute would be a guess.
    seen = {cell for grid in grids for row in grid for cell in row}
    missing = sorted({cell for row in test for cell in row} - seen)
    for _ in range(_ATTEMPTS):  # planting may overwrite another colour's only cell: look again
        if not missing:
            break
        grids[-1] = plant(rng, grids[-1], [*missing, rng.choice(moving)])
        seen = {cell for grid in grids for row in grid for cell in row}
        missing = sorted({cell for row in test for cell in row} - seen)
    if missing:
        raise ValueError("grid_recolor: the examples do not show every test colour")
    pairs = [(grid, tuple(tuple(table[cell] for cell in row) for row in grid)) for grid in grids]
    answer = tuple(tuple(table[cell] for cell in row) for row in test)
    extra = {"table": [[colour, table[colour]] for colour in sorted(table)]}
    return Problem(examples_question(ARC_INTRO, pairs, test), render(answer), extra)


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """The exact output grid, rows in order; digits may be spaced, comma separated or run together."""
    return score_grid(answer_text, item)


FAMILY = Family(
    name=NAME,
    description="ARC-style: a hidden colour substitution shown by example grids, applied to a test grid.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:rearc",
)
