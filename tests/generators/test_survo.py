"""survo: the drawn totals are the gold's, every permutation of the offered numbers scores 1
exactly when it makes all totals right, and partial, stuffed or huge answers score 0."""

from __future__ import annotations

import itertools
import time
from typing import Any

from generators.dataset import create_dataset, score


def _totals_right(item: dict[str, Any], values: tuple[int, ...]) -> bool:
    meta = item["metadata"]
    n = meta["size"]
    grid = [list(row) for row in meta["givens"]]
    for i, v in zip(meta["blanks"], values):
        grid[i // n][i % n] = v
    return [sum(r) for r in grid] == meta["row_sums"] and [sum(c) for c in zip(*grid)] == meta["col_sums"]


def test_permutations_score_exactly_when_totals_are_right() -> None:
    for level in range(3):
        for item in create_dataset("survo", level=level, seed=2, size=8):
            assert _totals_right(item, tuple(int(v) for v in item["answer"].split(", ")))
            good = 0
            for perm in set(itertools.permutations(item["metadata"]["offered"])):
                ok = _totals_right(item, perm)
                good += ok
                assert score("survo", ", ".join(map(str, perm)), item) == float(ok)
            assert good >= 1


def test_every_valid_placement_scores_one() -> None:
    """All four cells blank, offered 1, 1, 2, 2, every total 3: both diagonals of 1s work."""
    meta = {"size": 2, "givens": [[0, 0], [0, 0]], "blanks": [0, 1, 2, 3], "row_sums": [3, 3], "col_sums": [3, 3]}
    item = {"answer": "1, 2, 2, 1", "metadata": {**meta, "offered": [1, 1, 2, 2]}}
    assert score("survo", "1, 2, 2, 1", item) == 1.0
    assert score("survo", "2, 1, 1, 2", item) == 1.0
    assert score("survo", "1, 1, 2, 2", item) == 0.0


def test_drawing_shows_the_totals() -> None:
    item = create_dataset("survo", level=4, seed=1, size=1)[0]
    meta = item["metadata"]
    last = item["question"].split("\n\n")[1].splitlines()[-1].split()
    assert [int(v) for v in last] == [*meta["col_sums"], sum(meta["row_sums"])]


def test_forms_and_exploits() -> None:
    item = create_dataset("survo", level=3, seed=3, size=1)[0]
    gold = item["answer"]
    values = gold.split(", ")
    for form in (gold.replace(", ", " "), f"[{gold}]", f"Answer: {gold}", gold.replace(", ", ",")):
        assert score("survo", form, item) == 1.0, form
    for wrong in (
        ", ".join(values[:-1]),  # partial
        gold + ", " + values[0],  # one extra
        f"{gold}, {gold}",
        ", ".join([*values[:-1], str(int(values[-1]) + 1)]),  # not the offered multiset
        gold.replace(", ", "; "),
        ", ".join(v + ".5" for v in values),
    ):
        assert score("survo", wrong, item) == 0.0, wrong


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("survo", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("1, " * 400_000, item["answer"] + " " * 1_048_576 + "7"):
        assert score("survo", hostile, item) == 0.0
    assert time.perf_counter() - started < 1.0
