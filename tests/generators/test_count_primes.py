"""count_primes: the gold equals trial-division counting over the printed interval, and
counts are spread so no constant pays."""

from __future__ import annotations

import re
from collections import Counter

from generators.dataset import create_dataset, score

NAME = "count_primes"


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    d = 2
    while d * d <= n:
        if n % d == 0:
            return False
        d += 1
    return True


def test_gold_matches_trial_division() -> None:
    for level in (0, 2, 5):
        for item in create_dataset(NAME, level=level, seed=5, size=15):
            low, high = map(int, re.findall(r"\d+", item["question"])[:2])
            assert int(item["answer"]) == sum(_is_prime(n) for n in range(low, high + 1))


def test_counts_are_spread_and_exploits_fail() -> None:
    items = create_dataset(NAME, level=0, seed=1, size=300)
    assert max(Counter(item["answer"] for item in items).values()) / len(items) < 0.08
    item = items[0]
    gold = int(item["answer"])
    for wrong in (
        str(gold + 1),
        f"{gold}, {gold + 1}",
        f"{gold} or {gold - 1}",
        f"{gold} primes and 3 composites",
        "7" * 1_000_000,
    ):
        assert score(NAME, wrong, item) == 0.0, wrong[:40]
