"""n_queens: the scorer accepts exactly the valid completions, and no memorised board wins."""

from __future__ import annotations

import random

from generators.dataset import create_dataset, score


def _all_solutions(n: int) -> list[tuple[int, ...]]:
    """Every n-queens placement (``cols[row]``, 0-based), by plain backtracking."""
    out: list[tuple[int, ...]] = []

    def place(cols: list[int]) -> None:
        row = len(cols)
        if row == n:
            out.append(tuple(cols))
            return
        for c in range(n):
            if all(c != pc and abs(c - pc) != row - pr for pr, pc in enumerate(cols)):
                place([*cols, c])

    place([])
    return out


def _fits(perm: tuple[int, ...], given: dict[int, int], blocked: set[tuple[int, int]]) -> bool:
    return all(perm[r] == c for r, c in given.items()) and not any((r, c) in blocked for r, c in enumerate(perm))


def _render(perm: tuple[int, ...] | list[int]) -> str:
    return ", ".join(str(c + 1) for c in perm)


def test_scorer_matches_brute_force() -> None:
    rng = random.Random(3)
    for level in (0, 1, 2):
        for item in create_dataset("n_queens", level=level, seed=9, size=4):
            meta = item["metadata"]
            n = meta["n"]
            given = dict(meta["given"])
            blocked = {(r, c) for r, c in meta["blocked"]}
            assert score("n_queens", item["answer"], item) == 1.0
            solutions = _all_solutions(n)
            valid = 0
            for perm in solutions:
                expected = _fits(perm, given, blocked)
                valid += expected
                assert score("n_queens", _render(perm), item) == float(expected)
            assert valid >= 1
            # Permutations that are not n-queens solutions (diagonal attacks) always fail.
            known = set(solutions)
            for _ in range(200):
                perm = tuple(rng.sample(range(n), n))
                if perm not in known:
                    assert score("n_queens", _render(perm), item) == 0.0


def test_no_board_is_smaller_than_seven() -> None:
    # 4x4 has 2 solutions and 6x6 only 4: one memorised placement would complete many boards.
    for level in range(6):
        for item in create_dataset("n_queens", level=level, seed=2, size=20):
            assert item["metadata"]["n"] >= 7
            assert len(item["metadata"]["given"]) >= 1


def test_memorised_textbook_placements_rarely_fit() -> None:
    items = create_dataset("n_queens", level=0, seed=4, size=200)
    for n in (7, 8):
        for perm in _all_solutions(n)[:10]:
            reward = sum(score("n_queens", _render(perm), item) for item in items) / len(items)
            assert reward <= 0.10


def test_exploits_fail() -> None:
    item = create_dataset("n_queens", level=2, seed=11, size=1)[0]
    meta = item["metadata"]
    n = meta["n"]
    gold = [int(x) - 1 for x in item["answer"].split(",")]
    given = dict(meta["given"])
    blocked = {(r, c) for r, c in meta["blocked"]}
    assert score("n_queens", item["answer"], item) == 1.0
    # A valid n-queens board that moves a given queen or uses a blocked square.
    for perm in _all_solutions(n):
        if not _fits(perm, given, blocked):
            assert score("n_queens", _render(perm), item) == 0.0
            break
    assert score("n_queens", _render(list(range(n))), item) == 0.0  # all on one diagonal
    assert score("n_queens", _render([gold[0]] * n), item) == 0.0  # one column
    assert score("n_queens", _render(gold[:-1]), item) == 0.0  # a row short
    assert score("n_queens", _render(gold) + ", " + _render(gold), item) == 0.0  # stuffing two boards
    assert score("n_queens", "9" * 200_000, item) == 0.0


def test_malformed_answers_fail() -> None:
    item = create_dataset("n_queens", level=5, seed=10, size=1)[0]
    gold = item["answer"]
    assert score("n_queens", gold, item) == 1.0
    assert score("n_queens", gold + ", 1", item) == 0.0
    assert score("n_queens", "rows: " + gold, item) == 0.0


def test_solution_table_is_every_solution() -> None:
    from generators.families.games import n_queens

    for n in range(4, 10):
        assert list(n_queens.all_solutions(n)) == sorted(_all_solutions(n))
    assert len(n_queens.all_solutions(n_queens.TABLE_MAX_N)) == 724


def test_hidden_solutions_spread_over_the_table() -> None:
    # Level 0 draws its hidden solution uniformly from all 40 (7x7) or 92 (8x8) solutions.
    items = create_dataset("n_queens", level=0, seed=6, size=600)
    seen = {item["answer"] for item in items if item["metadata"]["n"] == 7}
    assert len(seen) == 40
