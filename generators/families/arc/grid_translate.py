"""ARC-style: induce a translation from example grids and apply it to a test grid.

In every example the coloured cells move by one hidden offset (rows down/up, columns
right/left); at harder levels only the cells of one hidden colour move while the others
stay put, so the solver must find both what moves and by how much. Nothing ever leaves the
grid and a moving cell never lands on a standing one, so the offset is fixed by any
example; every test colour appears in some example, so whether it moves is known. Harder
levels use larger grids, longer offsets and more colours.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._grids import ARC_INTRO, Grid, examples_question, plant, random_grid, render, score_grid

NAME = "grid_translate"


@dataclass(frozen=True)
class Config(Knobs):
    min_size: int = 4
    max_size: int = 5
    max_shift: int = 1
    colours: int = 1
    one_colour_moves: bool = False
    """Only the cells of one colour move; the rest stay where they are."""
    examples: int = 3

    RANGES: ClassVar = {
        "min_size": (3, 12),
        "max_size": (3, 12),
        "max_shift": (1, 4),
        "colours": (1, 9),
        "examples": (2, 5),
    }

    def check(self) -> None:
        if self.min_size > self.max_size:
            raise ValueError("grid_translate: min_size must be <= max_size")
        if self.max_shift >= self.min_size:
            raise ValueError("grid_translate: max_shift must be smaller than min_size")
        if self.one_colour_moves and self.colours < 2:
            raise ValueError("grid_translate: one_colour_moves needs at least two colours")


LEVELS = (
    {"min_size": 4, "max_size": 5, "max_shift": 1, "colours": 1},
    {"min_size": 4, "max_size": 6, "max_shift": 2, "colours": 2},
    {"min_size": 5, "max_size": 7, "max_shift": 2, "colours": 3},
    {"min_size": 5, "max_size": 8, "max_shift": 2, "colours": 3, "one_colour_moves": True},
    {"min_size": 6, "max_size": 9, "max_shift": 3, "colours": 4, "one_colour_moves": True},
    {"min_size": 6, "max_size": 9, "max_shift": 3, "colours": 5, "one_colour_moves": True},
)

_ATTEMPTS = 20


def _draw(
    rng: random.Random, config: Config, palette: list[int], mover: int | None, dr: int, dc: int
) -> tuple[Grid, Grid]:
    """(input, output): moving cells drawn where the move keeps them inside, landing on cells
    cleared of standing colours; standing cells, if any, everywhere else."""
    rows = rng.randint(config.min_size, config.max_size)
    cols = rng.randint(config.min_size, config.max_size)
    colours = palette if mover is None else [mover]
    inner = plant(rng, random_grid(rng, rows - abs(dr), cols - abs(dc), colours, 0.3), [rng.choice(colours)])
    top, left = max(0, -dr), max(0, -dc)
    moves = [
        ((r + top) * cols + c + left, (r + top + dr) * cols + c + left + dc, cell)
        for r, row in enumerate(inner)
        for c, cell in enumerate(row)
        if cell
    ]
    others = [colour for colour in palette if colour != mover]
    base = (
        [0] * (rows * cols) if mover is None else list(b"".join(map(bytes, random_grid(rng, rows, cols, others, 0.3))))
    )
    for start, land, _ in moves:
        base[start] = base[land] = 0
    given, result = list(base), base
    for start, land, cell in moves:
        given[start] = cell
        result[land] = cell
    return (
        tuple(tuple(given[r * cols : (r + 1) * cols]) for r in range(rows)),
        tuple(tuple(result[r * cols : (r + 1) * cols]) for r in range(rows)),
    )


def generate(config: Config, rng: random.Random) -> Problem:
    palette = rng.sample(range(1, 10), config.colours)
    mover = rng.choice(palette) if config.one_colour_moves else None
    for _ in range(_ATTEMPTS):
        dr, dc = 0, 0
        while dr == dc == 0:
            dr = rng.randint(-config.max_shift, config.max_shift)
            dc = rng.randint(-config.max_shift, config.max_shift)
        drawn = [_draw(rng, config, palette, mover, dr, dc) for _ in range(config.examples + 1)]
        pairs = drawn[:-1]
        test, answer = drawn[-1]
        seen = {cell for given, _ in pairs for row in given for cell in row}
        if not {cell for row in test for cell in row} <= seen:
            continue  # whether an unseen colour moves is unknown
        if mover is not None and any(all(cell in (0, mover) for row in given for cell in row) for given, _ in pairs):
            continue  # an example with only the mover cannot tell the colour rule from "all move"
        extra = {"offset": [dr, dc], "mover": mover if mover is not None else 0}
        return Problem(examples_question(ARC_INTRO, pairs, test), render(answer), extra)
    raise ValueError("grid_translate: no example set drawn")


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """The exact output grid, rows in order; digits may be spaced, comma separated or run together."""
    return score_grid(answer_text, item)


FAMILY = Family(
    name=NAME,
    description="ARC-style: cells (all, or one colour) moved by a hidden offset shown by example grids.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:rearc",
)
