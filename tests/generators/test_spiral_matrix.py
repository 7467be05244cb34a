"""spiral_matrix: the gold is the spiral read by walking with a direction vector (an
independent method); row-major listings, permutations and stuffed lists score 0."""

from __future__ import annotations

from generators.dataset import create_dataset, score

NAME = "spiral_matrix"


def _walk(matrix: list[list[int]]) -> list[int]:
    height, width = len(matrix), len(matrix[0])
    seen = [[False] * width for _ in range(height)]
    r = c = 0
    dr, dc = 0, 1
    out = []
    for _ in range(height * width):
        out.append(matrix[r][c])
        seen[r][c] = True
        nr, nc = r + dr, c + dc
        if not (0 <= nr < height and 0 <= nc < width) or seen[nr][nc]:
            dr, dc = dc, -dr  # turn right
            nr, nc = r + dr, c + dc
        r, c = nr, nc
    return out


def test_gold_matches_walk() -> None:
    shapes = set()
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=2, size=40):
            matrix = item["metadata"]["matrix"]
            shapes.add((len(matrix), len(matrix[0])))
            assert item["answer"].split() == [str(v) for v in _walk(matrix)]
    assert any(h != w for h, w in shapes), "non-square matrices are asked"


def test_forms_and_exploits() -> None:
    item = {"answer": "1 2 3 6 9 8 7 4 5", "metadata": {"matrix": [[1, 2, 3], [4, 5, 6], [7, 8, 9]]}}
    for right in (
        "1 2 3 6 9 8 7 4 5",
        "1, 2, 3, 6, 9, 8, 7, 4, 5",
        "[1, 2, 3, 6, 9, 8, 7, 4, 5]",
        "<answer>1 2 3 6 9 8 7 4 5</answer>",
    ):
        assert score(NAME, right, item) == 1.0, right
    for wrong in (
        "1 2 3 4 5 6 7 8 9",  # row-major
        "1 2 3 6 9 8 7 5 4",  # permutation
        "1 2 3 6 9 8 7 4",  # partial
        "1 2 3 6 9 8 7 4 5 5",
        "1 2 3 6 9 8 7 4 5, 1 2 3 4 5 6 7 8 9",
        "1 2 3 6 9 8 7 4 5 " * 100_000,
    ):
        assert score(NAME, wrong, item) == 0.0, wrong[:60]
