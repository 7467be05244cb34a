"""largest_island: the gold equals a union-find over the printed grid, diagonal contact
does not join islands, and answers are spread."""

from __future__ import annotations

from collections import Counter

from generators.dataset import create_dataset, score
from generators.families.graphs.largest_island import largest_area

NAME = "largest_island"


def _union_find(grid: list[list[int]]) -> int:
    parent: dict[tuple[int, int], tuple[int, int]] = {}

    def find(x: tuple[int, int]) -> tuple[int, int]:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    cells = [(r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v == 1]
    for cell in cells:
        parent[cell] = cell
    for r, c in cells:
        for other in ((r + 1, c), (r, c + 1)):
            if other in parent:
                parent[find((r, c))] = find(other)
    sizes = Counter(find(cell) for cell in cells)
    return max(sizes.values(), default=0)


def test_gold_matches_union_find_on_printed_grid() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=3, size=30):
            body = item["question"].split("\n\n")[1]
            grid = [[int(v) for v in line.split()] for line in body.splitlines()]
            assert grid == item["metadata"]["grid"]
            assert int(item["answer"]) == _union_find(grid)


def test_diagonals_do_not_connect() -> None:
    assert largest_area([[1, 0, 1], [0, 1, 0], [1, 0, 1]]) == 1
    assert largest_area([[1, 1, 0], [0, 1, 0], [0, 1, 1]]) == 5


def test_exploits_score_zero() -> None:
    item = create_dataset(NAME, level=2, seed=1, size=1)[0]
    gold = int(item["answer"])
    for wrong in (
        str(gold + 1),
        f"{gold}, {gold + 1}",
        f"{gold} or {gold - 1}",
        f"{gold} cells in 3 islands",
        "5" * 1_000_000,
    ):
        assert score(NAME, wrong, item) == 0.0, wrong[:40]
