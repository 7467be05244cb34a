"""cycle_detect: every printed graph has a cycle, every directed cycle found by brute force
scores 1, and paths, reversed cycles, repeated nodes and stuffed cycles score 0."""

from __future__ import annotations

import re
import time
from typing import Any

from generators.dataset import create_dataset, score

NAME = "cycle_detect"


def _edges(item: dict[str, Any]) -> set[tuple[int, int]]:
    return {(int(a), int(b)) for a, b in re.findall(r"^(\d+) -> (\d+)$", item["question"], re.MULTILINE)}


def _simple_cycles(edges: set[tuple[int, int]], cap: int = 60) -> list[list[int]]:
    """Cycles by depth-first search from each start over larger-numbered nodes (each once)."""
    succ: dict[int, list[int]] = {}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
    out: list[list[int]] = []

    def walk(start: int, path: list[int]) -> None:
        if len(out) >= cap:
            return
        for nxt in succ.get(path[-1], []):
            if nxt == start:
                out.append(path[:])
            elif nxt > start and nxt not in path:
                walk(start, [*path, nxt])

    for start in sorted(succ):
        walk(start, [start])
    return out


def test_gold_is_a_cycle_and_every_cycle_scores() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=2, size=10):
            edges = _edges(item)
            assert {tuple(e) for e in item["metadata"]["edges"]} == edges
            cycles = _simple_cycles(edges)
            assert cycles
            gold = [int(v) for v in item["answer"].split(" -> ")]
            assert any(sorted(c) == sorted(gold) for c in cycles) or len(cycles) == 60
            for cycle in cycles[:20]:
                assert score(NAME, " -> ".join(map(str, cycle)), item) == 1.0, cycle
                assert score(NAME, " -> ".join(map(str, [*cycle, cycle[0]])), item) == 1.0


HAND = {"answer": "1 -> 2 -> 3", "metadata": {"edges": [[1, 2], [2, 3], [3, 1], [3, 4], [4, 5]]}}


def test_forms_and_exploits() -> None:
    for right in (
        "1 -> 2 -> 3",
        "2 -> 3 -> 1",
        "1 -> 2 -> 3 -> 1",
        "1, 2, 3",
        "1 → 2 → 3",
        "<answer>3 -> 1 -> 2</answer>",
    ):
        assert score(NAME, right, HAND) == 1.0, right
    for wrong in (
        "3 -> 2 -> 1",  # backwards
        "1 -> 2",  # path that does not close
        "3 -> 4 -> 5",
        "1 -> 2 -> 3 -> 1 -> 2 -> 3",  # twice round
        "1 -> 2 -> 3, 2 -> 3 -> 1",
        "1 -> 2 -> 3 or 3 -> 4",
        "1 -> 2 -> 3 is a cycle",
        "1",
        "1 -> 1",
        "1 -> 2 -> 3 -> " * 300_000,
    ):
        assert score(NAME, wrong, HAND) == 0.0, wrong[:60]


def test_huge_answer_is_fast() -> None:
    started = time.process_time()
    for hostile in ("1 -> " * 250_000, "9" * 1_000_000):
        assert score(NAME, hostile, HAND) == 0.0
    assert time.process_time() - started < 1.0
