"""Complete an N-queens placement on a board with pre-placed queens and blocked squares.

Tests constraint satisfaction with backtracking: one queen per row and column, none sharing
a diagonal. Pre-placed queens rule out memorised textbook solutions and blocked squares
(which cannot hold a queen but do not stop attacks) prune the obvious choices. Boards start
at 7x7 with at least one given queen: smaller boards have so few solutions that one memorised
placement completes many of them. Harder levels use bigger boards, where the search space
explodes. Many completions can be valid, so the
scorer verifies the submitted placement against the stored board instead of comparing with
one gold answer; every item is solvable by construction (blocks are drawn off a hidden
solution that contains the given queens).

The hidden solution of a board up to ``TABLE_MAX_N`` is drawn uniformly from every solution
of that size (enumerated once per process); a bigger board's by randomised backtracking.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
from generators.base import Family, Knobs, Problem

NAME = "n_queens"

NODE_CAP = 20000
"""Backtracking nodes per attempt when drawing the hidden solution."""

TABLE_MAX_N = 10
"""Boards up to this size draw their hidden solution from the table of all solutions (724 at
10x10, enumerated in ~0.1 s); 11x11 has 2,680 and 13x13 73,712, so bigger boards search."""


@dataclass(frozen=True)
class Config(Knobs):
    min_n: int = 4
    max_n: int = 5
    min_given: int = 0
    max_given: int = 1
    blocked_fraction: float = 0.15
    """Share of the free squares (off the hidden solution, outside given queens' rows) blocked."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "min_n": (4, 16),
        "max_n": (4, 16),
        "min_given": (0, 8),
        "max_given": (0, 8),
        "blocked_fraction": (0.0, 0.6),
    }

    def check(self) -> None:
        if self.min_n > self.max_n:
            raise ValueError("n_queens: min_n must be <= max_n")
        if self.min_given > self.max_given:
            raise ValueError("n_queens: min_given must be <= max_given")
        if self.max_given >= self.min_n:
            raise ValueError("n_queens: max_given must be smaller than min_n")


LEVELS: tuple[dict[str, object], ...] = (
    {"min_n": 7, "max_n": 8, "min_given": 1, "max_given": 2, "blocked_fraction": 0.35},
    {"min_n": 8, "max_n": 9, "min_given": 1, "max_given": 2, "blocked_fraction": 0.3},
    {"min_n": 8, "max_n": 10, "min_given": 2, "max_given": 3, "blocked_fraction": 0.3},
    {"min_n": 9, "max_n": 10, "min_given": 2, "max_given": 3, "blocked_fraction": 0.3},
    {"min_n": 10, "max_n": 11, "min_given": 2, "max_given": 4, "blocked_fraction": 0.35},
    {"min_n": 11, "max_n": 13, "min_given": 2, "max_given": 4, "blocked_fraction": 0.35},
)
"""Boards start at 7x7: 4x4 has 2 solutions and 6x6 only 4, so one memorised placement
(e.g. "2, 4, 1, 3") was a valid completion of a quarter of the small boards. From 7x7 up
there are 40+ solutions, and at least one given queen rules out most of them, so no
constant placement completes more than a few percent of the boards."""


def random_solution(n: int, rng: random.Random) -> list[int] | None:
    """A random N-queens solution (``cols[row]``), 0-based, by randomised backtracking."""
    cols: list[int] = []
    used_cols = used_d1 = used_d2 = 0
    nodes = 0
    getrandbits = rng.getrandbits
    sizes = [(m, m.bit_length()) for m in range(n, 0, -1)]

    def order() -> list[int]:
        """``rng.sample(range(n), n)`` with its draws inline (its pool branch: n <= 85):
        one call per node instead of three frames and an ABC check."""
        pool = list(range(n))
        out = []
        for m, bits in sizes:
            j = getrandbits(bits)
            while j >= m:
                j = getrandbits(bits)
            out.append(pool[j])
            pool[j] = pool[m - 1]
        return out

    def place(row: int) -> bool:
        nonlocal used_cols, used_d1, used_d2, nodes
        if row == n:
            return True
        nodes += 1
        if nodes > NODE_CAP:
            return False
        for c in order():
            if used_cols >> c & 1 or used_d1 >> (row + c) & 1 or used_d2 >> (row - c + n) & 1:
                continue
            used_cols |= 1 << c
            used_d1 |= 1 << (row + c)
            used_d2 |= 1 << (row - c + n)
            cols.append(c)
            if place(row + 1):
                return True
            cols.pop()
            used_cols ^= 1 << c
            used_d1 ^= 1 << (row + c)
            used_d2 ^= 1 << (row - c + n)
        return False

    return cols if place(0) else None


@functools.cache
def all_solutions(n: int) -> tuple[tuple[int, ...], ...]:
    """Every N-queens solution (``cols[row]``, 0-based) in lexicographic order."""
    out: list[tuple[int, ...]] = []
    cols: list[int] = []
    full = (1 << n) - 1

    def place(used_cols: int, used_d1: int, used_d2: int) -> None:
        if len(cols) == n:
            out.append(tuple(cols))
            return
        free = full & ~(used_cols | used_d1 | used_d2)
        while free:
            bit = free & -free
            free ^= bit
            cols.append(bit.bit_length() - 1)
            place(used_cols | bit, (used_d1 | bit) << 1, (used_d2 | bit) >> 1)
            cols.pop()

    place(0, 0, 0)
    return tuple(out)


