"""lattice_points: the gold equals a brute-force count over the bounding box (no Pick's
theorem), and wrong, stuffed and huge answers score 0."""

from __future__ import annotations

import time

from generators.dataset import create_dataset, score


def _where(ring: list[list[int]], x: int, y: int) -> str:
    """'edge', 'in' or 'out' for a lattice point (exact integer arithmetic)."""
    n = len(ring)
    inside = False
    for i in range(n):
        (x1, y1), (x2, y2) = ring[i], ring[(i + 1) % n]
        if (
            (x2 - x1) * (y - y1) == (y2 - y1) * (x - x1)
            and min(x1, x2) <= x <= max(x1, x2)
            and min(y1, y2) <= y <= max(y1, y2)
        ):
            return "edge"
        if (y1 > y) != (y2 > y):
            # x < x1 + (y - y1) * (x2 - x1) / (y2 - y1), multiplied through by (y2 - y1)
            lhs, rhs = (x - x1) * (y2 - y1), (y - y1) * (x2 - x1)
            if (lhs < rhs) if y2 > y1 else (lhs > rhs):
                inside = not inside
    return "in" if inside else "out"


def _count(ring: list[list[int]], ask: str) -> int:
    xs, ys = [p[0] for p in ring], [p[1] for p in ring]
    kinds = [_where(ring, x, y) for x in range(min(xs), max(xs) + 1) for y in range(min(ys), max(ys) + 1)]
    return kinds.count("in") + (kinds.count("edge") if ask == "total" else 0)


def test_gold_matches_brute_force_count() -> None:
    asks = set()
    for level in range(4):
        for item in create_dataset("lattice_points", level=level, seed=6, size=10):
            meta = item["metadata"]
            asks.add(meta["ask"])
            assert int(item["answer"]) == _count(meta["vertices"], meta["ask"])
    assert asks == {"interior", "total"}


def test_forms_and_exploits() -> None:
    item = create_dataset("lattice_points", level=2, seed=3, size=1)[0]
    gold = int(item["answer"])
    for form in (str(gold), f"Answer: {gold}", f"<answer>{gold}</answer>", f"{gold:,}"):
        assert score("lattice_points", form, item) == 1.0, form
    for wrong in (str(gold + 1), f"{gold}, {gold + 1}", f"{gold} or {gold + 1}", f"{gold}.5", f"{gold} + 2"):
        assert score("lattice_points", wrong, item) == 0.0, wrong


def test_huge_answers_score_zero() -> None:
    item = create_dataset("lattice_points", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("9" * 1_048_576, item["answer"] + " " * 1_048_576 + "1"):
        assert score("lattice_points", hostile, item) == 0.0
    assert time.perf_counter() - started < 1.0
