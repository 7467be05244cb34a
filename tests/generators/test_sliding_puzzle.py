"""sliding_puzzle: the gold solves the board within the budget, a different (breadth-first
shortest) solution also scores 1, and illegal, over-budget or stuffed moves score 0."""

from __future__ import annotations

import time
from collections import deque

from generators.dataset import create_dataset, score

STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


def _shortest(tiles: list[int], goal_tiles: list[int], size: int) -> str:
    """Breadth-first search over boards (independent of the family's replay)."""
    goal = tuple(goal_tiles)
    start = tuple(tiles)
    seen = {start: ""}
    queue = deque([start])
    while queue:
        board = queue.popleft()
        if board == goal:
            return seen[board]
        blank = board.index(0)
        r, c = divmod(blank, size)
        for letter, (dr, dc) in STEP.items():
            if 0 <= r + dr < size and 0 <= c + dc < size:
                cells = list(board)
                other = (r + dr) * size + c + dc
                cells[blank], cells[other] = cells[other], 0
                nxt = tuple(cells)
                if nxt not in seen:
                    seen[nxt] = seen[board] + letter
                    queue.append(nxt)
    raise AssertionError("unsolvable board")


def test_gold_and_shortest_solutions_score_one() -> None:
    for level in range(4):
        for item in create_dataset("sliding_puzzle", level=level, seed=6, size=5):
            meta = item["metadata"]
            assert len(item["answer"]) == meta["budget"]
            assert score("sliding_puzzle", item["answer"], item) == 1.0
            best = _shortest(meta["tiles"], meta["goal"], meta["size"])
            assert 0 < len(best) <= meta["budget"]
            assert score("sliding_puzzle", best, item) == 1.0


def test_forms_and_exploits() -> None:
    item = create_dataset("sliding_puzzle", level=2, seed=1, size=1)[0]
    gold = item["answer"]
    budget = item["metadata"]["budget"]
    for form in (gold.lower(), " ".join(gold), ", ".join(gold), f"Answer: {gold}"):
        assert score("sliding_puzzle", form, item) == 1.0, form
    for wrong in (
        gold[:-1],  # one short
        gold + "UD" if len(gold) + 2 > budget else gold + "U" * (budget + 1 - len(gold)),  # over budget
        gold[::-1],  # order matters
        "U" * 5 + gold,  # walks off the board first
        f"{gold} or {gold[:-1]}",
        gold + "X",
        str(len(gold)),
    ):
        assert score("sliding_puzzle", wrong, item) == 0.0, wrong


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("sliding_puzzle", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("UD" * 524_288, item["answer"] + " " * 1_048_576 + "U", "U, " * 300_000):
        assert score("sliding_puzzle", hostile, item) == 0.0
    assert time.perf_counter() - started < 1.0
