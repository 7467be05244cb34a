"""Continue a sequence of small ASCII figures: each follows from the one before by the
same hidden change (a turn, a mirror flip, a one-step cyclic shift, swapping filled and
empty cells, or, harder, a flip followed by a shift or swap).

Tests visual induction. Three figures are shown; every change of the set (all flips and
turns combined with every shift and the swap) that fits both steps shown is tried, and
the item is redrawn unless all of them agree on the next figure, so the answer is fixed by
what is shown. Harder levels use larger figures and composed changes.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._grids import render_text, score_grid

NAME = "figure_pattern"

Figure = tuple[str, ...]
CELLS = frozenset("#.")
_INVERT = str.maketrans("#.", ".#")


def _transpose(figure: Figure) -> Figure:
    return tuple("".join(col) for col in zip(*figure, strict=True))


def _half_turn(figure: Figure) -> Figure:
    return tuple(row[::-1] for row in figure[::-1])


GEOMETRIC: dict[str, Callable[[Figure], Figure]] = {
    "none": lambda f: f,
    "turn clockwise": lambda f: tuple("".join(col) for col in zip(*f[::-1], strict=True)),
    "turn anticlockwise": lambda f: tuple("".join(col) for col in zip(*f, strict=True))[::-1],
    "half turn": _half_turn,
    "mirror left-right": lambda f: tuple(row[::-1] for row in f),
    "mirror top-bottom": lambda f: f[::-1],
    "transpose": _transpose,
    "anti-transpose": lambda f: _half_turn(_transpose(f)),
}
MOVES: dict[str, Callable[[Figure], Figure]] = {
    "none": lambda f: f,
    "shift right": lambda f: tuple(row[-1] + row[:-1] for row in f),
    "shift left": lambda f: tuple(row[1:] + row[0] for row in f),
    "shift down": lambda f: f[-1:] + f[:-1],
    "shift up": lambda f: f[1:] + f[:1],
    "swap": lambda f: tuple(row.translate(_INVERT) for row in f),
}


def change(geometric: str, move: str) -> Callable[[Figure], Figure]:
    flip, shift = GEOMETRIC[geometric], MOVES[move]
    return lambda figure: shift(flip(figure))


_ALL = [change(g, m) for g in GEOMETRIC for m in MOVES]


@dataclass(frozen=True)
class Config(Knobs):
    min_size: int = 3
    max_size: int = 4
    composed: bool = False
    """The change is a flip or turn followed by a shift or swap (else one of them alone)."""

    RANGES: ClassVar = {"min_size": (3, 12), "max_size": (3, 12)}

    def check(self) -> None:
        if self.min_size > self.max_size:
            raise ValueError("figure_pattern: min_size must be <= max_size")


LEVELS = (
    {"min_size": 3, "max_size": 4},
    {"min_size": 4, "max_size": 5},
    {"min_size": 4, "max_size": 6},
    {"min_size": 4, "max_size": 6, "composed": True},
    {"min_size": 5, "max_size": 7, "composed": True},
    {"min_size": 6, "max_size": 8, "composed": True},
)

_ATTEMPTS = 60
SHOWN = 3


def generate(config: Config, rng: random.Random) -> Problem:
    geometric_names = [name for name in GEOMETRIC if name != "none"]
    move_names = [name for name in MOVES if name != "none"]
    for _ in range(_ATTEMPTS):
        if config.composed:
            geometric, move = rng.choice(geometric_names), rng.choice(move_names)
        elif rng.random() < 0.5:
            geometric, move = rng.choice(geometric_names), "none"
        else:
            geometric, move = "none", rng.choice(move_names)
        size = rng.randint(config.min_size, config.max_size)
        figure = tuple("".join(rng.choices("#.", k=size)) for _ in range(size))
        rule = change(geometric, move)
        figures = [figure]
        for _ in range(SHOWN):
            figures.append(rule(figures[-1]))
        if len(set(figures)) < len(figures):
            continue  # a repeat would let "copy an earlier figure" pass for the rule
        shown, answer = figures[:SHOWN], figures[SHOWN]
        steps = list(itertools.pairwise(shown))
        if all(c(shown[-1]) == answer for c in _ALL if all(c(a) == b for a, b in steps)):
            drawn = "\n\n".join(f"Figure {i + 1}:\n{render_text(f)}" for i, f in enumerate(shown))
            question = (
                "Each figure below ('#' filled, '.' empty) follows from the one before it by the same change.\n\n"
                f"{drawn}\n\n"
                f"Draw figure {SHOWN + 1}: one row per line, written like the figures above, and nothing after it."
            )
            return Problem(question, render_text(answer), {"change": [geometric, move]})
    raise ValueError("figure_pattern: no figure sequence with a determined next figure drawn")


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """The exact next figure, rows in order (cells may be spaced or comma separated)."""
    return score_grid(answer_text, item, CELLS)


FAMILY = Family(
    name=NAME,
    description="The next of a sequence of small ASCII figures changed by a hidden flip, turn, shift or swap.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="",
)
