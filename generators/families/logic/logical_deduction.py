"""Logical deduction over an ordering: place objects on a shelf from positional clues.

Tests constraint reasoning of the BIG-bench "logical deduction" kind: n books of different
colours stand in a row and the clues fix their order ("the red book is second from the
left", "the blue book is somewhere left of the green one", "the grey book is directly right
of the white one", "the black book is not at either end"). Harder levels add books and
favour relative and negative clues over absolute positions, so more clues must be combined.

Clues are drawn against the remaining candidate orders: each new clue is true of the hidden
order and rules out at least one rival still standing, until exactly one order is left, so
the puzzle has a unique solution by construction (and the tests re-check it by brute force
over every permutation). The answer is the whole row, compared as an ordered list.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "logical_deduction"

_COLOURS = ("red", "blue", "green", "yellow", "white", "black", "grey", "orange", "purple", "brown", "pink")
_ABSOLUTE = ("at", "not_at", "not_end")
_RELATIVE = ("before", "just_before", "gap")
_MAX_DRAWS = 200

Clue = tuple[str, int, int, int]
"""(kind, x, y, k): objects x, y (indices), k a position or gap."""


@dataclass(frozen=True)
class Config(Knobs):
    objects: int = 3
    relative_rate: float = 0.4
    """Chance that a drawn clue relates two books rather than placing one."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "objects": (3, 7),
        "relative_rate": (0.0, 1.0),
    }


LEVELS = (
    {"objects": 3, "relative_rate": 0.4},
    {"objects": 4, "relative_rate": 0.5},
    {"objects": 5, "relative_rate": 0.6},
    {"objects": 5, "relative_rate": 0.75},
    {"objects": 6, "relative_rate": 0.8},
    {"objects": 7, "relative_rate": 0.85},
)


@functools.cache
def _orders(n: int) -> tuple[tuple[int, ...], ...]:
    """Every order as ``pos[object] = position`` (0 is the left end)."""
    return tuple(itertools.permutations(range(n)))


@functools.cache
def _masks(n: int) -> tuple[list[list[int]], list[list[list[int]]]]:
    """Bitsets over ``_orders(n)``: ``at[x][p]`` (object x at position p) and
    ``gap[x][y][d]`` (y is d places right of x, d in -n..n stored at d + n), so a clue
    filters every candidate order with a few integer operations."""
    at = [[0] * n for _ in range(n)]
    gap = [[[0] * (2 * n + 1) for _ in range(n)] for _ in range(n)]
    for index, pos in enumerate(_orders(n)):
        bit = 1 << index
        for x in range(n):
            at[x][pos[x]] |= bit
            for y in range(n):
                if x != y:
                    gap[x][y][pos[y] - pos[x] + n] |= bit
    return at, gap


def satisfying(clue: Clue, n: int) -> int:
    """The bitset of orders of ``_orders(n)`` for which ``clue`` holds."""
    kind, x, y, k = clue
    at, gap = _masks(n)
    full = (1 << len(_orders(n))) - 1
    if kind == "at":
        return at[x][k]
    if kind == "not_at":
        return full & ~at[x][k]
    if kind == "not_end":
        return full & ~(at[x][0] | at[x][n - 1])
    if kind == "before":
        return functools.reduce(int.__or__, gap[x][y][n + 1 :], 0)
    if kind == "just_before":
        return gap[x][y][n + 1]
    if kind == "gap":
        return gap[x][y][n + k]
    raise ValueError(f"unknown clue kind {kind!r}")


def holds(clue: Clue, pos: tuple[int, ...]) -> bool:
    kind, x, y, k = clue
    n = len(pos)
    if kind == "at":
        return pos[x] == k
    if kind == "not_at":
        return pos[x] != k
    if kind == "not_end":
        return 0 < pos[x] < n - 1
    if kind == "before":
        return pos[x] < pos[y]
    if kind == "just_before":
        return pos[x] + 1 == pos[y]
    if kind == "gap":
        return pos[y] - pos[x] == k
    raise ValueError(f"unknown clue kind {kind!r}")


