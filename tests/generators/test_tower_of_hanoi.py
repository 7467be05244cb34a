"""tower_of_hanoi: closed form, recursion and breadth-first search agree; the scorer simulates."""

from __future__ import annotations

import itertools
from collections import deque

from generators.dataset import create_dataset, score
from generators.families.games.tower_of_hanoi import optimal_count, optimal_moves, simulate


def _bfs(position: tuple[int, ...], target: int) -> int:
    goal = (target,) * len(position)
    seen = {position: 0}
    queue = deque([position])
    while queue:
        state = queue.popleft()
        if state == goal:
            return seen[state]
        for src, dst in itertools.permutations(range(3), 2):
            nxt = simulate(list(state), [(src, dst)])
            if nxt is not None and tuple(nxt) not in seen:
                seen[tuple(nxt)] = seen[state] + 1
                queue.append(tuple(nxt))
    raise AssertionError("goal unreachable")


def test_optimal_against_bfs() -> None:
    for n in range(1, 6):
        for position in itertools.product(range(3), repeat=n):
            for target in range(3):
                moves = optimal_moves(list(position), target)
                assert simulate(list(position), moves) == [target] * n
                assert len(moves) == optimal_count(list(position), target) == _bfs(position, target)


def test_scorer() -> None:
    for level in range(6):
        for item in create_dataset("tower_of_hanoi", level=level, seed=12, size=10):
            gold = item["answer"]
            assert score("tower_of_hanoi", gold, item) == 1.0
            if item["metadata"]["task"] == "sequence":
                moves = gold.split(", ")
                assert score("tower_of_hanoi", ", ".join(moves[:-1]), item) == 0.0
                assert score("tower_of_hanoi", gold.replace("->", " -> "), item) == 1.0
                if len(moves) > 1:
                    assert score("tower_of_hanoi", ", ".join([moves[1], moves[0], *moves[2:]]), item) == 0.0
            else:
                assert score("tower_of_hanoi", str(int(gold) + 1), item) == 0.0
