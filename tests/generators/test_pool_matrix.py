"""pool_matrix: the gold equals pooling recomputed with slicing; exact decimals in any
trailing-zero form score 1, roundings and the other pooling mode score 0."""

from __future__ import annotations

from fractions import Fraction

from generators.dataset import create_dataset, score
from generators.families._grid import parse_matrix

NAME = "pool_matrix"


def _pool(matrix: list[list[int]], k: int, mode: str) -> list[list[Fraction]]:
    out = []
    for r in range(len(matrix) // k):
        row = []
        for c in range(len(matrix[0]) // k):
            block = [v for line in matrix[r * k : r * k + k] for v in line[c * k : c * k + k]]
            row.append(Fraction(max(block)) if mode == "max" else Fraction(sum(block), k * k))
        out.append(row)
    return out


def test_gold_matches_slicing() -> None:
    modes = set()
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=6, size=30):
            meta = item["metadata"]
            modes.add((meta["mode"], meta["kernel"]))
            assert len(meta["matrix"]) % meta["kernel"] == 0 and len(meta["matrix"][0]) % meta["kernel"] == 0
            assert parse_matrix(item["answer"]) == _pool(meta["matrix"], meta["kernel"], meta["mode"])
    assert modes == {("max", 2), ("max", 3), ("average", 2)}


def test_forms_and_exploits() -> None:
    matrix = [[1, 2, 9, 0], [3, 4, 1, 1], [5, 5, 0, 0], [5, 6, 0, 1]]
    item = {"answer": "[[2.5, 2.75], [5.25, 0.25]]", "metadata": {"matrix": matrix, "kernel": 2, "mode": "average"}}
    for right in ("[[2.5, 2.75], [5.25, 0.25]]", "2.50 2.75; 5.25 0.25", "[[5/2, 11/4], [21/4, 1/4]]"):
        assert score(NAME, right, item) == 1.0, right
    for wrong in (
        "[[2.5, 2.8], [5.3, 0.3]]",  # rounded
        "[[4, 9], [6, 1]]",  # max instead of average
        "[[2, 2], [5, 0]]",  # truncated
        "[[2.5, 2.75], [5.25, 0.25]], [[4, 9], [6, 1]]",
        "[[2.5, 2.75, 5.25, 0.25]]",
    ):
        assert score(NAME, wrong, item) == 0.0, wrong
