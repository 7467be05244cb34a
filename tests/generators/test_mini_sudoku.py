"""mini_sudoku: each puzzle has exactly one completion among all 288 4x4 Sudoku grids
(enumerated here independently of the family's solver), and exploits score 0."""

from __future__ import annotations

import functools
import itertools
import time

from generators.dataset import create_dataset, score


@functools.cache
def _all_grids() -> tuple[tuple[int, ...], ...]:
    """Every valid 4x4 Sudoku, built row by row from permutations."""
    perms = list(itertools.permutations((1, 2, 3, 4)))
    out = []

    def extend(rows: list[tuple[int, ...]]) -> None:
        if len(rows) == 4:
            out.append(tuple(v for row in rows for v in row))
            return
        r = len(rows)
        for perm in perms:
            if any(perm[c] == row[c] for row in rows for c in range(4)):
                continue
            if r % 2 == 1 and any({perm[c], perm[c + 1], rows[-1][c], rows[-1][c + 1]} != {1, 2, 3, 4} for c in (0, 2)):
                continue
            extend([*rows, perm])

    extend([])
    return tuple(out)


def test_there_are_288_grids_and_each_puzzle_has_one_completion() -> None:
    grids = _all_grids()
    assert len(grids) == 288
    for level in range(6):
        for item in create_dataset("mini_sudoku", level=level, seed=3, size=10):
            puzzle = [int(ch) for ch in item["metadata"]["puzzle"]]
            assert puzzle.count(0) == item["metadata"]["holes"] >= item["metadata"]["knobs"]["min_holes"] - 2
            fits = [g for g in grids if all(p in (0, v) for p, v in zip(puzzle, g))]
            assert len(fits) == 1
            assert item["answer"].split() == [str(v) for v in fits[0]]


def test_forms_and_exploits() -> None:
    item = create_dataset("mini_sudoku", level=3, seed=2, size=1)[0]
    gold = item["answer"]
    rows = gold.splitlines()
    assert score("mini_sudoku", gold.replace(" ", ""), item) == 1.0
    assert score("mini_sudoku", "Answer:\n" + gold, item) == 1.0
    other = next(g for g in _all_grids() if " ".join(map(str, g)) != " ".join(gold.split()))
    for wrong in (
        "\n".join(" ".join(map(str, other[r * 4 : r * 4 + 4])) for r in range(4)),  # valid Sudoku, wrong givens
        "\n".join(rows[::-1]),
        "\n".join(rows[:3]),
        gold + "\n" + gold,
        "1 2 3 4\n1 2 3 4\n1 2 3 4\n1 2 3 4",
        gold.replace("1", "5"),
    ):
        assert score("mini_sudoku", wrong, item) == 0.0, wrong


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("mini_sudoku", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("1 2 3 4\n" * 150_000, item["answer"] + "\n" * 1_048_576 + "x"):
        assert score("mini_sudoku", hostile, item) == 0.0
    assert time.perf_counter() - started < 1.0
