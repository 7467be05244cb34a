"""course_schedule: the printed schedule is finishable exactly when Kahn's algorithm
empties it, the gold proof checks, other valid orders and cycles score 1, and labels,
violating orders, reversed cycles and stuffed proofs score 0."""

from __future__ import annotations

import re
from typing import Any

from generators.dataset import create_dataset, score

NAME = "course_schedule"


def _pairs(item: dict[str, Any]) -> set[tuple[int, int]]:
    listed = item["question"].split("first:\n")[1].split("\n")[0]
    return {(int(a), int(b)) for a, b in re.findall(r"\((\d+), (\d+)\)", listed)}


def _kahn(n: int, pairs: set[tuple[int, int]], reverse: bool = False) -> list[int] | None:
    needs = {c: {b for a, b in pairs if a == c} for c in range(n)}
    order: list[int] = []
    while len(order) < n:
        ready = sorted((c for c in range(n) if c not in order and needs[c] <= set(order)), reverse=reverse)
        if not ready:
            return None
        order.append(ready[0])
    return order


def test_gold_proof_agrees_with_kahn() -> None:
    kinds = set()
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=2, size=20):
            n = item["metadata"]["courses"]
            pairs = _pairs(item)
            order = _kahn(n, pairs)
            kinds.add(order is not None)
            assert (order is not None) == ("->" not in item["answer"]) == item["metadata"]["possible"]
            if order is not None:
                assert score(NAME, ", ".join(map(str, order)), item) == 1.0
                assert score(NAME, ", ".join(map(str, _kahn(n, pairs, reverse=True) or [])), item) == 1.0
    assert kinds == {True, False}


ITEM = {"answer": "1 -> 2 -> 4", "metadata": {"courses": 5, "pairs": [[2, 1], [4, 2], [1, 4], [3, 0], [0, 1]]}}
"""1 before 2 before 4 before 1: a cycle; 0 and 3 hang off it."""
OK = {"answer": "0, 2, 1", "metadata": {"courses": 3, "pairs": [[1, 2], [2, 0]]}}


def test_forms_and_exploits() -> None:
    for right in ("1 -> 2 -> 4", "2 -> 4 -> 1", "1 -> 2 -> 4 -> 1", "1 → 2 → 4"):
        assert score(NAME, right, ITEM) == 1.0, right
    for wrong in (
        "False",
        "4 -> 2 -> 1",
        "1 -> 2",
        "1 -> 2 -> 4, 0 -> 1",
        "1 -> 2 -> 4 -> 1 -> 2",
        "0, 1, 2, 3, 4",
        "1 -> 2 -> 4 is a cycle",
    ):
        assert score(NAME, wrong, ITEM) == 0.0, wrong
    for right in ("0, 2, 1", "[0, 2, 1]", "0 2 1", "Answer: 0, 2, 1"):
        assert score(NAME, right, OK) == 1.0, right
    for wrong in (
        "True",
        "1, 2, 0",
        "0, 1, 2",
        "0, 2",
        "0, 2, 1, 1",
        "0, 2, 1, 3",
        "0, 2, 1 or 1, 2, 0",
        "0 -> 2 -> 1",
        "0, " * 300_000,
    ):
        assert score(NAME, wrong, OK) == 0.0, wrong[:40]
