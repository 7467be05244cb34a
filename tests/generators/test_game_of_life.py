"""game_of_life: the gold equals a set-based simulation of the wrapping board; the result
is never empty, and the start board, one step too few and stuffed boards score 0."""

from __future__ import annotations

from generators.dataset import create_dataset, score
from generators.families._grid import format_matrix, parse_matrix

NAME = "game_of_life"


def _simulate(board: list[list[int]], steps: int) -> list[list[int]]:
    height, width = len(board), len(board[0])
    alive = {(r, c) for r in range(height) for c in range(width) if board[r][c]}
    for _ in range(steps):
        counts: dict[tuple[int, int], int] = {}
        for r, c in alive:
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    if dr or dc:
                        key = ((r + dr) % height, (c + dc) % width)
                        counts[key] = counts.get(key, 0) + 1
        alive = {cell for cell, n in counts.items() if n == 3 or (n == 2 and cell in alive)}
    return [[1 if (r, c) in alive else 0 for c in range(width)] for r in range(height)]


def test_gold_matches_set_simulation() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=5, size=20):
            meta = item["metadata"]
            gold = parse_matrix(item["answer"])
            assert gold == _simulate(meta["board"], meta["steps"])
            assert any(v for row in gold for v in row)  # type: ignore[union-attr]


def test_exploits_score_zero() -> None:
    item = create_dataset(NAME, level=4, seed=2, size=1)[0]
    meta = item["metadata"]
    gold = _simulate(meta["board"], meta["steps"])
    assert score(NAME, "<answer>\n" + "\n".join(" ".join(map(str, r)) for r in gold) + "\n</answer>", item) == 1.0
    empty = [[0] * len(gold[0]) for _ in gold]
    for wrong in (
        format_matrix(meta["board"]),
        format_matrix(_simulate(meta["board"], meta["steps"] - 1)),
        format_matrix(_simulate(meta["board"], meta["steps"] + 1)),
        format_matrix(empty),
        f"{format_matrix(gold)}, {format_matrix(empty)}",
    ):
        if wrong != format_matrix(gold):
            assert score(NAME, wrong, item) == 0.0, wrong[:60]
