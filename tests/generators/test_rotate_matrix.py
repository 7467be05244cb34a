"""rotate_matrix (and the shared matrix answer reader): the gold is the rotation computed
independently by index arithmetic; every matrix form scores 1; transposes, mirrors, the
wrong direction, two matrices and huge answers score 0."""

from __future__ import annotations

import time

from generators.dataset import create_dataset, score
from generators.families._grid import parse_matrix

NAME = "rotate_matrix"


def _rotate(matrix: list[list[int]], degrees: int) -> list[list[int]]:
    n = len(matrix)
    out = matrix
    for _ in range((degrees // 90) % 4):
        out = [[out[n - 1 - c][r] for c in range(n)] for r in range(n)]
    return out


def test_gold_matches_index_rotation() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=1, size=30):
            meta = item["metadata"]
            assert parse_matrix(item["answer"]) == _rotate(meta["matrix"], meta["degrees"])
            assert f"{meta['degrees']} degrees clockwise" in item["question"]


def _item() -> dict:
    matrix = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    return {"answer": "[[7, 4, 1], [8, 5, 2], [9, 6, 3]]", "metadata": {"matrix": matrix, "degrees": 90}}


def test_every_matrix_form_scores_one() -> None:
    item = _item()
    for form in (
        "[[7, 4, 1], [8, 5, 2], [9, 6, 3]]",
        "[[7,4,1],[8,5,2],[9,6,3]]",
        "7 4 1; 8 5 2; 9 6 3",
        "<answer>\n7 4 1\n8 5 2\n9 6 3\n</answer>",
        "Rotating clockwise gives:\n\n7 4 1\n8 5 2\n9 6 3",
        "Answer: [[7, 4, 1], [8, 5, 2], [9, 6, 3]]",
        "\\boxed{[[7, 4, 1], [8, 5, 2], [9, 6, 3]]}",
    ):
        assert score(NAME, form, item) == 1.0, form


def test_exploits_score_zero() -> None:
    item = _item()
    for wrong in (
        "[[3, 6, 9], [2, 5, 8], [1, 4, 7]]",  # counter-clockwise
        "[[1, 4, 7], [2, 5, 8], [3, 6, 9]]",  # transpose
        "[[1, 2, 3], [4, 5, 6], [7, 8, 9]]",  # unchanged
        "[[7, 4, 1], [8, 5, 2]]",  # partial
        "[[7, 4, 1], [8, 5, 2], [9, 6, 3], [0, 0, 0]]",
        "7 4 1 8 5 2 9 6 3",  # flattened
        "[[7, 4, 1], [8, 5, 2], [9, 6, 3]], [[3, 6, 9], [2, 5, 8], [1, 4, 7]]",  # stuffed
        "[[7, 4, 1], [8, 5, 2], [9, 6, 3]] or [[3, 6, 9], [2, 5, 8], [1, 4, 7]]",
        "[[7, 4, 1], [8, 5, 2], [9, 6, 3]] and then rotate again",
        "[[7, 4, 1], [8, x, 2], [9, 6, 3]]",
        "[[7, 4, 1]] [[8, 5, 2], [9, 6, 3]]",
    ):
        assert score(NAME, wrong, item) == 0.0, wrong


def test_huge_answers_are_refused_fast() -> None:
    item = _item()
    started = time.process_time()
    for hostile in (
        "[[" + "1, " * 300_000 + "1]]",
        "1 2 3\n" * 200_000,
        "[" * 1_000_000,
        "[[1]" + ", [1]" * 200_000 + "]",
    ):
        assert score(NAME, hostile, item) == 0.0
    assert time.process_time() - started < 1.0
