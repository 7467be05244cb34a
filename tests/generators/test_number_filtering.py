"""number_filtering: the gold is the printed list filtered with Fraction comparisons; order,
completeness and exact values are all required."""

from __future__ import annotations

import re
from fractions import Fraction

from generators.dataset import create_dataset, score

NAME = "number_filtering"


def test_gold_filters_printed_list() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=3, size=30):
            question = item["question"]
            threshold = Fraction(re.search(r"than (-?[\d.]+), in", question).group(1))  # type: ignore[union-attr]
            values = [Fraction(v) for v in question.split("[")[1].split("]")[0].split(", ")]
            larger = "strictly larger" in question
            kept = [v for v in values if (v > threshold if larger else v < threshold)]
            assert [Fraction(v) for v in item["answer"].split(", ")] == kept
            assert 0 < len(kept) < len(values)


def test_forms_and_exploits() -> None:
    item = {"answer": "4, 18, -13.8, -2", "metadata": {"kept": ["4", "18", "-69/5", "-2"]}}
    for right in (
        "4, 18, -13.8, -2",
        "[4, 18, -13.80, -2]",
        "['4', '18', '-13.8', '-2']",
        "4 18 -13.8 -2",
        "<answer>4, 18, -13.8, -2.0</answer>",
    ):
        assert score(NAME, right, item) == 1.0, right
    for wrong in (
        "18, 4, -13.8, -2",  # reordered
        "4, 18, -13.8",  # partial
        "4, 18, -13.8, -2, -26.4",  # extra
        "4, 18, -14, -2",  # rounded
        "4, 18, -13.8, -2 or 4, 18",
        "4, 18, -13.8, -2 are kept",
        "4, " * 300_000,
    ):
        assert score(NAME, wrong, item) == 0.0, wrong[:40]
