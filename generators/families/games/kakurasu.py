"""Kakurasu: shade cells of a grid so that weighted row and column sums meet their clues.

A shaded cell in column j (1-based) adds j to its row's sum; a shaded cell in row i adds i
to its column's sum. Tests constraint reasoning with subset sums (a row clue of 4 on a
four-wide row is either column 4 or columns 1 and 3) checked against the crossing column
clues. Harder levels are larger grids, so the subset choices multiply. Several shadings can
meet the same clues: the scorer checks the answer against every clue, so any of them is right.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
from generators.base import Family, Knobs, Problem
from generators.families._puzzles import BINARY, grid_form, read_grid, show_grid

NAME = "kakurasu"


@dataclass(frozen=True)
class Config(Knobs):
    rows: int = 3
    cols: int = 3
    density: float = 0.5
    """Chance that a cell of the planted solution is shaded."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "rows": (2, 12),
        "cols": (2, 12),
        "density": (0.1, 0.9),
    }


LEVELS: tuple[dict[str, object], ...] = (
    {"rows": 3, "cols": 4, "density": 0.5},
    {"rows": 4, "cols": 4, "density": 0.5},
    {"rows": 5, "cols": 5, "density": 0.5},
    {"rows": 6, "cols": 6, "density": 0.5},
    {"rows": 7, "cols": 7, "density": 0.5},
    {"rows": 8, "cols": 8, "density": 0.5},
)


def clues(grid: list[list[int]]) -> tuple[list[int], list[int]]:
    """(row sums of shaded column numbers, column sums of shaded row numbers), 1-based."""
    row_sums = [sum(c + 1 for c, v in enumerate(row) if v) for row in grid]
    col_sums = [sum(r + 1 for r, row in enumerate(grid) if row[c]) for c in range(len(grid[0]))]
    return row_sums, col_sums


def generate(config: Config, rng: random.Random) -> Problem:
    rows, cols = config.rows, config.cols
    while True:
        grid = [[int(rng.random() < config.density) for _ in range(cols)] for _ in range(rows)]
        cells = sum(map(sum, grid))
        if 0 < cells < rows * cols:
            break
    row_sums, col_sums = clues(grid)
    example = [[0, 1, 1], [1, 0, 0]]
    question = (
        f"Kakurasu on a {rows}x{cols} grid. Shade some cells so that:\n"
        f"- for each row, the column numbers (1 to {cols}, left to right) of its shaded cells add up to the "
        "row's clue;\n"
        f"- for each column, the row numbers (1 to {rows}, top to bottom) of its shaded cells add up to the "
        "column's clue.\n"
        f"Row clues, top to bottom: {', '.join(map(str, row_sums))}.\n"
        f"Column clues, left to right: {', '.join(map(str, col_sums))}.\n"
        "A clue of 0 means no shaded cell in that line. Any shading that meets every clue is accepted.\n"
        f"Write 1 for a shaded cell and 0 for an empty one. {grid_form(rows, cols, example)}"
    )
    return Problem(question, show_grid(grid), {"rows": rows, "cols": cols, "row_sums": row_sums, "col_sums": col_sums})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 iff the answer grid meets every row and column clue."""
    try:
        meta = item["metadata"]
        grid = read_grid(answer_text, int(meta["rows"]), int(meta["cols"]), BINARY)
        if grid is None:
            return 0.0
        return 1.0 if clues(grid) == (list(meta["row_sums"]), list(meta["col_sums"])) else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """The gold with its first shaded cell cleared (misses that row's and column's clues)."""
    text = str(item["answer"])
    i = text.index("1")
    return [text[:i] + "0" + text[i + 1 :]]


FAMILY = Family(
    name=NAME,
    description="Kakurasu: shade a grid so weighted row and column sums meet the clues (any solution).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:kakurasu",
)
