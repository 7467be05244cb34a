"""power_function: the gold equals Fraction ** int of the printed base and exponent; exact
decimal and fraction forms both score 1, rounded values score 0."""

from __future__ import annotations

import re
from fractions import Fraction

from generators.dataset import create_dataset, score

NAME = "power_function"


def test_gold_is_the_power() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=2, size=40):
            base, exponent = re.match(r"Compute \((-?[\d.]+)\)\^\((-?\d+)\)", item["question"]).groups()  # type: ignore[union-attr]
            assert Fraction(item["answer"]) == Fraction(base) ** int(exponent)


def test_forms_and_exploits() -> None:
    item = {"answer": "1/8", "metadata": {"value": "1/8"}}
    for right in ("1/8", "0.125", "\\frac{1}{8}", "2/16", "Answer: 0.125"):
        assert score(NAME, right, item) == 1.0, right
    for wrong in ("-1/8", "8", "0.12", "1/8, 8", "1/8 or 8", "2^-3", "0.125" + "0" * 1_000_000 + "1"):
        assert score(NAME, wrong, item) == 0.0, wrong[:40]
    third = {"answer": "1/9", "metadata": {"value": "1/9"}}
    assert score(NAME, "0.111111111", third) == 0.0  # a rounding is not the exact value
