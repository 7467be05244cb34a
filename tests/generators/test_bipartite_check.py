"""bipartite_check: the printed graph is bipartite exactly when a brute-force search over all
splits finds one, the gold proof checks, every odd cycle is accepted, and bare labels, the
wrong group, even cycles and stuffed proofs score 0."""

from __future__ import annotations

import itertools
import re
from typing import Any

from generators.dataset import create_dataset, score

NAME = "bipartite_check"


def _edges(item: dict[str, Any]) -> list[tuple[int, int]]:
    listed = item["question"].split("edges:\n")[1].split("\n")[0]
    return [(int(a), int(b)) for a, b in re.findall(r"(\d+)-(\d+)", listed)]


def _splits(n: int, edges: list[tuple[int, int]]) -> list[set[int]]:
    """Every group containing node 1 whose complement makes all edges cross (brute force)."""
    out = []
    for bits in itertools.product((0, 1), repeat=n - 1):
        colour = {1: 0, **{v: bits[v - 2] for v in range(2, n + 1)}}
        if all(colour[a] != colour[b] for a, b in edges):
            out.append({v for v in colour if colour[v] == 0})
    return out


def test_gold_proof_agrees_with_brute_force() -> None:
    kinds = set()
    for level in range(3):
        for item in create_dataset(NAME, level=level, seed=2, size=30):
            n = item["metadata"]["nodes"]
            edges = _edges(item)
            splits = _splits(n, edges)
            assert len(splits) <= 1, "connected: at most one split"
            kinds.add(bool(splits))
            if splits:
                assert {int(v) for v in item["answer"].split(", ")} == splits[0]
            else:
                cycle = [int(v) for v in item["answer"].split(" -> ")]
                assert len(cycle) % 2 == 1 and len(set(cycle)) == len(cycle)
                pairs = {(min(a, b), max(a, b)) for a, b in edges}
                assert all((min(a, b), max(a, b)) in pairs for a, b in zip(cycle, cycle[1:] + cycle[:1]))
    assert kinds == {True, False}


TRIANGLE = {
    "answer": "1 -> 2 -> 3",
    "metadata": {"nodes": 5, "edges": [[1, 2], [2, 3], [1, 3], [3, 4], [4, 5], [1, 5]]},
}
"""Odd cycles: the triangle 1-2-3 and the five-cycle 1-2-3-4-5; 1-3-4-5 is an even cycle."""
SQUARE = {"answer": "1, 3", "metadata": {"nodes": 4, "edges": [[1, 2], [2, 3], [3, 4], [1, 4]]}}


def test_any_odd_cycle_and_group_forms_score() -> None:
    for right in ("1 -> 2 -> 3", "3 -> 1 -> 2", "1 -> 2 -> 3 -> 1", "1 -> 2 -> 3 -> 4 -> 5", "5 → 4 → 3 → 2 → 1"):
        assert score(NAME, right, TRIANGLE) == 1.0, right
    for right in ("1, 3", "3, 1", "{1, 3}", "[1, 3]", "1 3", "Answer: 1, 3"):
        assert score(NAME, right, SQUARE) == 1.0, right


def test_exploits_score_zero() -> None:
    for wrong in (
        "no",
        "not bipartite",
        "1 -> 3 -> 4 -> 5",
        "1 -> 2",
        "1 -> 2 -> 3, 1 -> 3 -> 4",
        "1 -> 2 -> 4",
        "1, 2, 3",
        "1 -> 2 -> 3 -> 1 -> 2",
    ):
        assert score(NAME, wrong, TRIANGLE) == 0.0, wrong
    for wrong in ("yes", "2, 4", "1", "1, 3, 3", "1, 2, 3, 4", "1, 3 or 2, 4", "1 -> 2 -> 3", "1, 3" + ", 1" * 100_000):
        assert score(NAME, wrong, SQUARE) == 0.0, wrong[:40]
