"""Write a block of letters as it looks after mirror flips and quarter turns.

Tests mental transformation of a 2-D arrangement: the block is given with the steps
("mirror it left to right, then turn it a quarter turn clockwise") and the answer is the
resulting block, row by row. Harder levels use larger, non-square blocks and chain more
steps, so the steps can no longer be undone by eye one at a time.
"""

from __future__ import annotations

import random
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._grids import render_text, score_grid

NAME = "mirror_text"

LETTERS = frozenset(string.ascii_uppercase)
STEPS = {
    "mirror it left to right": lambda rows: [row[::-1] for row in rows],
    "flip it upside down": lambda rows: rows[::-1],
    "turn it a quarter turn clockwise": lambda rows: ["".join(col) for col in zip(*rows[::-1], strict=True)],
    "turn it a quarter turn anticlockwise": lambda rows: ["".join(col) for col in zip(*rows, strict=True)][::-1],
    "turn it half a turn": lambda rows: [row[::-1] for row in rows[::-1]],
}


@dataclass(frozen=True)
class Config(Knobs):
    min_size: int = 3
    max_size: int = 3
    min_steps: int = 1
    max_steps: int = 1

    RANGES: ClassVar = {"min_size": (2, 12), "max_size": (2, 12), "min_steps": (1, 8), "max_steps": (1, 8)}

    def check(self) -> None:
        if self.min_size > self.max_size or self.min_steps > self.max_steps:
            raise ValueError("mirror_text: min_size/min_steps must be <= max_size/max_steps")


LEVELS = (
    {"min_size": 3, "max_size": 3, "min_steps": 1, "max_steps": 1},
    {"min_size": 3, "max_size": 4, "min_steps": 1, "max_steps": 2},
    {"min_size": 3, "max_size": 5, "min_steps": 2, "max_steps": 2},
    {"min_size": 4, "max_size": 6, "min_steps": 2, "max_steps": 3},
    {"min_size": 4, "max_size": 7, "min_steps": 3, "max_steps": 4},
    {"min_size": 5, "max_size": 8, "min_steps": 4, "max_steps": 5},
)


def generate(config: Config, rng: random.Random) -> Problem:
    height = rng.randint(config.min_size, config.max_size)
    width = rng.randint(config.min_size, config.max_size)
    letters = rng.choices(string.ascii_uppercase, k=height * width)
    block = ["".join(letters[r * width : (r + 1) * width]) for r in range(height)]
    for _ in range(10):
        names = rng.choices(list(STEPS), k=rng.randint(config.min_steps, config.max_steps))
        rows = block
        for name in names:
            rows = STEPS[name](rows)
        if rows != block:  # steps that cancel out would make the block itself the answer
            break
    else:
        raise ValueError("mirror_text: the drawn steps keep cancelling out")
    said = ", then ".join(names)
    question = (
        f"Here is a block of letters:\n\n{render_text(block)}\n\n"
        f"Take the block as a picture and {said}. Write the resulting block: one row per line, "
        "the capital letters of a row written together with no spaces, and nothing after it."
    )
    return Problem(question, render_text(rows), {"steps": names})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """The exact block, rows in order; letters may be spaced or comma separated."""
    return score_grid(answer_text, item, LETTERS)


FAMILY = Family(
    name=NAME,
    description="A block of letters after told mirror flips and quarter turns, written row by row.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="",
)
