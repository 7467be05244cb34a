"""Rotate a square matrix clockwise by a multiple of 90 degrees.

The matrix holds distinct numbers, so every rotation (and a transpose or a mirror, the
usual mistakes) gives a different matrix and only the right one scores. Harder levels use
larger matrices and angles past a full turn (450 degrees is one quarter turn), which the
solver must reduce first.

The answer is the rotated matrix, read as a nested list, ``;``-separated rows or one row
per line (see ``_grid``); it must match cell for cell.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._grid import format_matrix, score_matrix, show_matrix

NAME = "rotate_matrix"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"min_size": (2, 12), "max_size": (2, 12), "max_turns": (1, 12)}

    min_size: int = 2
    max_size: int = 3
    max_turns: int = 3
    """The angle is 90 * t degrees for t in 1..max_turns."""

    def check(self) -> None:
        if self.min_size > self.max_size:
            raise ValueError("Config.min_size must be <= max_size")


LEVELS = (
    {"min_size": 2, "max_size": 3, "max_turns": 3},
    {"min_size": 3, "max_size": 4, "max_turns": 3},
    {"min_size": 4, "max_size": 5, "max_turns": 4},
    {"min_size": 5, "max_size": 6, "max_turns": 6},
    {"min_size": 6, "max_size": 7, "max_turns": 8},
    {"min_size": 7, "max_size": 9, "max_turns": 11},
)


def rotate_clockwise(rows: list[list[int]], turns: int) -> list[list[int]]:
    for _ in range(turns % 4):
        rows = [list(column) for column in zip(*rows[::-1])]
    return rows


def generate(config: Config, rng: random.Random) -> Problem:
    size = rng.randint(config.min_size, config.max_size)
    values = rng.sample(range(max(10, size * size * 2)), size * size)
    matrix = [values[r * size : (r + 1) * size] for r in range(size)]
    turns = rng.randint(1, config.max_turns)
    if turns % 4 == 0 and rng.random() < 0.75:
        turns += rng.randint(1, 3)  # full turns stay possible but rare
        turns = min(turns, max(config.max_turns, 3))
    degrees = 90 * turns
    question = (
        f"Rotate the {size}x{size} matrix below by {degrees} degrees clockwise.\n\n{show_matrix(matrix)}\n\n"
        "Give the resulting matrix as a list of rows, for example [[1, 2], [3, 4]]."
    )
    return Problem(question, format_matrix(rotate_clockwise(matrix, turns)), {"matrix": matrix, "degrees": degrees})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the response's matrix is the rotated one, cell for cell."""
    return score_matrix(answer_text, item)


FAMILY = Family(
    name=NAME,
    description="Rotate a matrix of distinct numbers clockwise by 90*t degrees (t up to 11).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:rotate_matrix",
)
