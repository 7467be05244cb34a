"""matrix_determinant: the gold equals a Leibniz-formula determinant of the printed matrix,
and wrong, stuffed or huge answers score 0."""

from __future__ import annotations

from itertools import permutations

from generators.dataset import create_dataset, score

NAME = "matrix_determinant"


def _leibniz(matrix: list[list[int]]) -> int:
    n = len(matrix)
    total = 0
    for perm in permutations(range(n)):
        inversions = sum(perm[i] > perm[j] for i in range(n) for j in range(i + 1, n))
        product = 1
        for row, col in enumerate(perm):
            product *= matrix[row][col]
        total += -product if inversions % 2 else product
    return total


def test_gold_matches_leibniz_on_printed_matrix() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=4, size=30):
            body = item["question"].split("\n\n")[1]
            matrix = [[int(v) for v in line.split()] for line in body.splitlines()]
            assert matrix == item["metadata"]["matrix"]
            assert int(item["answer"]) == _leibniz(matrix)


def test_exploits_score_zero() -> None:
    item = create_dataset(NAME, level=3, seed=1, size=1)[0]
    gold = int(item["answer"])
    assert score(NAME, f"The determinant is {gold}.\nAnswer: {gold}", item) == 1.0
    for wrong in (
        str(gold + 1),
        str(-gold) if gold else "1",
        f"{gold}, {gold + 1}",
        f"{gold} or {gold + 1}",
        "9" * 1_000_000,
    ):
        assert score(NAME, wrong, item) == 0.0, wrong[:40]
