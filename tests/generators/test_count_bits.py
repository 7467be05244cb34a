"""count_bits: the gold is the population count of the printed number and counts are flat."""

from __future__ import annotations

import math
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


def test_subsets_are_uniform() -> None:
    """``_subset`` (which replaced ``Random.sample`` in 2.0.0) gives every mask of the size
    alike, through each of its starting densities (none, 1/4, 3/8, 1/2), and ``generate``
    sets exactly the drawn count at every width, complements included."""
    rng = FastRandom(5)
    for bits, size in ((12, 1), (12, 3), (12, 4), (12, 6), (16, 5)):
        draws = 60_000
        counts = Counter(count_bits._subset(rng.getrandbits, bits, size) for _ in range(draws))
        total = math.comb(bits, size)
        assert len(counts) == total and all(mask.bit_count() == size for mask in counts)
        expected = draws / total
        chi2 = sum((seen - expected) ** 2 / expected for seen in counts.values())
        df = total - 1
        assert chi2 < df + 4 * math.sqrt(2 * df), (bits, size, chi2, df)  # about 4 standard deviations
    for bits in range(12, 129, 3):
        config = count_bits.Config(bits=bits)
        for seed in range(25):
            problem = count_bits.generate(config, FastRandom(seed))
            number = int(problem.extra["number"])
            assert number < 1 << bits and number.bit_count() == int(problem.answer)
