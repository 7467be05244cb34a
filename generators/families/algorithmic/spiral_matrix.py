"""List a matrix's elements in clockwise spiral order.

Starting at the top-left cell, go right along the top row, down the right column, left
along the bottom row, up the left column, and repeat inward. Harder levels use larger and
non-square matrices, where the last ring is a single row or column and off-by-one slips
are common.

The answer is the ordered list of elements (spaces or commas between them); order matters,
so a permutation or a row-by-row listing scores 0.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._grid import show_matrix

NAME = "spiral_matrix"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"min_size": (2, 15), "max_size": (2, 15), "max_value": (9, 999)}

    min_size: int = 2
    max_size: int = 3
    max_value: int = 9
    rectangular: bool = False
    """Whether height and width are drawn separately (non-square matrices end on a lone row or column)."""

    def check(self) -> None:
        if self.min_size > self.max_size:
            raise ValueError("Config.min_size must be <= max_size")
        if not isinstance(self.rectangular, bool):
            raise ValueError(f"Config.rectangular must be a bool, got {self.rectangular!r}")


LEVELS = (
    {"min_size": 2, "max_size": 3, "max_value": 9},
    {"min_size": 3, "max_size": 4, "max_value": 20},
    {"min_size": 3, "max_size": 5, "max_value": 50, "rectangular": True},
    {"min_size": 4, "max_size": 6, "max_value": 99, "rectangular": True},
    {"min_size": 5, "max_size": 8, "max_value": 99, "rectangular": True},
    {"min_size": 6, "max_size": 10, "max_value": 999, "rectangular": True},
)


def spiral(rows: list[list[int]]) -> list[int]:
    out: list[int] = []
    top, bottom, left, right = 0, len(rows) - 1, 0, len(rows[0]) - 1
    while top <= bottom and left <= right:
        out.extend(rows[top][c] for c in range(left, right + 1))
        out.extend(rows[r][right] for r in range(top + 1, bottom + 1))
        if top < bottom:
            out.extend(rows[bottom][c] for c in range(right - 1, left - 1, -1))
        if left < right:
            out.extend(rows[r][left] for r in range(bottom - 1, top, -1))
        top, bottom, left, right = top + 1, bottom - 1, left + 1, right - 1
    return out


def generate(config: Config, rng: random.Random) -> Problem:
    height = rng.randint(config.min_size, config.max_size)
    width = rng.randint(config.min_size, config.max_size) if config.rectangular else height
    matrix = [[rng.randint(0, config.max_value) for _ in range(width)] for _ in range(height)]
    question = (
        f"List the elements of the {height}x{width} matrix below in clockwise spiral order, starting at the "
        f"top-left element and going right first.\n\n{show_matrix(matrix)}\n\n"
        "Give the elements in order, separated by spaces (for example 1 2 3 6 9 8 7 4 5)."
    )
    return Problem(question, " ".join(str(v) for v in spiral(matrix)), {"matrix": matrix})


FAMILY = Family(
    name=NAME,
    description="Elements of a matrix in clockwise spiral order (ordered list).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
    counterpart="reasoning_gym:spiral_matrix",
)
