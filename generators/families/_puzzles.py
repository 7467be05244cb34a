"""Shared pieces of the grid and move puzzles in ``games/``: the answer forms and their parsers.

Grid puzzles (lights_out, kakurasu, nonogram, futoshiki, mini_sudoku) are answered with a
digit grid, one row per line; it is read with the one grid parser of
:mod:`generators.families._grids`, so tags, boxes, an "Answer:" header and a trailing bare
block all work the same across families, and then checked for shape here. Move puzzles
(sliding_puzzle, sokoban, rush_hour) are answered with a move sequence whose length is
bounded by the budget the question states before anything is replayed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from generators.answers import extract_answer
from generators.families._grids import DIGITS, parse_answer_grid

BINARY = frozenset("01")


def show_grid(rows: Sequence[Sequence[int]]) -> str:
    """The gold form of a digit grid: rows on lines, digits separated by single spaces."""
    return "\n".join([" ".join(map(str, row)) for row in rows])


def grid_form(rows: int, cols: int, example: Sequence[Sequence[int]]) -> str:
    """The sentence telling the answer form, with a small example of it."""
    return (
        f"Answer with the grid of {rows} rows and {cols} columns: one row per line, the digits separated "
        f"by single spaces, for example\n{show_grid(example)}"
    )


def read_grid(answer_text: Any, rows: int, cols: int, alphabet: frozenset[str] = DIGITS) -> list[list[int]] | None:
    """The answer's ``rows`` x ``cols`` digit grid, or None when it has another shape.

    Only the last ``8 * rows * cols + 512`` characters are read (the parser's bound), so a
    megabyte answer costs one slice.
    """
    grid = parse_answer_grid(answer_text, alphabet, rows + 2, 8 * rows * cols + 512)
    if grid is None or len(grid) != rows or any(len(row) != cols for row in grid):
        return None
    return [[int(cell) for cell in row] for row in grid]


def read_moves(answer_text: Any, most: int) -> list[str] | None:
    """Whitespace/comma separated move tokens of the answer, at most ``most`` of them, or None.

    The extracted answer is refused unread beyond ``12 * most + 64`` characters, so the
    work stays linear in the budget whatever the answer's length.
    """
    text = extract_answer(answer_text)
    if not text or len(text) > 12 * most + 64:
        return None
    tokens = text.replace(",", " ").split()
    if not tokens or len(tokens) > most:
        return None
    return tokens
