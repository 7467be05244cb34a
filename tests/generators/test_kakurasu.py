"""kakurasu: clues are those of the gold, any other shading meeting them scores 1 (found by
brute force on 3x4 grids), near misses and malformed grids score 0."""

from __future__ import annotations

import itertools
import time

from generators.dataset import create_dataset, score
from generators.families.games.kakurasu import clues


def _grid(text: str) -> list[list[int]]:
    return [[int(v) for v in row.split()] for row in text.splitlines()]


def test_clues_are_the_golds() -> None:
    for level in range(6):
        for item in create_dataset("kakurasu", level=level, seed=4, size=10):
            meta = item["metadata"]
            assert clues(_grid(item["answer"])) == (meta["row_sums"], meta["col_sums"])


def test_every_shading_meeting_the_clues_is_accepted() -> None:
    """Over all 4,096 shadings of a 3x4 item, exactly those meeting the clues score 1."""
    item = create_dataset("kakurasu", level=0, seed=1, size=1)[0]
    meta = item["metadata"]
    rows, cols = meta["rows"], meta["cols"]
    assert (rows, cols) == (3, 4)
    for bits in itertools.product((0, 1), repeat=rows * cols):
        grid = [list(bits[r * cols : (r + 1) * cols]) for r in range(rows)]
        ok = clues(grid) == (meta["row_sums"], meta["col_sums"])
        assert score("kakurasu", "\n".join(" ".join(map(str, row)) for row in grid), item) == float(ok)


def test_both_shadings_of_ambiguous_clues_score_one() -> None:
    """Row clues 5, 0, 5, 5 and column clues 4, 4, 4, 4 have (at least) two shadings."""
    meta = {"rows": 4, "cols": 4, "row_sums": [5, 0, 5, 5], "col_sums": [4, 4, 4, 4]}
    item = {"answer": "0 1 1 0\n0 0 0 0\n0 1 1 0\n1 0 0 1", "metadata": meta}
    assert score("kakurasu", item["answer"], item) == 1.0
    assert score("kakurasu", "1 0 0 1\n0 0 0 0\n1 0 0 1\n0 1 1 0", item) == 1.0
    assert score("kakurasu", "1 0 0 1\n0 0 0 0\n0 1 1 0\n0 1 1 0", item) == 0.0


def test_forms_and_exploits() -> None:
    item = create_dataset("kakurasu", level=3, seed=2, size=1)[0]
    gold = item["answer"]
    rows = gold.splitlines()
    assert score("kakurasu", "Answer:\n" + gold.replace(" ", ""), item) == 1.0
    assert score("kakurasu", "\\boxed{" + gold + "}", item) == 1.0
    transposed = "\n".join(" ".join(col) for col in zip(*(row.split() for row in rows)))
    for wrong in (gold + "\n" + gold, "\n".join(rows[1:]), transposed, gold.replace("0", "1"), gold + " 1"):
        if wrong != gold and score("kakurasu", wrong, item):
            assert clues(_grid(wrong)) == (item["metadata"]["row_sums"], item["metadata"]["col_sums"])
        else:
            assert score("kakurasu", wrong, item) == 0.0


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("kakurasu", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in (("0 1 " * 4 + "\n") * 130_000, item["answer"] + "x" * 1_048_576):
        assert score("kakurasu", hostile, item) == 0.0
    assert time.perf_counter() - started < 1.0
