"""Distance from every cell of a 0/1 matrix to its nearest 0.

Distance counts steps up, down, left or right (Manhattan distance through the grid). The
answer is a matrix of distances, computed by multi-source breadth-first search. Harder
levels use larger grids with fewer zeros, so distances grow and a cell's nearest zero is
further from obvious.

The answer is read as a nested list, ``;``-separated rows or one row per line and must
match cell for cell.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._grid import format_matrix, score_matrix, show_matrix

NAME = "binary_matrix"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"min_size": (2, 20), "max_size": (2, 20), "one_share": (0.0, 0.95)}

    min_size: int = 3
    max_size: int = 4
    one_share: float = 0.5
    """Chance that a cell is 1 (at least one cell is always 0)."""

    def check(self) -> None:
        if self.min_size > self.max_size:
            raise ValueError("Config.min_size must be <= max_size")


LEVELS = (
    {"min_size": 3, "max_size": 4, "one_share": 0.5},
    {"min_size": 4, "max_size": 5, "one_share": 0.6},
    {"min_size": 5, "max_size": 6, "one_share": 0.7},
    {"min_size": 6, "max_size": 7, "one_share": 0.75},
    {"min_size": 7, "max_size": 8, "one_share": 0.8},
    {"min_size": 8, "max_size": 10, "one_share": 0.85},
)


def distances(grid: list[list[int]]) -> list[list[int]]:
    height, width = len(grid), len(grid[0])
    dist = [[-1] * width for _ in range(height)]
    queue: deque[tuple[int, int]] = deque()
    for r in range(height):
        for c in range(width):
            if grid[r][c] == 0:
                dist[r][c] = 0
                queue.append((r, c))
    while queue:
        r, c = queue.popleft()
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= nr < height and 0 <= nc < width and dist[nr][nc] < 0:
                dist[nr][nc] = dist[r][c] + 1
                queue.append((nr, nc))
    return dist


def generate(config: Config, rng: random.Random) -> Problem:
    height = rng.randint(config.min_size, config.max_size)
    width = rng.randint(config.min_size, config.max_size)
    grid = [[1 if rng.random() < config.one_share else 0 for _ in range(width)] for _ in range(height)]
    if all(v for row in grid for v in row):
        grid[rng.randrange(height)][rng.randrange(width)] = 0
    question = (
        f"For every cell of the {height}x{width} binary matrix below, find the distance to the nearest 0. "
        "A step moves one cell up, down, left or right; a 0 cell has distance 0.\n\n"
        f"{show_matrix(grid)}\n\n"
        "Give the matrix of distances as a list of rows, for example [[0, 1], [1, 2]]."
    )
    return Problem(question, format_matrix(distances(grid)), {"matrix": grid})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the response's matrix is the distance matrix, cell for cell."""
    return score_matrix(answer_text, item)


FAMILY = Family(
    name=NAME,
    description="Distance of each cell of a 0/1 matrix to its nearest 0 (4-neighbour steps).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:binary_matrix",
)
