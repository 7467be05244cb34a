"""binary_matrix: the gold equals brute-force nearest-zero Manhattan distances, and near
misses (one cell off, the input itself, stuffed) score 0."""

from __future__ import annotations

from generators.dataset import create_dataset, score
from generators.families._grid import format_matrix, parse_matrix

NAME = "binary_matrix"


def _brute(grid: list[list[int]]) -> list[list[int]]:
    zeros = [(r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v == 0]
    return [[min(abs(r - zr) + abs(c - zc) for zr, zc in zeros) for c in range(len(grid[0]))] for r in range(len(grid))]


def test_gold_matches_brute_force() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=3, size=30):
            grid = item["metadata"]["matrix"]
            assert any(v == 0 for row in grid for v in row)
            assert parse_matrix(item["answer"]) == _brute(grid)


def test_exploits_score_zero() -> None:
    item = create_dataset(NAME, level=4, seed=1, size=1)[0]
    gold = _brute(item["metadata"]["matrix"])
    assert score(NAME, "\n".join(" ".join(map(str, row)) for row in gold), item) == 1.0
    off = [row[:] for row in gold]
    off[-1][-1] += 1
    for wrong in (
        format_matrix(off),
        format_matrix(item["metadata"]["matrix"]),
        format_matrix(gold[:-1]),
        f"{format_matrix(gold)}, {format_matrix(off)}",
        f"{format_matrix(gold)} or {format_matrix(off)}",
    ):
        assert score(NAME, wrong, item) == 0.0, wrong[:60]
