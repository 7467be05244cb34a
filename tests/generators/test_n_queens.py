"""n_queens: the scorer accepts exactly the valid completions (brute force on small boards)."""

from __future__ import annotations

import itertools

from generators.dataset import create_dataset, score


def _valid(perm: tuple[int, ...], given: dict[int, int], blocked: set[tuple[int, int]]) -> bool:
    n = len(perm)
    for a in range(n):
        for b in range(a + 1, n):
            if abs(perm[a] - perm[b]) == b - a:
                return False
    return all(perm[r] == c for r, c in given.items()) and not any((r, c) in blocked for r, c in enumerate(perm))


def test_scorer_matches_brute_force() -> None:
    for level in (0, 1, 2):
        for item in create_dataset("n_queens", level=level, seed=9, size=6):
            meta = item["metadata"]
            n = meta["n"]
            given = dict(meta["given"])
            blocked = {(r, c) for r, c in meta["blocked"]}
            assert score("n_queens", item["answer"], item) == 1.0
            valid = 0
            for perm in itertools.permutations(range(n)):
                expected = _valid(perm, given, blocked)
                valid += expected
                answer = ", ".join(str(c + 1) for c in perm)
                assert score("n_queens", answer, item) == float(expected)
            assert valid >= 1


def test_malformed_answers_fail() -> None:
    item = create_dataset("n_queens", level=5, seed=10, size=1)[0]
    gold = item["answer"]
    assert score("n_queens", gold, item) == 1.0
    assert score("n_queens", gold + ", 1", item) == 0.0
    assert score("n_queens", "rows: " + gold, item) == 0.0
