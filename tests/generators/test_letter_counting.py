"""letter_counting: the gold equals str.count over the quoted passage, counts are flat, and
wrong, stuffed or huge answers score 0."""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

import pytest

from generators.dataset import create_dataset, score
from generators.families.algorithmic import letter_counting

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


def _reference_generate(config: Any, rng: random.Random) -> tuple[str, str]:
    """letter_counting's draws in their plain form: choice, randint, choice per word, shuffle."""
    letter = rng.choice(letter_counting.LETTERS)
    pools = letter_counting.UP_TO[letter]
    target = rng.randint(1, config.max_count)
    words, remaining = [], target
    while remaining > 0:
        word = rng.choice(pools[min(remaining, len(pools))])
        words.append(word)
        remaining -= word.count(letter)
    words += [rng.choice(letter_counting.WITHOUT[letter]) for _ in range(config.filler_words)]
    rng.shuffle(words)
    return " ".join(words), str(target)


@pytest.mark.parametrize("level", range(6))
def test_inline_draws_equal_the_plain_form(level: int) -> None:
    config = letter_counting.FAMILY.config_for_level(level)
    ours, theirs = random.Random(level), random.Random(level)
    for _ in range(200):
        problem = letter_counting.generate(config, ours)
        passage, answer = _reference_generate(config, theirs)
        assert f'"{passage}"' in problem.question and problem.answer == answer
    assert ours.getstate() == theirs.getstate()
