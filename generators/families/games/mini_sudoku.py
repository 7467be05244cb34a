"""Mini Sudoku: complete a 4x4 grid with 2x2 boxes that has exactly one solution.

Tests constraint propagation on a grid small enough to hold in mind, where harder levels
remove more givens (down to the fewest a unique 4x4 puzzle allows), so single-step
deductions run out and cells must be reasoned through rows, columns and boxes at once.
Every removal is kept only if the solver still finds exactly one completion.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
from generators.base import Family, Knobs, Problem
from generators.families._puzzles import grid_form, read_grid, show_grid
from generators.families.games.sudoku import count_solutions, solved_grid

NAME = "mini_sudoku"

SIZE = 4


@dataclass(frozen=True)
class Config(Knobs):
    min_holes: int = 4
    max_holes: int = 6

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {"min_holes": (1, 13), "max_holes": (1, 13)}

    def check(self) -> None:
        if self.min_holes > self.max_holes:
            raise ValueError("mini_sudoku: min_holes must be <= max_holes")


LEVELS: tuple[dict[str, object], ...] = (
    {"min_holes": 4, "max_holes": 6},
    {"min_holes": 6, "max_holes": 8},
    {"min_holes": 8, "max_holes": 9},
    {"min_holes": 9, "max_holes": 10},
    {"min_holes": 10, "max_holes": 11},
    {"min_holes": 11, "max_holes": 12},
)


def generate(config: Config, rng: random.Random) -> Problem:
    solution = solved_grid(SIZE, rng)
    target = rng.randint(config.min_holes, config.max_holes)
    puzzle = list(solution)
    holes = 0
    for cell in rng.sample(range(SIZE * SIZE), SIZE * SIZE):
        if holes >= target:
            break
        digit = puzzle[cell]
        puzzle[cell] = 0
        # Still unique iff no completion puts another digit in the blanked cell.
        if count_solutions(puzzle, SIZE, limit=1, exclude=(cell, digit)) == 0:
            holes += 1
        else:
            puzzle[cell] = digit
    rows = [solution[r * SIZE : (r + 1) * SIZE] for r in range(SIZE)]
    drawing = "\n".join(" ".join(str(v) if v else "_" for v in puzzle[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE))
    question = (
        "Solve this 4x4 Mini Sudoku. Fill every _ with a digit from 1 to 4 so that each row, each column "
        "and each of the four 2x2 boxes (the corners of the grid) contains 1, 2, 3 and 4 exactly once. The "
        f"solution is unique.\n\n{drawing}\n\n"
        f"{grid_form(SIZE, SIZE, [[1, 2, 3, 4], [3, 4, 1, 2]])}"
    )
    return Problem(question, show_grid(rows), {"puzzle": "".join(map(str, puzzle)), "holes": holes})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 iff the answer keeps every given and is a valid full 4x4 Sudoku (the unique solution)."""
    try:
        grid = read_grid(answer_text, SIZE, SIZE, frozenset("1234"))
        puzzle = [int(ch) for ch in str(item["metadata"]["puzzle"])]
        if grid is None or len(puzzle) != SIZE * SIZE:
            return 0.0
        flat = [v for row in grid for v in row]
        if any(p and p != g for p, g in zip(puzzle, flat, strict=True)):
            return 0.0
        return 1.0 if count_solutions(flat, SIZE, limit=1) == 1 else 0.0
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    description="Complete a 4x4 Sudoku (2x2 boxes) that has a unique solution.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:mini_sudoku",
    notes="4x4 Sudoku has 288 solved grids; items differ by grid and hole pattern. The hardest level asks "
    "for 11-12 holes; a removal that would break uniqueness is skipped, so 'holes' records the real count.",
)
