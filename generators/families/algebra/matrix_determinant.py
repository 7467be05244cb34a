"""Determinant of a square integer matrix.

The matrix is written row by row; the answer is one integer. Harder levels use larger
matrices (2x2 up to 5x5) with larger entries, so cofactor expansion or elimination needs
more careful bookkeeping. The gold value comes from fraction-free (Bareiss) elimination,
which is exact on integers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "matrix_determinant"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"min_size": (2, 6), "max_size": (2, 6), "max_entry": (1, 100)}

    min_size: int = 2
    max_size: int = 2
    max_entry: int = 9

    def check(self) -> None:
        if self.min_size > self.max_size:
            raise ValueError("Config.min_size must be <= max_size")


LEVELS = (
    {"min_size": 2, "max_size": 2, "max_entry": 9},
    {"min_size": 2, "max_size": 3, "max_entry": 9},
    {"min_size": 3, "max_size": 3, "max_entry": 9},
    {"min_size": 3, "max_size": 4, "max_entry": 9},
    {"min_size": 4, "max_size": 4, "max_entry": 12},
    {"min_size": 4, "max_size": 5, "max_entry": 15},
)


def determinant(matrix: list[list[int]]) -> int:
    """Bareiss fraction-free elimination: every intermediate division is exact."""
    a = [row[:] for row in matrix]
    n = len(a)
    sign, previous = 1, 1
    for k in range(n - 1):
        if a[k][k] == 0:
            swap = next((r for r in range(k + 1, n) if a[r][k] != 0), None)
            if swap is None:
                return 0
            a[k], a[swap] = a[swap], a[k]
            sign = -sign
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                a[i][j] = (a[i][j] * a[k][k] - a[i][k] * a[k][j]) // previous
        previous = a[k][k]
    return sign * a[n - 1][n - 1]


def generate(config: Config, rng: random.Random) -> Problem:
    size = rng.randint(config.min_size, config.max_size)
    matrix = [[rng.randint(-config.max_entry, config.max_entry) for _ in range(size)] for _ in range(size)]
    rows = "\n".join("  " + " ".join(f"{v:>4}" for v in row) for row in matrix)
    question = (
        f"Compute the determinant of the {size}x{size} matrix below (one row per line).\n\n{rows}\n\n"
        "Give a single integer."
    )
    return Problem(question, str(determinant(matrix)), {"matrix": matrix})


FAMILY = Family(
    name=NAME,
    description="Determinant of a 2x2..5x5 integer matrix (exact, one integer).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
)
