"""point_distance: the gold is the root rounded half-up (checked with integer arithmetic),
equivalent forms score 1, near misses and stuffed answers 0."""

from __future__ import annotations

import math
import time
from decimal import Decimal

from generators.dataset import create_dataset, score


def test_gold_brackets_the_true_distance() -> None:
    for level in range(6):
        for item in create_dataset("point_distance", level=level, seed=2, size=20):
            square = item["metadata"]["squared_distance"]
            places = item["metadata"]["knobs"]["places"]
            scaled = int(Decimal(item["answer"]).scaleb(places))
            # gold*10^p is the rounding of sqrt(square)*10^p: (g - 1/2)^2 <= s*100^p < (g + 1/2)^2
            target = 4 * square * 100**places
            assert (2 * scaled - 1) ** 2 <= target < (2 * scaled + 1) ** 2
            assert abs(float(item["answer"]) - math.sqrt(square)) <= 0.5 * 10**-places + 1e-9


def test_forms_and_exploits() -> None:
    item = next(i for i in create_dataset("point_distance", level=1, seed=5, size=30) if not i["answer"].endswith("0"))
    gold = item["answer"]
    for form in (gold, gold + "0", f"Answer: {gold} units", f"\\boxed{{{gold}}}"):
        assert score("point_distance", form, item) == 1.0, form
    square = item["metadata"]["squared_distance"]
    for wrong in (
        str(square),  # the squared distance
        f"{math.sqrt(square):.6f}",  # not rounded as asked
        gold[:-1],  # one place fewer
        f"{gold}, {float(gold) + 0.01:.2f}",
        f"{gold} or {float(gold) + 0.01:.2f}",
        f"sqrt({square})",
    ):
        assert score("point_distance", wrong, item) == 0.0, wrong


def test_huge_answers_score_zero() -> None:
    item = create_dataset("point_distance", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    assert score("point_distance", item["answer"] + "0" * 1_048_576, item) == 0.0
    assert score("point_distance", "1." * 524_288, item) == 0.0
    assert time.perf_counter() - started < 1.0
