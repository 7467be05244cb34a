"""Survo: place the given numbers in the blank cells so that every row and column adds up.

The last column holds each row's total and the last row each column's total. Tests
arithmetic constraint solving with a fixed multiset of numbers to place: the numbers are
not free, so a row's missing amount must be matched by one of the offered values that also
fits its column. Harder levels are larger grids with more blanks and larger numbers.
The answer lists the blanks' values in reading order; the scorer places them and checks
every sum and that exactly the offered numbers were used, so any valid placement is right.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer
from generators.base import Family, Knobs, Problem

NAME = "survo"


@dataclass(frozen=True)
class Config(Knobs):
    size: int = 3
    """Inner cells are size x size; the drawn grid adds a totals row and column."""
    blanks: int = 3
    max_value: int = 9

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "size": (2, 8),
        "blanks": (1, 40),
        "max_value": (3, 99),
    }

    def check(self) -> None:
        if self.blanks > self.size * self.size:
            raise ValueError("survo: blanks must be at most size * size")


LEVELS: tuple[dict[str, object], ...] = (
    {"size": 3, "blanks": 3, "max_value": 9},
    {"size": 3, "blanks": 4, "max_value": 9},
    {"size": 4, "blanks": 5, "max_value": 9},
    {"size": 4, "blanks": 7, "max_value": 12},
    {"size": 5, "blanks": 9, "max_value": 15},
    {"size": 5, "blanks": 12, "max_value": 20},
)


def generate(config: Config, rng: random.Random) -> Problem:
    n = config.size
    cells = [[rng.randint(1, config.max_value) for _ in range(n)] for _ in range(n)]
    row_sums = [sum(row) for row in cells]
    col_sums = [sum(col) for col in zip(*cells)]
    blank = sorted(rng.sample(range(n * n), config.blanks))
    blank_set = frozenset(blank)
    values = [cells[i // n][i % n] for i in blank]
    offered = sorted(values)
    width = len(str(max(max(row_sums), max(col_sums), sum(row_sums))))
    lines = []
    for r in range(n):
        shown = ["_" if r * n + c in blank_set else str(cells[r][c]) for c in range(n)]
        lines.append(" ".join(v.rjust(width) for v in [*shown, str(row_sums[r])]))
    lines.append(" ".join(str(v).rjust(width) for v in [*col_sums, sum(row_sums)]))
    question = (
        f"Survo puzzle. In the grid below the last column holds the total of each row and the last row the "
        f"total of each column (its last cell is the grand total). Fill the {len(blank)} blanks (_) with "
        f"these numbers, using each exactly once: {', '.join(map(str, offered))}.\n\n"
        + "\n".join(lines)
        + "\n\nAnswer with the numbers you put in the blanks in reading order (row by row from the top, left "
        "to right within a row), separated by commas. Any placement that makes every total right is accepted."
    )
    givens = [[0 if r * n + c in blank_set else cells[r][c] for c in range(n)] for r in range(n)]
    return Problem(
        question,
        ", ".join(map(str, values)),
        {"size": n, "givens": givens, "blanks": blank, "row_sums": row_sums, "col_sums": col_sums, "offered": offered},
    )


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 iff the answer uses exactly the offered numbers and makes every total right."""
    try:
        meta = item["metadata"]
        n = int(meta["size"])
        blanks = [int(i) for i in meta["blanks"]]
        text = extract_answer(answer_text)
        if not text or len(text) > 6 * len(blanks) + 32:
            return 0.0
        if text[:1] in "[(" and text[-1:] in "])":
            text = text[1:-1]
        tokens = text.replace(",", " ").split()
        if len(tokens) != len(blanks) or not all(t.isdigit() and len(t) <= 4 for t in tokens):
            return 0.0
        values = [int(t) for t in tokens]
        if sorted(values) != sorted(int(v) for v in meta["offered"]):
            return 0.0
        grid = [[int(v) for v in row] for row in meta["givens"]]
        for i, value in zip(blanks, values, strict=True):
            grid[i // n][i % n] = value
        rows_ok = [sum(row) for row in grid] == [int(v) for v in meta["row_sums"]]
        cols_ok = [sum(col) for col in zip(*grid)] == [int(v) for v in meta["col_sums"]]
        return 1.0 if rows_ok and cols_ok else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """The offered numbers in ascending order, when that placement breaks a total."""
    offered = ", ".join(str(v) for v in item["metadata"]["offered"])
    out = [offered] if score(offered, item) == 0.0 else []
    values = str(item["answer"]).split(", ")
    out.append(", ".join([*values[:-1], str(int(values[-1]) + 1)]))
    return out


FAMILY = Family(
    name=NAME,
    description="Survo: place offered numbers in the blanks so every row and column total is right (any valid).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
    score=score,
    counterpart="reasoning_gym:survo",
)
