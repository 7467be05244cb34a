"""zebra_puzzle: the propagation solver agrees with exhaustive search; puzzles are unique."""

from __future__ import annotations

import itertools
import random

import pytest

from generators.families import zebra_puzzle as fam


def _brute_count(clues, n: int, m: int) -> int:
    count = 0
    for houses in itertools.product(itertools.permutations(range(n)), repeat=m):
        if all(fam._clue_holds(clue, list(houses)) for clue in clues):
            count += 1
    return count


def test_solver_matches_brute_force_on_random_clue_sets() -> None:
    rng = random.Random(5)
    for _ in range(150):
        n, m = rng.choice([(3, 2), (3, 3), (4, 2), (4, 3)])
        solution = [tuple(rng.sample(range(n), n)) for _ in range(m)]
        clues = [fam._random_clue(solution, n, m, rng.random(), rng) for _ in range(rng.randint(0, 7))]
        # Add some clues that may be false, so zero-solution sets are covered too.
        other = [tuple(rng.sample(range(n), n)) for _ in range(m)]
        clues += [fam._random_clue(other, n, m, 0.5, rng) for _ in range(rng.randint(0, 2))]
        expected = _brute_count(clues, n, m)
        assert fam.count_solutions(clues, n, m, limit=3) == min(expected, 3)
        for found in fam.solve(clues, n, m, limit=3):
            assert all(fam._clue_holds(clue, found) for clue in clues)


@pytest.mark.parametrize("level", [0, 1, 2])
def test_generated_puzzles_are_unique_by_brute_force(level: int) -> None:
    config = fam.FAMILY.config_for_level(level)
    n, m = config.num_houses, config.num_categories
    for index in range(6):
        problem = fam.generate(config, random.Random(index))
        clues = [tuple(c) for c in problem.extra["clues"]]
        found = [
            houses
            for houses in itertools.product(itertools.permutations(range(n)), repeat=m)
            if all(fam._clue_holds(clue, list(houses)) for clue in clues)
        ]
        assert len(found) == 1
        houses = found[0]
        asked = problem.extra["asked"]
        house = houses[asked["category"]][asked["value"]]
        grid = problem.extra["solution"]
        if asked["target"] == "house":
            assert problem.answer == str(house + 1)
        else:
            assert problem.answer == grid[asked["target"]][house]
        # The stored grid is the brute-force solution.
        for k, column in enumerate(grid.values()):
            assert [sorted(column)[houses[k].index(h)] for h in range(n)] == column


@pytest.mark.parametrize("level", range(6))
def test_clues_hold_and_answer_is_consistent(level: int) -> None:
    config = fam.FAMILY.config_for_level(level)
    for index in range(15):
        problem = fam.generate(config, random.Random(index))
        grid = problem.extra["solution"]
        names = grid["name"]
        assert sorted(names) == sorted(set(names))
        assert problem.answer.strip()
        question_line = problem.question.strip().splitlines()[-1]
        if problem.answer.isdigit():
            assert 1 <= int(problem.answer) <= config.num_houses
            assert "house number" in question_line
        else:
            assert any(problem.answer in column for column in grid.values())
