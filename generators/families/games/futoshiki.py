"""Futoshiki: fill a Latin square that respects the inequality signs between neighbours.

Each row and column holds 1..n once; a ``<``/``>`` between two side-by-side cells, or a
``∧``/``∨`` between two stacked cells, says which of them is smaller. Tests combining
all-different constraints with order constraints (a cell left of three ``<`` signs is at
most n - 3). Harder levels are larger grids with a larger share of blank cells. The scorer
checks the answer against every rule of the drawn puzzle, so any valid filling is right
(a planted solution guarantees one exists).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
from generators.base import Family, Knobs, Problem
from generators.families._puzzles import grid_form, read_grid, show_grid

NAME = "futoshiki"


@dataclass(frozen=True)
class Config(Knobs):
    size: int = 4
    blank_share: float = 0.5
    """Share of cells left blank."""
    sign_share: float = 0.4
    """Chance that a pair of neighbouring cells shows its inequality."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "size": (3, 9),
        "blank_share": (0.1, 1.0),
        "sign_share": (0.0, 1.0),
    }


LEVELS: tuple[dict[str, object], ...] = (
    {"size": 4, "blank_share": 0.5, "sign_share": 0.4},
    {"size": 4, "blank_share": 0.7, "sign_share": 0.4},
    {"size": 5, "blank_share": 0.7, "sign_share": 0.4},
    {"size": 5, "blank_share": 0.85, "sign_share": 0.4},
    {"size": 6, "blank_share": 0.85, "sign_share": 0.4},
    {"size": 7, "blank_share": 0.9, "sign_share": 0.4},
)


def latin_square(n: int, rng: random.Random) -> list[list[int]]:
    """The cyclic square with rows, columns and symbols shuffled."""
    rows, cols, symbols = rng.sample(range(n), n), rng.sample(range(n), n), rng.sample(range(1, n + 1), n)
    return [[symbols[(r + c) % n] for c in cols] for r in rows]


def valid(grid: list[list[int]], givens: list[list[int]], across: list[str], down: list[str]) -> bool:
    """Latin, keeps the givens, and meets every sign (``across[r]``/``down[r]`` strings of
    ``<``, ``>`` or ``.`` between cell c and c + 1 / row r and r + 1)."""
    n = len(grid)
    want = list(range(1, n + 1))
    if any(sorted(row) != want for row in grid) or any(sorted(col) != want for col in zip(*grid)):
        return False
    if any(g and g != v for grow, row in zip(givens, grid) for g, v in zip(grow, row)):
        return False
    for r in range(n):
        for c in range(n - 1):
            sign = across[r][c]
            if (sign == "<" and grid[r][c] > grid[r][c + 1]) or (sign == ">" and grid[r][c] < grid[r][c + 1]):
                return False
    for r in range(n - 1):
        for c in range(n):
            sign = down[r][c]
            if (sign == "<" and grid[r][c] > grid[r + 1][c]) or (sign == ">" and grid[r][c] < grid[r + 1][c]):
                return False
    return True


def generate(config: Config, rng: random.Random) -> Problem:
    n = config.size
    solution = latin_square(n, rng)
    blanks = set(rng.sample(range(n * n), round(config.blank_share * n * n)))
    givens = [[0 if r * n + c in blanks else solution[r][c] for c in range(n)] for r in range(n)]

    def sign(a: int, b: int) -> str:
        return ("<" if a < b else ">") if rng.random() < config.sign_share else "."

    across = ["".join(sign(solution[r][c], solution[r][c + 1]) for c in range(n - 1)) for r in range(n)]
    down = ["".join(sign(solution[r][c], solution[r + 1][c]) for c in range(n)) for r in range(n - 1)]
    lines = []
    for r in range(n):
        cells = [str(v) if v else "_" for v in givens[r]]
        line = cells[0]
        for c in range(n - 1):
            line += f" {across[r][c].replace('.', ' ')} {cells[c + 1]}"
        lines.append(line)
        if r < n - 1:
            marks = "   ".join({"<": "∧", ">": "∨", ".": " "}[s] for s in down[r])
            lines.append(marks.rstrip())
    example = [[1, 2, 3], [2, 3, 1]]
    question = (
        f"Solve this {n}x{n} Futoshiki. Fill every _ with a digit from 1 to {n} so that each row and each "
        f"column contains every digit from 1 to {n} exactly once, and every sign holds: < and > compare the "
        "two cells beside them; ∧ under a cell means that cell is smaller than the one below it, ∨ means it "
        "is larger.\n\n"
        + "\n".join(lines)
        + "\n\nAny filling that satisfies every rule is accepted. "
        + grid_form(n, n, example)
    )
    return Problem(
        question,
        show_grid(solution),
        {"size": n, "givens": show_grid(givens).splitlines(), "across": across, "down": down},
    )


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 iff the answer is a Latin square that keeps the givens and meets every sign."""
    try:
        meta = item["metadata"]
        n = int(meta["size"])
        grid = read_grid(answer_text, n, n)
        if grid is None:
            return 0.0
        givens = [[int(v) for v in row.split()] for row in meta["givens"]]
        across, down = [str(s) for s in meta["across"]], [str(s) for s in meta["down"]]
        if len(givens) != n or len(across) != n or len(down) != n - 1:
            return 0.0
        return 1.0 if valid(grid, givens, across, down) else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """The gold with its first two rows swapped (a Latin square that breaks a given or a sign
    in almost every item) and with two digits of a row swapped (breaks the columns)."""
    rows = str(item["answer"]).splitlines()
    swapped_rows = "\n".join([rows[1], rows[0], *rows[2:]])
    first = rows[0].split()
    first[0], first[1] = first[1], first[0]
    out = ["\n".join([" ".join(first), *rows[1:]]), swapped_rows]
    return [text for text in out if score(text, item) == 0.0] or out[:1]


FAMILY = Family(
    name=NAME,
    description="Futoshiki: a Latin square meeting inequality signs between neighbours (any valid filling).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:futoshiki",
    notes="Puzzles are not carved to a unique solution: the scorer verifies the rules, so every valid filling "
    "scores 1.",
)
