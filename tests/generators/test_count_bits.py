"""count_bits: the gold is the population count of the printed number and counts are flat."""

from __future__ import annotations

import random
from collections import Counter

from generators.dataset import create_dataset, score
from generators.families.arithmetic import count_bits
from generators.fastrandom import FastRandom

NAME = "count_bits"


def test_gold_is_popcount_of_printed_number() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=3, size=40):
            number = int(item["question"].split("the number ")[1].split("?")[0])
            assert int(item["answer"]) == bin(number).count("1")
            assert score(NAME, f"Answer: {item['answer']}", item) == 1.0


def test_counts_are_spread() -> None:
    counts = Counter(item["answer"] for item in create_dataset(NAME, level=0, seed=1, size=400))
    assert max(counts.values()) / 400 < 0.1


def test_exploits_score_zero() -> None:
    item = create_dataset(NAME, level=2, seed=2, size=1)[0]
    gold = int(item["answer"])
    number = int(item["metadata"]["number"])
    for wrong in (
        str(gold + 1),
        bin(number)[2:],
        f"{gold}, {gold + 1}",
        f"{gold} or {gold - 1}",
        f"{gold} ones and 3 zeros",
        "1" * 1_000_000,
    ):
        assert score(NAME, wrong, item) == 0.0, wrong[:40]


def test_inline_draws_match_random_sample_at_every_width() -> None:
    """generate draws the sample inline (both of Random.sample's branches): same number and
    generator state as ``sum(1 << p for p in Random(s).sample(range(bits), ones))``."""
    for bits in range(12, 129, 3):
        config = count_bits.Config(bits=bits)
        for seed in range(25):
            fast, plain = FastRandom(seed), random.Random(seed)
            problem = count_bits.generate(config, fast)
            ones = plain.randint(1, bits)
            number = sum(1 << p for p in plain.sample(range(bits), ones))
            assert problem.extra["number"] == str(number)
            assert fast.getstate() == plain.getstate()
