"""zebra_puzzle: the propagation solver agrees with exhaustive search; puzzles are unique."""

from __future__ import annotations

import itertools
import random

import pytest

from generators.dataset import create_dataset, score
from generators.families.logic import zebra_puzzle as fam


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
        grid = problem.extra["solution"]
        asked = problem.extra["asked"]["category"]
        k = list(grid).index(asked)
        column = sorted(grid[asked])
        assert problem.answer == ", ".join(column[houses[k].index(h)] for h in range(n))
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
        asked = problem.extra["asked"]["category"]
        assert problem.answer.split(", ") == grid[asked]
        assert question_line.startswith("List the ") and f"house {config.num_houses}, in that order" in question_line


def test_asked_row_is_not_spelled_out_when_avoidable() -> None:
    config = fam.FAMILY.config_for_level(2)
    for index in range(15):
        problem = fam.generate(config, random.Random(index))
        clues = [tuple(c) for c in problem.extra["clues"]]
        cats = list(problem.extra["solution"])
        asked = cats.index(problem.extra["asked"]["category"])
        if any(fam._pinned(clues, k) < config.num_houses - 1 for k in range(len(cats))):
            assert fam._pinned(clues, asked) < config.num_houses - 1


def test_exploits_fail() -> None:
    for item in create_dataset("zebra_puzzle", level=1, seed=3, size=10):
        gold = item["answer"]
        row = gold.split(", ")
        grid = item["metadata"]["solution"]
        assert score("zebra_puzzle", gold, item) == 1.0
        assert score("zebra_puzzle", f"Answer: {gold}", item) == 1.0
        assert score("zebra_puzzle", " ".join(row), item) == 1.0  # the list form without commas
        # Any other order of the right values, a single value, a house number, or stuffing.
        for k in range(1, len(row)):
            rotated = row[k:] + row[:k]
            assert score("zebra_puzzle", ", ".join(rotated), item) == 0.0
        assert score("zebra_puzzle", row[0], item) == 0.0
        assert score("zebra_puzzle", "1", item) == 0.0
        assert score("zebra_puzzle", gold + ", " + gold, item) == 0.0
        every_row = ", ".join(value for column in grid.values() for value in column)
        assert score("zebra_puzzle", every_row, item) == 0.0  # all categories at once
        other = next(column for column in grid.values() if column != row)
        assert score("zebra_puzzle", ", ".join(other), item) == 0.0  # another category's row
        assert score("zebra_puzzle", "[" * 100_000, item) == 0.0