def _random_clue(pos: tuple[int, ...], relative_rate: float, rng: random.Random) -> Clue:
    """A clue that is true of ``pos``."""
    n = len(pos)
    x, y = rng.sample(range(n), 2)
    if rng.random() < relative_rate:
        if pos[x] > pos[y]:
            x, y = y, x
        kind = rng.choice(_RELATIVE)
        if kind == "just_before" and pos[y] - pos[x] != 1:
            kind = "before"
        if kind == "gap":
            return ("gap", x, y, pos[y] - pos[x])
        return (kind, x, y, 0)
    kind = rng.choice(_ABSOLUTE)
    if kind == "not_end" and not 0 < pos[x] < n - 1:
        kind = "not_at"
    if kind == "at":
        return ("at", x, 0, pos[x])
    if kind == "not_at":
        return ("not_at", x, 0, rng.choice([p for p in range(n) if p != pos[x]]))
    return ("not_end", x, 0, 0)


def _pick(mask: int, size: int, rng: random.Random) -> int:
    """A uniformly random set bit of ``mask``: rejection while it is dense, a scan once sparse."""
    for _ in range(8):
        index = rng.randrange(size)
        if mask >> index & 1:
            return index
    bits = []
    while mask:
        low = mask & -mask
        bits.append(low.bit_length() - 1)
        mask ^= low
    return rng.choice(bits)


def _ordinal(k: int, n: int) -> str:
    words = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh")
    if k == n - 1:
        return "rightmost"
    if k == 0:
        return "leftmost"
    return f"{words[k]} from the left"


def _phrase(clue: Clue, names: list[str], n: int) -> str:
    kind, x, y, k = clue
    a, b = f"The {names[x]} book", f"the {names[y]} book"
    if kind == "at":
        return f"{a} is the {_ordinal(k, n)}."
    if kind == "not_at":
        return f"{a} is not the {_ordinal(k, n)}."
    if kind == "not_end":
        return f"{a} is at neither end of the shelf."
    if kind == "before":
        return f"{a} is somewhere to the left of {b}."
    if kind == "just_before":
        return f"{a} is directly to the left of {b}."
    return f"{a} is {k} places to the left of {b}." if k > 1 else f"{a} is directly to the left of {b}."


def generate(config: Config, rng: random.Random) -> Problem:
    n = config.objects
    names = rng.sample(_COLOURS, n)
    orders = _orders(n)
    chosen = rng.randrange(len(orders))
    solution = orders[chosen]
    remaining = ((1 << len(orders)) - 1) & ~(1 << chosen)
    clues: list[Clue] = []
    while remaining:
        rival = _pick(remaining, len(orders), rng)
        for _ in range(_MAX_DRAWS):
            clue = _random_clue(solution, config.relative_rate, rng)
            if not holds(clue, orders[rival]):
                break
        else:
            clue = ("at", 0, 0, solution[0])
            if holds(clue, orders[rival]):
                clue = ("at", 1, 0, solution[1])
        clues.append(clue)
        remaining &= satisfying(clue, n)
    if remaining or not all(holds(clue, solution) for clue in clues):
        raise ValueError("logical_deduction: clue filtering went wrong")
    rng.shuffle(clues)
    row = [names[obj] for obj in sorted(range(n), key=lambda obj: solution[obj])]
    listing = "\n".join(f"{i + 1}. {_phrase(clue, names, n)}" for i, clue in enumerate(clues))
    question = (
        f"{n} books stand in a row on a shelf, one of each colour: {', '.join(sorted(names))}.\n"
        f"{listing}\n\nList the colours of the books from left to right, separated by commas."
    )
    return Problem(question, ", ".join(row), {"clues": [list(clue) for clue in clues], "names": names})


FAMILY = Family(
    name=NAME,
    description="Order books on a shelf from positional clues (unique solution); give the row left to right.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
    counterpart="reasoning_gym:logical_deduction",
)
