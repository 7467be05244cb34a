"""Algorithm families: gold answers against independent brute force for small sizes."""

from __future__ import annotations

import bisect
import functools
import itertools
import random
import re
from collections import deque
from decimal import Decimal

import pytest

from generators.families.algorithmic import (
    binary_search_steps,
    coin_change,
    edit_distance,
    interval_merge,
    knapsack,
    longest_increasing_subsequence,
    sort_numbers,
)


@pytest.mark.parametrize("level", range(6))
def test_sort_numbers(level: int) -> None:
    config = sort_numbers.FAMILY.config_for_level(level)
    for index in range(30):
        problem = sort_numbers.generate(config, random.Random(index))
        shown = problem.question.split(": ", 1)[1].split(".\n", 1)[0].split(", ")
        expected = sorted(shown, key=Decimal, reverse=problem.extra["order"] == "descending")
        assert problem.answer == ", ".join(expected)
        assert len(shown) == config.count


def _merge_by_points(intervals: list[list[int]]) -> list[tuple[int, int]]:
    """Mark covered half-unit points; closed intervals touching at an end merge."""
    covered = sorted({x for a, b in intervals for x in range(2 * a, 2 * b + 1)})
    runs: list[list[int]] = []
    for x in covered:
        if runs and x == runs[-1][1] + 1:
            runs[-1][1] = x
        else:
            runs.append([x, x])
    return [(a // 2, b // 2) for a, b in runs]


@pytest.mark.parametrize("level", range(6))
def test_interval_merge(level: int) -> None:
    config = interval_merge.FAMILY.config_for_level(level)
    for index in range(30):
        problem = interval_merge.generate(config, random.Random(index))
        merged = _merge_by_points(problem.extra["intervals"])
        assert problem.answer == ", ".join(f"[{a}, {b}]" for a, b in merged)


@pytest.mark.parametrize("level", [0, 1, 2, 3, 4])
def test_knapsack_against_subsets(level: int) -> None:
    config = knapsack.FAMILY.config_for_level(level)
    for index in range(15):
        problem = knapsack.generate(config, random.Random(index))
        w, v, cap = problem.extra["weights"], problem.extra["values"], problem.extra["capacity"]
        best = max(
            sum(v[i] for i in chosen)
            for r in range(len(w) + 1)
            for chosen in itertools.combinations(range(len(w)), r)
            if sum(w[i] for i in chosen) <= cap
        )
        assert problem.answer == str(best)
        if config.greedy_trap:
            assert problem.extra["greedy"] < best


@pytest.mark.parametrize("level", [0, 1, 2])
def test_lis_against_subsets(level: int) -> None:
    config = longest_increasing_subsequence.FAMILY.config_for_level(level)
    for index in range(20):
        problem = longest_increasing_subsequence.generate(config, random.Random(index))
        seq = problem.extra["sequence"]
        best = max(
            r
            for r in range(1, len(seq) + 1)
            for chosen in itertools.combinations(seq, r)
            if all(a < b for a, b in itertools.pairwise(chosen))
        )
        item = {"answer": problem.answer, "metadata": dict(problem.extra)}
        assert len(problem.answer.split(", ")) == best
        assert longest_increasing_subsequence.score(problem.answer, item) == 1.0
        assert longest_increasing_subsequence.score(str(best), item) == 0.0 or best == 1
        for chosen in itertools.combinations(seq, best):  # every longest one is accepted
            if all(a < b for a, b in itertools.pairwise(chosen)):
                assert longest_increasing_subsequence.score(", ".join(map(str, chosen)), item) == 1.0
        if config.run_trap:
            assert longest_increasing_subsequence.longest_run(seq) < best


@pytest.mark.parametrize("level", range(6))
def test_lis_against_quadratic_dp(level: int) -> None:
    config = longest_increasing_subsequence.FAMILY.config_for_level(level)
    for index in range(20):
        seq = longest_increasing_subsequence.generate(config, random.Random(index)).extra["sequence"]
        ends = [1] * len(seq)
        for j in range(len(seq)):
            for i in range(j):
                if seq[i] < seq[j]:
                    ends[j] = max(ends[j], ends[i] + 1)
        assert longest_increasing_subsequence.lis_length(seq) == max(ends)


@pytest.mark.parametrize("level", range(6))
def test_edit_distance_against_recursion(level: int) -> None:
    config = edit_distance.FAMILY.config_for_level(level)
    for index in range(20):
        problem = edit_distance.generate(config, random.Random(index))
        a, b = problem.extra["a"], problem.extra["b"]

        @functools.cache
        def d(i: int, j: int) -> int:
            if i == 0 or j == 0:
                return i + j
            return min(d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (a[i - 1] != b[j - 1]))

        assert problem.answer == str(d(len(a), len(b)))
        assert a != b


@pytest.mark.parametrize("level", range(6))
def test_coin_change_against_bfs(level: int) -> None:
    config = coin_change.FAMILY.config_for_level(level)
    for index in range(30):
        problem = coin_change.generate(config, random.Random(index))
        coins, amount = problem.extra["coins"], problem.extra["amount"]
        steps = {0: 0}
        queue = deque([0])
        while queue:
            x = queue.popleft()
            for c in coins:
                if x + c <= amount and x + c not in steps:
                    steps[x + c] = steps[x] + 1
                    queue.append(x + c)
        assert problem.extra["fewest"] == steps.get(amount, -1)
        item = {"answer": problem.answer, "metadata": dict(problem.extra)}
        assert coin_change.score(problem.answer, item) == 1.0
        if problem.answer != "-1":
            chosen = [int(x) for x in problem.answer.split(", ")]
            assert sum(chosen) == amount and len(chosen) == steps[amount] and set(chosen) <= set(coins)
            assert coin_change.score(str(len(chosen)), item) == 0.0 or len(chosen) == 1
            assert coin_change.score("-1", item) == 0.0
        if config.greedy_trap and problem.answer != "-1":
            assert problem.extra["greedy"] != problem.extra["fewest"]


@pytest.mark.parametrize("level", range(6))
def test_binary_search_steps_against_recursion(level: int) -> None:
    config = binary_search_steps.FAMILY.config_for_level(level)
    for index in range(30):
        problem = binary_search_steps.generate(config, random.Random(index))
        values = [int(x) for x in problem.question.split(": ", 1)[1].split("\n", 1)[0].rstrip(".").split(", ")]
        target = int(re.search(r"Binary search for (-?\d+)", problem.question).group(1))
        up = problem.extra["round_up"]

        def trace(lo: int, hi: int) -> list[int]:
            if lo > hi:
                return []
            mid = (lo + hi + int(up)) // 2
            if values[mid] == target:
                return [values[mid]]
            rest = trace(mid + 1, hi) if values[mid] < target else trace(lo, mid - 1)
            return [values[mid], *rest]

        assert problem.answer == ", ".join(map(str, trace(0, len(values) - 1)))
        position = bisect.bisect_left(values, target)
        assert problem.extra["found"] == (position < len(values) and values[position] == target)
