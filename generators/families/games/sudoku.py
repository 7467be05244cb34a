"""Complete a Sudoku grid (4x4, 6x6 or 9x9) that has exactly one solution.

Tests constraint propagation and search under row, column and box constraints. Levels grow
the grid (4x4 -> 6x6 -> 9x9) and remove more givens, which forces longer chains of
deductions. Puzzles are carved from a shuffled solved grid: a cell is blanked only if a
bitmask solver (most-constrained cell first, capped node budget) still finds exactly one
solution; if the cap is hit the removal is undone, so uniqueness is never assumed.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
from generators.base import Family, Knobs, Problem

NAME = "sudoku"

BOXES = {4: (2, 2), 6: (2, 3), 9: (3, 3)}
"""Grid size -> (box rows, box columns)."""

NODE_CAP = 100
"""Search nodes allowed per uniqueness check; beyond it the check counts as 'not unique'."""

SEARCH_BUDGET = 25
"""Searches allowed per puzzle (forced cells need none); bounds generation time."""


@dataclass(frozen=True)
class Config(Knobs):
    size: int = 4
    min_holes: int = 5
    max_holes: int = 7

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "size": (4, 9),
        "min_holes": (1, 64),
        "max_holes": (1, 64),
    }

    def check(self) -> None:
        if self.size not in BOXES:
            raise ValueError(f"sudoku: size must be one of {sorted(BOXES)}, got {self.size}")
        if self.min_holes > self.max_holes:
            raise ValueError("sudoku: min_holes must be <= max_holes")
        if self.max_holes >= self.size * self.size:
            raise ValueError("sudoku: max_holes must leave at least one given")


LEVELS: tuple[dict[str, object], ...] = (
    {"size": 4, "min_holes": 5, "max_holes": 7},
    {"size": 4, "min_holes": 9, "max_holes": 11},
    {"size": 6, "min_holes": 14, "max_holes": 18},
    {"size": 6, "min_holes": 20, "max_holes": 24},
    {"size": 9, "min_holes": 40, "max_holes": 46},
    {"size": 9, "min_holes": 50, "max_holes": 56},
)


@cache
def _units(size: int) -> tuple[tuple[int, int, int], ...]:
    """For each cell index: (row, column, box) indices."""
    br, bc = BOXES[size]
    return tuple((i // size, i % size, (i // size) // br * (size // bc) + (i % size) // bc) for i in range(size * size))


def count_solutions(
    grid: list[int], size: int, limit: int = 2, node_cap: int = NODE_CAP, exclude: tuple[int, int] | None = None
) -> int | None:
    """Number of completions of ``grid`` (0 = empty), stopping at ``limit``.

    Returns ``None`` when the node cap is exhausted first (unknown). Digits are bits
    ``1 << (d - 1)`` in per-row/column/box masks; the empty cell with fewest candidates is
    branched on first. ``exclude=(cell, digit)`` forbids that digit in that cell: blanking a
    cell of a uniquely solvable grid keeps it unique iff no completion puts a *different*
    digit there, a search that usually dies within a few nodes.
    """
    ex_cell, ex_mask = (exclude[0], ~(1 << (exclude[1] - 1))) if exclude else (-1, -1)
    units = _units(size)
    full = (1 << size) - 1
    rows, cols, boxes = [0] * size, [0] * size, [0] * size
    empties = []
    for i, v in enumerate(grid):
        r, c, b = units[i]
        if v:
            bit = 1 << (v - 1)
            if rows[r] & bit or cols[c] & bit or boxes[b] & bit:
                return 0
            rows[r] |= bit
            cols[c] |= bit
            boxes[b] |= bit
        else:
            empties.append(i)
    found = 0
    nodes = 0

    def search(remaining: list[int]) -> bool:
        """True to abort (limit reached or cap exhausted)."""
        nonlocal found, nodes
        if not remaining:
            found += 1
            return found >= limit
        nodes += 1
        if nodes > node_cap:
            return True
        best_i, best_mask, best_count = -1, 0, size + 1
        for idx, cell in enumerate(remaining):
            r, c, b = units[cell]
            mask = full & ~(rows[r] | cols[c] | boxes[b])
            if cell == ex_cell:
                mask &= ex_mask
            count = mask.bit_count()
            if count < best_count:
                best_i, best_mask, best_count = idx, mask, count
                if count <= 1:
                    break
        if best_count == 0:
            return False
        cell = remaining[best_i]
        rest = remaining[:best_i] + remaining[best_i + 1 :]
        r, c, b = units[cell]
        mask = best_mask
        while mask:
            bit = mask & -mask
            mask ^= bit
            rows[r] |= bit
            cols[c] |= bit
            boxes[b] |= bit
            stop = search(rest)
            rows[r] ^= bit
            cols[c] ^= bit
            boxes[b] ^= bit
            if stop:
                return True
        return False

    search(empties)
    if nodes > node_cap:
        return None
    return found


@cache
def _members(size: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """``_members(size)[kind][unit]``: the cells of row/column/box ``unit`` (kind 0/1/2)."""
    units = _units(size)
    return tuple(
        tuple(tuple(i for i in range(size * size) if units[i][kind] == u) for u in range(size)) for kind in range(3)
    )


def _forced(puzzle: list[int], size: int, cell: int, digit: int, used: list[list[int]]) -> bool:
    """Whether blank ``cell`` is forced to ``digit`` by a naked or hidden single.

    ``used[kind][unit]`` are the digit masks of the current puzzle (with ``cell`` blank). A
    forced cell can be blanked without changing the solution set, so the costlier search
    is skipped; this covers most early removals.
    """
    units = _units(size)
    full = (1 << size) - 1
    bit = 1 << (digit - 1)
    rows, cols, boxes = used

    def candidates(i: int) -> int:
        r, c, b = units[i]
        return full & ~(rows[r] | cols[c] | boxes[b])

    if candidates(cell) == bit:
        return True
    members = _members(size)
    for kind in range(3):
        if not any(i != cell and not puzzle[i] and candidates(i) & bit for i in members[kind][units[cell][kind]]):
            return True
    return False


def solved_grid(size: int, rng: random.Random) -> list[int]:
    """A random valid solution: the cyclic pattern shuffled by validity-preserving moves."""
    br, bc = BOXES[size]

    def pattern(r: int, c: int) -> int:
        return (bc * (r % br) + r // br + c) % size

    bands = rng.sample(range(size // br), size // br)
    row_order = [band * br + r for band in bands for r in rng.sample(range(br), br)]
    stacks = rng.sample(range(size // bc), size // bc)
    col_order = [stack * bc + c for stack in stacks for c in rng.sample(range(bc), bc)]
    digits = rng.sample(range(1, size + 1), size)
    grid = [digits[pattern(r, c)] for r in row_order for c in col_order]
    if br == bc and rng.random() < 0.5:
        grid = [grid[c * size + r] for r in range(size) for c in range(size)]
    return grid


def render(grid: list[int], size: int) -> str:
    br, bc = BOXES[size]
    lines = []
    for r in range(size):
        if r and r % br == 0:
            lines.append("-+-".join("-" * (2 * bc - 1) for _ in range(size // bc)))
        cells = [str(grid[r * size + c]) if grid[r * size + c] else "." for c in range(size)]
        lines.append(" | ".join(" ".join(cells[s : s + bc]) for s in range(0, size, bc)))
    return "\n".join(lines)


def generate(config: Config, rng: random.Random) -> Problem:
    size = config.size
    solution = solved_grid(size, rng)
    target = rng.randint(config.min_holes, config.max_holes)
    puzzle = list(solution)
    units = _units(size)
    full = (1 << size) - 1
    used = [[full] * size for _ in range(3)]
    holes = searches = 0
    for cell in rng.sample(range(size * size), size * size):
        if holes >= target or searches >= SEARCH_BUDGET:
            break
        digit = solution[cell]
        puzzle[cell] = 0
        for kind in range(3):
            used[kind][units[cell][kind]] ^= 1 << (digit - 1)
        if _forced(puzzle, size, cell, digit, used):
            holes += 1
            continue
        searches += 1
        if count_solutions(puzzle, size, limit=1, exclude=(cell, digit)) == 0:
            holes += 1
        else:
            puzzle[cell] = digit
            for kind in range(3):
                used[kind][units[cell][kind]] |= 1 << (digit - 1)
    br, bc = BOXES[size]
    rows = ["".join(str(solution[r * size + c]) for c in range(size)) for r in range(size)]
    example = ",".join(["".join(str(c % size + 1) for c in range(size)), "..."])
    question = (
        f"Solve this {size}x{size} Sudoku. Fill every '.' with a digit from 1 to {size} so that each row, each "
        f"column and each {br}x{bc} box (outlined) contains every digit from 1 to {size} exactly once. "
        "The solution is unique.\n\n"
        f"{render(puzzle, size)}\n\n"
        f"Answer with the completed grid on one line: the {size} rows from top to bottom, each written as "
        f"{size} digits without spaces, rows separated by commas (like {example})."
    )
    return Problem(
        question=question,
        answer=",".join(rows),
        extra={"size": size, "puzzle": "".join(str(v) for v in puzzle), "holes": holes},
    )


def _grid_digits(text: str, size: int) -> str | None:
    if any(char.isalpha() for char in text):  # words beside the digits ("but maybe not") change the answer
        return None
    digits = re.sub(r"[^0-9]", "", text)
    return digits if len(digits) == size * size else None


_BREAK_BYTES = b"\r\x0b\x0c\x1c\x1d\x1e"
_TO_NEWLINE = bytes.maketrans(_BREAK_BYTES, b"\n" * len(_BREAK_BYTES))
_NOT_DIGIT_OR_BREAK = bytes(b for b in range(256) if not (48 <= b <= 57 or b == 10 or bytes([b]) in _BREAK_BYTES))


@functools.cache
def _reversed_block(size: int) -> re.Pattern[bytes]:
    """``size`` lines of ``size`` digits, in text whose lines are digits only, reversed."""
    return re.compile(rb"\n((?:[0-9]{%d}\n){%d}[0-9]{%d})(?=\n|\Z)" % (size, size - 1, size))


def _last_grid_block(text: str, size: int) -> str | None:
    """The last run of ``size`` consecutive lines that each hold exactly ``size`` digits.

    Lines as ``str.splitlines`` cuts them, but found at memory speed: the text is reduced to
    its digits and line breaks in one ``bytes.translate``, reversed, and the first block of
    the reversed text (the last of the original) is found by one regex search, so a
    megabyte answer costs milliseconds rather than a regex call per line.
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    for char in ("\x85", "\u2028", "\u2029"):
        if char in text:
            text = text.replace(char, "\n")
    data = text.encode("ascii", "replace").translate(_TO_NEWLINE, _NOT_DIGIT_OR_BREAK)
    match = _reversed_block(size).search(b"\n" + data[::-1])
    return None if match is None else match.group(1)[::-1].replace(b"\n", b"").decode("ascii")


