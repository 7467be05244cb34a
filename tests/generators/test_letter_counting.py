"""letter_counting: the gold equals str.count over the quoted passage, counts are flat, and
wrong, stuffed or huge answers score 0."""

from __future__ import annotations

import re
from collections import Counter

from generators.dataset import create_dataset, score

NAME = "letter_counting"


def test_gold_counts_the_quoted_passage() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=3, size=40):
            letter = re.search(r'letter "(\w)"', item["question"]).group(1)  # type: ignore[union-attr]
            passage = item["question"].split('\n\n"')[1].split('"\n\n')[0]
            assert int(item["answer"]) == sum(1 for ch in passage if ch == letter)


def test_counts_are_flat_and_exploits_fail() -> None:
    items = create_dataset(NAME, level=0, seed=1, size=400)
    assert max(Counter(item["answer"] for item in items).values()) / len(items) < 0.09
    item = items[0]
    gold = int(item["answer"])
    assert score(NAME, f"Counting each one gives {gold}.\nAnswer: {gold}", item) == 1.0
    for wrong in (str(gold + 1), f"{gold}, {gold + 1}", f"{gold} or {gold - 1}", f"{gold} times", "1" * 1_000_000):
        assert score(NAME, wrong, item) == 0.0, wrong[:40]
