"""Lights Out: which buttons to press so that every light of the board goes off.

Pressing a square flips it and its up/down/left/right neighbours. Tests reasoning over
XOR (GF(2)) constraints: the order of presses does not matter and pressing twice undoes a
press, so the answer is a set of squares, written as a 0/1 grid. Harder levels are larger
boards made from more random presses, so chasing the lights row by row needs more steps.
Boards of some sizes (4x4, 5x5) have several press sets that clear them: the scorer replays
the presses, so any press set that turns every light off is right.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
from generators.base import Family, Knobs, Problem
from generators.families._puzzles import BINARY, grid_form, read_grid, show_grid

NAME = "lights_out"


@dataclass(frozen=True)
class Config(Knobs):
    size: int = 4
    min_presses: int = 2
    max_presses: int = 4

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "size": (3, 9),
        "min_presses": (1, 81),
        "max_presses": (1, 81),
    }

    def check(self) -> None:
        if self.min_presses > self.max_presses:
            raise ValueError("lights_out: min_presses must be <= max_presses")
        if self.max_presses > self.size * self.size:
            raise ValueError("lights_out: max_presses must be at most size * size")


LEVELS: tuple[dict[str, object], ...] = (
    {"size": 4, "min_presses": 2, "max_presses": 5},
    {"size": 4, "min_presses": 3, "max_presses": 6},
    {"size": 5, "min_presses": 4, "max_presses": 7},
    {"size": 5, "min_presses": 5, "max_presses": 9},
    {"size": 6, "min_presses": 7, "max_presses": 12},
    {"size": 7, "min_presses": 9, "max_presses": 16},
)


def apply(board: list[list[int]], presses: list[list[int]]) -> list[list[int]]:
    """The board after pressing every square marked 1 in ``presses`` (order is irrelevant)."""
    n = len(board)
    out = [list(row) for row in board]
    for r in range(n):
        for c in range(n):
            if presses[r][c]:
                for dr, dc in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
                    if 0 <= r + dr < n and 0 <= c + dc < n:
                        out[r + dr][c + dc] ^= 1
    return out


def generate(config: Config, rng: random.Random) -> Problem:
    n = config.size
    while True:
        count = rng.randint(config.min_presses, config.max_presses)
        chosen = frozenset(rng.sample(range(n * n), count))
        presses = [[int(r * n + c in chosen) for c in range(n)] for r in range(n)]
        board = apply([[0] * n for _ in range(n)], presses)
        if any(any(row) for row in board):
            break
    example = [[1 if (r + c) % 3 == 0 else 0 for c in range(3)] for r in range(2)]
    drawing = show_grid(board)
    question = (
        f"Lights Out on a {n}x{n} board: 1 is a light that is on, 0 a light that is off.\n\n"
        f"{drawing}\n\n"
        "Pressing a square flips that light and the lights directly above, below, left and right of it "
        "(on <-> off). Which squares must be pressed (each at most once; the order does not matter) to turn "
        "every light off? Any set of presses that does it is accepted.\n"
        f"Mark each square to press with 1 and every other square with 0. {grid_form(n, n, example)}"
    )
    return Problem(question, show_grid(presses), {"size": n, "board": drawing.splitlines()})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 iff pressing the answer's squares turns the item's board fully off."""
    try:
        meta = item["metadata"]
        n = int(meta["size"])
        board = [[int(v) for v in row.split()] for row in meta["board"]]
        presses = read_grid(answer_text, n, n, BINARY)
        if presses is None or len(board) != n:
            return 0.0
        return 1.0 if not any(any(row) for row in apply(board, presses)) else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """The gold with one press dropped, and the lit squares themselves pressed."""
    rows = [row.split() for row in str(item["answer"]).splitlines()]
    r, c = next((r, c) for r, row in enumerate(rows) for c, v in enumerate(row) if v == "1")
    rows[r][c] = "0"
    lit = "\n".join(item["metadata"]["board"])
    out = ["\n".join(" ".join(row) for row in rows)]
    if lit != item["answer"]:
        out.append(lit)
    return [text for text in out if score(text, item) == 0.0] or out[:1]


FAMILY = Family(
    name=NAME,
    description="Lights Out: a 0/1 grid of squares to press that turns a board fully off (any solution).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="",
)
