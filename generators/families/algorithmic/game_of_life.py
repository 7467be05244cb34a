"""Conway's Game of Life: the board after a number of steps on a wrapping (toroidal) grid.

Rules: a live cell with two or three live neighbours survives, a dead cell with exactly
three live neighbours becomes alive, every other cell is dead next step; neighbours are
the eight surrounding cells and the edges wrap round. Boards whose result is empty are
redrawn, so "all dead" is never the answer. Harder levels use larger boards and more
steps.

The answer is the final board as rows of 0/1, read like any matrix answer (``_grid``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._grid import format_matrix, score_matrix, show_matrix

NAME = "game_of_life"
_ATTEMPTS = 50


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"min_size": (4, 20), "max_size": (4, 20), "steps": (1, 10), "density": (0.1, 0.7)}

    min_size: int = 5
    max_size: int = 6
    steps: int = 1
    density: float = 0.35

    def check(self) -> None:
        if self.min_size > self.max_size:
            raise ValueError("Config.min_size must be <= max_size")


LEVELS = (
    {"min_size": 5, "max_size": 6, "steps": 1, "density": 0.35},
    {"min_size": 6, "max_size": 7, "steps": 1, "density": 0.35},
    {"min_size": 6, "max_size": 8, "steps": 2, "density": 0.35},
    {"min_size": 7, "max_size": 9, "steps": 2, "density": 0.4},
    {"min_size": 8, "max_size": 10, "steps": 3, "density": 0.4},
    {"min_size": 9, "max_size": 12, "steps": 4, "density": 0.4},
)


def step(board: list[list[int]]) -> list[list[int]]:
    height, width = len(board), len(board[0])
    out = []
    for r in range(height):
        above, here, below = board[r - 1], board[r], board[(r + 1) % height]
        row = []
        for c in range(width):
            left, right = c - 1, (c + 1) % width
            n = above[left] + above[c] + above[right] + here[left] + here[right] + below[left] + below[c] + below[right]
            row.append(1 if n == 3 or (n == 2 and here[c]) else 0)
        out.append(row)
    return out


def generate(config: Config, rng: random.Random) -> Problem:
    for _ in range(_ATTEMPTS):
        height = rng.randint(config.min_size, config.max_size)
        width = rng.randint(config.min_size, config.max_size)
        board = [[1 if rng.random() < config.density else 0 for _ in range(width)] for _ in range(height)]
        result = board
        for _ in range(config.steps):
            result = step(result)
        if any(v for row in result for v in row):
            break
    else:  # every draw died out: cannot happen at these densities in practice
        raise ValueError("game_of_life: no board with survivors")
    steps = "1 step" if config.steps == 1 else f"{config.steps} steps"
    question = (
        f"Run Conway's Game of Life for {steps} on the {height}x{width} board below (1 = alive, 0 = dead).\n"
        "A live cell with 2 or 3 live neighbours stays alive; a dead cell with exactly 3 live neighbours becomes "
        "alive; every other cell is dead in the next step. Neighbours are the 8 surrounding cells, and the board "
        "wraps around at its edges (the top row neighbours the bottom row, the left column the right column).\n\n"
        f"{show_matrix(board)}\n\n"
        "Give the board after the last step as a list of rows of 0 and 1, for example [[0, 1, 0], [1, 1, 0]]."
    )
    return Problem(question, format_matrix(result), {"board": board, "steps": config.steps})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the response's board is the final board, cell for cell."""
    return score_matrix(answer_text, item)


FAMILY = Family(
    name=NAME,
    description="Game of Life board after 1-4 steps on a wrapping grid (never all dead).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:game_of_life",
)
