"""lights_out: the gold clears the board, every press set that clears it scores 1 (found
here by brute force over the null space on 4x4 boards), and near misses score 0."""

from __future__ import annotations

import itertools
import time
from typing import Any

from generators.dataset import create_dataset, score
from generators.families.games.lights_out import apply


def _board(item: dict[str, Any]) -> list[list[int]]:
    return [[int(v) for v in row.split()] for row in item["metadata"]["board"]]


def _grid(text: str) -> list[list[int]]:
    return [[int(v) for v in row.split()] for row in text.splitlines()]


def _show(grid: list[list[int]]) -> str:
    return "\n".join(" ".join(map(str, row)) for row in grid)


def test_gold_clears_the_board() -> None:
    for level in range(6):
        for item in create_dataset("lights_out", level=level, seed=3, size=10):
            board = _board(item)
            assert any(any(row) for row in board)
            assert not any(any(row) for row in apply(board, _grid(item["answer"])))


def test_every_clearing_press_set_is_accepted() -> None:
    """4x4 Lights Out has a 4-dimensional null space: 16 press sets clear each board."""
    item = next(i for i in create_dataset("lights_out", level=1, seed=2, size=5) if i["metadata"]["size"] == 4)
    board = _board(item)
    solutions = []
    for bits in itertools.product((0, 1), repeat=16):
        presses = [list(bits[r * 4 : r * 4 + 4]) for r in range(4)]
        if not any(any(row) for row in apply(board, presses)):
            solutions.append(presses)
    assert len(solutions) == 16
    for presses in solutions:
        assert score("lights_out", _show(presses), item) == 1.0


def test_forms_and_exploits() -> None:
    item = create_dataset("lights_out", level=2, seed=5, size=1)[0]
    gold = item["answer"]
    for form in (gold.replace(" ", ""), f"Answer:\n{gold}", f"<answer>\n{gold}\n</answer>", f"Presses:\n\n{gold}\n"):
        assert score("lights_out", form, item) == 1.0, form
    n = item["metadata"]["size"]
    zeros = _show([[0] * n for _ in range(n)])
    rows = gold.splitlines()
    for wrong in (
        zeros,  # pressing nothing
        "\n".join(item["metadata"]["board"]),  # pressing the lit squares
        "\n".join(rows[:-1]),  # a row missing
        "\n".join(rows[::-1]) if rows != rows[::-1] else zeros,  # rows out of order
        gold + "\n" + gold,  # two grids stuffed
        gold.replace("1", "2"),
    ):
        if wrong != gold:
            assert score("lights_out", wrong, item) == 0.0, wrong


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("lights_out", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in (item["answer"] + "\n" * 1_048_576 + "1", ("1 " * 7 + "\n") * 150_000, "1" * 1_048_576):
        assert score("lights_out", hostile, item) == 0.0
    assert time.perf_counter() - started < 1.0
