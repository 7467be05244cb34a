"""products: the gold is the product of the printed numbers; off-by-one and stuffed answers fail."""

from __future__ import annotations

import math
import re

from generators.dataset import create_dataset, score

NAME = "products"


def test_gold_is_product_of_printed_numbers() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=3, size=40):
            numbers = [int(v) for v in re.findall(r"-?\d+", item["question"].split("Give")[0])]
            assert numbers == item["metadata"]["numbers"]
            assert int(item["answer"]) == math.prod(numbers)


def test_exploits_score_zero() -> None:
    item = create_dataset(NAME, level=5, seed=2, size=1)[0]
    gold = int(item["answer"])
    assert score(NAME, f"{gold:,}", item) == 1.0  # thousands separators are a form of the same integer
    for wrong in (
        str(gold + 1),
        str(-gold),
        f"{gold}, {gold + 1}",
        f"{gold} or {gold + 1}",
        f"{gold}0",
        "9" * 1_000_000,
    ):
        assert score(NAME, wrong, item) == 0.0, wrong[:40]
