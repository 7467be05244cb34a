"""rectangle_overlap: the gold equals a unit-cell count, overlaps are never empty, and
wrong or stuffed answers score 0."""

from __future__ import annotations

import time

from generators.dataset import create_dataset, score


def _cells(rects: list[list[int]], need_all: bool) -> int:
    """Unit squares covered by all (or any) rectangles, counted one by one."""
    xs = range(min(r[0] for r in rects), max(r[2] for r in rects))
    ys = range(min(r[1] for r in rects), max(r[3] for r in rects))
    test = all if need_all else any
    return sum(1 for x in xs for y in ys if test(r[0] <= x < r[2] and r[1] <= y < r[3] for r in rects))


def test_gold_matches_cell_count() -> None:
    asks = set()
    for level in range(5):
        for item in create_dataset("rectangle_overlap", level=level, seed=3, size=12):
            meta = item["metadata"]
            asks.add(meta["ask"])
            assert int(item["answer"]) == _cells(meta["rects"], meta["ask"] == "overlap") > 0
    assert asks == {"overlap", "union"}


def test_forms_and_exploits() -> None:
    item = next(
        i for i in create_dataset("rectangle_overlap", level=3, seed=1, size=20) if i["metadata"]["ask"] == "union"
    )
    gold = int(item["answer"])
    rects = item["metadata"]["rects"]
    summed = sum((r[2] - r[0]) * (r[3] - r[1]) for r in rects)  # union without removing the overlaps
    assert score("rectangle_overlap", f"Answer: {gold}", item) == 1.0
    for wrong in (
        str(summed) if summed != gold else str(gold + 1),
        f"{gold}, {gold + 1}",
        f"{gold} or {summed}",
        f"{gold}.5",
    ):
        assert score("rectangle_overlap", wrong, item) == 0.0, wrong


def test_huge_answers_score_zero() -> None:
    item = create_dataset("rectangle_overlap", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    assert score("rectangle_overlap", "7" * 1_048_576, item) == 0.0
    assert time.perf_counter() - started < 1.0
