"""Nonogram: fill a grid from the run lengths of filled cells in every row and column.

A clue such as "3 1" means a run of three filled cells, a gap of at least one, then one
filled cell, in that order. Tests line-by-line deduction (overlap of the extreme
placements) carried across crossing lines. Harder levels are larger, less dense pictures, so
clues have more runs and fewer forced cells. Several pictures can share the same clues: the
scorer recomputes the clues of the answer, so any picture that matches all of them is right.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
from generators.base import Family, Knobs, Problem
from generators.families._puzzles import BINARY, grid_form, read_grid

NAME = "nonogram"


@dataclass(frozen=True)
class Config(Knobs):
    rows: int = 4
    cols: int = 4
    density: float = 0.6
    """Chance that a cell of the planted picture is filled."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "rows": (3, 15),
        "cols": (3, 15),
        "density": (0.2, 0.9),
    }


LEVELS: tuple[dict[str, object], ...] = (
    {"rows": 4, "cols": 4, "density": 0.6},
    {"rows": 5, "cols": 5, "density": 0.6},
    {"rows": 6, "cols": 6, "density": 0.6},
    {"rows": 7, "cols": 7, "density": 0.6},
    {"rows": 8, "cols": 8, "density": 0.6},
    {"rows": 10, "cols": 10, "density": 0.6},
)


def runs(line: str) -> list[int]:
    """Lengths of the maximal runs of 1s in a line written as 0/1 characters, left to right."""
    return [len(part) for part in line.split("0") if part]


def all_clues(lines: Sequence[str]) -> tuple[list[list[int]], list[list[int]]]:
    """Row and column clues of a picture given as rows of 0/1 characters."""
    return [runs(row) for row in lines], [runs("".join(col)) for col in zip(*lines)]


def _show(clue: list[int]) -> str:
    return " ".join(map(str, clue)) if clue else "0"


def generate(config: Config, rng: random.Random) -> Problem:
    rows, cols = config.rows, config.cols
    while True:
        lines = ["".join(["1" if rng.random() < config.density else "0" for _ in range(cols)]) for _ in range(rows)]
        row_clues, col_clues = all_clues(lines)
        if all(row_clues) and all(col_clues):
            break
    listed_rows = "\n".join(f"Row {i + 1}: {_show(c)}" for i, c in enumerate(row_clues))
    listed_cols = "\n".join(f"Column {i + 1}: {_show(c)}" for i, c in enumerate(col_clues))
    example = [[1, 1, 0], [0, 1, 1]]
    question = (
        f"Solve this {rows}x{cols} nonogram. Each clue lists, in order, the lengths of the runs of filled "
        "cells in that line (rows read left to right, columns top to bottom); runs are separated by at least "
        "one empty cell, and 0 means the line is empty.\n\n"
        f"{listed_rows}\n\n{listed_cols}\n\n"
        "Any picture that matches every clue is accepted. Write 1 for a filled cell and 0 for an empty one. "
        f"{grid_form(rows, cols, example)}"
    )
    return Problem(
        question,
        "\n".join(" ".join(row) for row in lines),
        {"rows": rows, "cols": cols, "row_clues": row_clues, "col_clues": col_clues},
    )


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 iff every row and column of the answer has exactly its clue's runs."""
    try:
        meta = item["metadata"]
        grid = read_grid(answer_text, int(meta["rows"]), int(meta["cols"]), BINARY)
        if grid is None:
            return 0.0
        want = ([list(c) for c in meta["row_clues"]], [list(c) for c in meta["col_clues"]])
        return 1.0 if all_clues(["".join(map(str, row)) for row in grid]) == want else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """The gold with its first filled cell emptied (that row's runs change)."""
    text = str(item["answer"])
    i = text.index("1")
    return [text[:i] + "0" + text[i + 1 :]]


FAMILY = Family(
    name=NAME,
    description="Nonogram: a 0/1 picture matching row and column run-length clues (any matching picture).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="",
)
