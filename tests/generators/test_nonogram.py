"""nonogram: clues are those of the gold, other pictures with the same clues score 1 (a
2x2-swap gives one), and near misses score 0."""

from __future__ import annotations

import time

from generators.dataset import create_dataset, score
from generators.families.games.nonogram import all_clues


def _lines(text: str) -> list[str]:
    return [row.replace(" ", "") for row in text.splitlines()]


def test_clues_are_the_golds() -> None:
    for level in range(6):
        for item in create_dataset("nonogram", level=level, seed=4, size=10):
            meta = item["metadata"]
            assert all_clues(_lines(item["answer"])) == (meta["row_clues"], meta["col_clues"])


def test_an_ambiguous_picture_accepts_both_solutions() -> None:
    """Clues 1/1 for rows and columns of a 2x2 checkerboard fit both diagonals."""
    item = {"answer": "1 0\n0 1", "metadata": {"rows": 2, "cols": 2, "row_clues": [[1], [1]], "col_clues": [[1], [1]]}}
    assert score("nonogram", "1 0\n0 1", item) == 1.0
    assert score("nonogram", "0 1\n1 0", item) == 1.0
    assert score("nonogram", "1 1\n0 0", item) == 0.0


def test_forms_and_exploits() -> None:
    item = create_dataset("nonogram", level=2, seed=3, size=1)[0]
    gold = item["answer"]
    assert score("nonogram", "\n".join(_lines(gold)), item) == 1.0
    assert score("nonogram", f"<answer>{gold}</answer>", item) == 1.0
    rows = gold.splitlines()
    for wrong in (
        gold.replace("0", "1"),
        "\n".join(rows[:-1]),
        gold + "\n" + rows[0],
        "\n".join(r + " 0" for r in rows),
    ):
        assert score("nonogram", wrong, item) == 0.0, wrong


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("nonogram", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in (("1 " * 10 + "\n") * 50_000, item["answer"] + "\n" + "0" * 1_048_576):
        assert score("nonogram", hostile, item) == 0.0
    assert time.perf_counter() - started < 1.0
