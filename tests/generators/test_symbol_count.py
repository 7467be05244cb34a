"""symbol_count: the gold is the count of the asked symbols in the picture as printed,
neighbouring counts and stuffed lists score 0, and the counts spread widely."""

from __future__ import annotations

import re
from collections import Counter

from generators.dataset import create_dataset, score


def picture_and_targets(question: str) -> tuple[str, list[str]]:
    picture = question.split("\n\n")[1]
    asked = question.split("\n\n")[2]
    return picture, re.findall(r"'(.)'", asked)


def test_gold_is_the_count_in_the_picture() -> None:
    for level in range(6):
        for item in create_dataset("symbol_count", level=level, seed=3, size=30):
            picture, targets = picture_and_targets(item["question"])
            assert targets == item["metadata"]["targets"]
            counts = Counter(picture.replace("\n", ""))
            assert sum(counts[t] for t in targets) == int(item["answer"])
            if level >= 4:
                assert len(targets) == 2
                assert all(counts[t] for t in targets) or int(item["answer"]) == 1


def test_exploits() -> None:
    for item in create_dataset("symbol_count", level=4, seed=1, size=10):
        gold = int(item["answer"])
        assert score("symbol_count", f"<answer>{gold}</answer>", item) == 1.0
        assert score("symbol_count", f"There are {gold - 1} of them.\nAnswer: {gold}", item) == 1.0
        for wrong in (gold + 1, gold - 1, 0):
            assert score("symbol_count", str(wrong), item) == 0.0
        assert score("symbol_count", f"{gold - 1}, {gold}, {gold + 1}", item) == 0.0
        assert score("symbol_count", f"{gold} or {gold + 1}", item) == 0.0
        assert score("symbol_count", str(gold) * 200_000, item) == 0.0


def test_counts_spread() -> None:
    golds = Counter(item["answer"] for item in create_dataset("symbol_count", level=0, seed=5, size=300))
    assert golds.most_common(1)[0][1] / 300 < 0.1