def _ends_in_digits(text: str) -> bool:
    """Whether no word follows the response's last digit: a grid followed by "but maybe
    not" is not an answer. (Only the last 64 characters are looked at.)"""
    tail = text.rstrip()[-64:]
    last = max(tail.rfind(digit) for digit in "0123456789")
    return last != -1 and not any(char.isalpha() for char in tail[last + 1 :])


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 iff the answer spells the (unique) solution; the puzzle's givens are re-checked."""
    try:
        from generators.answers import extract_answer

        extra = item["metadata"]
        size = int(extra["size"])
        digits = _grid_digits(extract_answer(answer_text), size)
        if digits is None and _ends_in_digits(answer_text):
            digits = _last_grid_block(answer_text, size)
        if digits is None:
            return 0.0
        grid = [int(ch) for ch in digits]
        if any(not 1 <= v <= size for v in grid):
            return 0.0
        puzzle = [int(ch) for ch in str(extra["puzzle"])]
        if any(p and p != g for p, g in zip(puzzle, grid)):
            return 0.0
        if count_solutions(grid, size, limit=1) != 1:
            return 0.0
        return 1.0
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:sudoku",
    description="Solve a Sudoku (4x4, 6x6 or 9x9) with a unique solution; answer the full grid rows.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
    score=score,
    notes="Uniqueness is checked by a capped solver (NODE_CAP nodes per check, SEARCH_BUDGET checks per "
    "puzzle; forced cells need no search). A removal that cannot be confirmed keeps its given, so an item "
    "may have fewer holes than requested (metadata 'holes' is the real count).",
)
