"""Count one symbol (or, harder, either of two) in a noisy ASCII picture.

Tests careful visual counting rather than reasoning: the picture is filled with other
symbols, and at harder levels those include look-alikes of the target (``0``/``O``/``o``,
``l``/``1``/``I``/``|``), the picture grows, and the question asks for the total of two
symbols. The number of targets is drawn uniformly from a wide range first and then
planted, so no single count is common enough for a constant answer to pay.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "symbol_count"

PLAIN = "*#@+%&=~"
"""Symbols that look unlike each other."""
LOOKALIKES = ("0Oo", "l1I|", "5S$", "8B&", "xX*", ":;,")
"""Groups of symbols that are easy to confuse at a glance."""


@dataclass(frozen=True)
class Config(Knobs):
    rows: int = 6
    cols: int = 10
    max_count: int = 30
    """The number of targets is drawn from 1..max_count."""
    lookalikes: bool = False
    """Fill the picture with symbols that resemble the target."""
    pair: bool = False
    """Ask for the total of two symbols."""

    RANGES: ClassVar = {"rows": (3, 40), "cols": (3, 80), "max_count": (12, 2000)}

    def check(self) -> None:
        if self.max_count > self.rows * self.cols // 2:
            raise ValueError("symbol_count: max_count must be at most half the cells")


LEVELS = (
    {"rows": 6, "cols": 10, "max_count": 30},
    {"rows": 8, "cols": 14, "max_count": 40},
    {"rows": 10, "cols": 20, "max_count": 60, "lookalikes": True},
    {"rows": 12, "cols": 24, "max_count": 80, "lookalikes": True},
    {"rows": 14, "cols": 30, "max_count": 120, "lookalikes": True, "pair": True},
    {"rows": 18, "cols": 36, "max_count": 160, "lookalikes": True, "pair": True},
)


def generate(config: Config, rng: random.Random) -> Problem:
    if config.lookalikes:
        group = rng.choice(LOOKALIKES)
        others = "".join(rng.sample([s for s in PLAIN if s not in group], 2))
        pool = group + others
    else:
        pool = "".join(rng.sample(PLAIN, 4))
    targets = rng.sample(pool[: 3 if config.lookalikes else 4], 2 if config.pair else 1)
    fillers = [s for s in pool if s not in targets]
    cells = config.rows * config.cols
    count = rng.randint(1, config.max_count)
    picture = rng.choices(fillers, k=cells)
    positions = rng.sample(range(cells), count)
    split = rng.randint(1, count - 1) if config.pair and count > 1 else count
    for index, position in enumerate(positions):
        picture[position] = targets[0] if index < split else targets[-1]
    rows = ["".join(picture[r * config.cols : (r + 1) * config.cols]) for r in range(config.rows)]
    asked = " or ".join(f"'{t}'" for t in targets)
    what = f"characters that are {asked}" if config.pair else f"times the character {asked} appears"
    question = (
        "Here is a picture made of characters:\n\n" + "\n".join(rows) + "\n\n"
        f"Count the {what} in the picture (case matters). Answer with a single integer."
    )
    return Problem(question, str(count), {"targets": targets})


FAMILY = Family(
    name=NAME,
    description="Count one or two given symbols in a noisy ASCII picture with look-alike distractors.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
    counterpart="",
)