@functools.cache
def _tables(config: Config) -> dict[int, tuple[tuple[int, ...], ...]]:
    """The solution tables of the config's board sizes, built together on the first item."""
    return {n: all_solutions(n) for n in range(config.min_n, min(config.max_n, TABLE_MAX_N) + 1)}


def is_valid(n: int, cols: list[int], given: Mapping[int, int], blocked: set[tuple[int, int]]) -> bool:
    """``cols[row]`` (0-based) is a full non-attacking placement honouring givens and blocks."""
    if len(cols) != n or sorted(cols) != list(range(n)):
        return False
    if len({r + c for r, c in enumerate(cols)}) != n or len({r - c for r, c in enumerate(cols)}) != n:
        return False
    if any(cols[r] != c for r, c in given.items()):
        return False
    return not any((r, c) in blocked for r, c in enumerate(cols))


def generate(config: Config, rng: random.Random) -> Problem:
    getrandbits = rng.getrandbits
    n = rng.randint(config.min_n, config.max_n)
    table = _tables(config).get(n)
    if table is not None:
        count = len(table)
        bits = count.bit_length()
        j = getrandbits(bits)
        while j >= count:
            j = getrandbits(bits)
        solution: list[int] | tuple[int, ...] = table[j]
    else:
        for _ in range(20):
            found = random_solution(n, rng)
            if found is not None:
                break
        else:  # pragma: no cover - randomised backtracking finds boards up to 16 quickly
            raise ValueError("n_queens: no solution found within the node cap")
        solution = found
    k = rng.randint(config.min_given, min(config.max_given, n - 1))
    given_rows = sorted(rng.sample(range(n), k))
    # Squares as indices r * n + c: the free ones (off the solution, outside given rows) in
    # row-major order, so a sorted sample of indices is the sorted sample of squares.
    taken = bytearray(n * n)
    for r, c in enumerate(solution):
        taken[r * n + c] = 1
    for r in given_rows:
        taken[r * n : r * n + n] = b"\x01" * n
    free = [i for i, t in enumerate(taken) if not t]
    blocked = sorted(rng.sample(free, round(config.blocked_fraction * len(free))))
    cells = ["."] * (n * n)
    for r in given_rows:
        cells[r * n + solution[r]] = "Q"
    for i in blocked:
        cells[i] = "X"
    board = "\n".join([" ".join(cells[r * n : r * n + n]) for r in range(n)])
    question = (
        f"Place {n} queens on this {n}x{n} board so that no two queens share a row, a column or a diagonal. "
        "Squares marked Q already hold a queen that must stay; squares marked X are blocked and cannot hold a "
        "queen (they do not block attacks). Rows are numbered 1 to "
        f"{n} from top to bottom, columns 1 to {n} from left to right.\n\n"
        + board
        + f"\n\nAnswer with {n} integers separated by commas: the column of the queen in row 1, row 2, ..., "
        f"row {n} (e.g. 1, 2, 3, ...). Any valid placement is accepted."
    )
    answer = ", ".join([str(c + 1) for c in solution])
    return Problem(
        question=question,
        answer=answer,
        extra={
            "n": n,
            "given": [[r, solution[r]] for r in given_rows],
            "blocked": [[i // n, i % n] for i in blocked],
        },
    )


def _parse(text: str, n: int) -> list[int] | None:
    """Columns (0-based) from "3, 1, 4, 2" / "[3 1 4 2]"; anything but exactly n numbers fails."""
    if re.search(r"[^\d\s,;\[\]()]", text):
        return None
    numbers = re.findall(r"\d+", text)
    if len(numbers) != n:
        return None
    return [int(x) - 1 for x in numbers]


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 iff the answer is a valid completion of the stored board; no answer makes it raise."""
    try:
        from generators.answers import extract_answer

        meta = item["metadata"]
        n = int(meta["n"])
        cols = _parse(extract_answer(answer_text), n)
        if cols is None:
            return 0.0
        given = {int(r): int(c) for r, c in meta["given"]}
        blocked = {(int(r), int(c)) for r, c in meta["blocked"]}
        return 1.0 if is_valid(n, cols, given, blocked) else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """Plausible failures: the gold with two rows swapped, kept only if that is invalid."""
    meta = item["metadata"]
    n = int(meta["n"])
    given = {int(r): int(c) for r, c in meta["given"]}
    blocked = {(int(r), int(c)) for r, c in meta["blocked"]}
    cols = [int(x) for x in str(item["answer"]).split(",")]
    out = []
    for i in range(n):
        for j in range(i + 1, n):
            swapped = list(cols)
            swapped[i], swapped[j] = swapped[j], swapped[i]
            if not is_valid(n, [c - 1 for c in swapped], given, blocked):
                out.append(", ".join(map(str, swapped)))
    return out[:2]


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:n_queens",
    description="Complete an N-queens placement with given queens and blocked squares; any valid answer counts.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
    score=score,
    notes="Answers are verified against the board, not compared with the stored example solution.",
)
