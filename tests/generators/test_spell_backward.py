"""spell_backward: the gold reverses the quoted text; the forward text, a one-letter slip,
words reversed in place (not as one string) and stuffed answers score 0."""

from __future__ import annotations

import random

import pytest

from generators.dataset import create_dataset, score
from generators.families._words import WORDS, words_by_length
from generators.families.algorithmic import spell_backward

NAME = "spell_backward"


def test_gold_reverses_quoted_text() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=2, size=30):
            text = item["question"].split('"')[1]
            assert item["answer"] == "".join(reversed(text))


def test_forms_and_exploits() -> None:
    item = create_dataset(NAME, level=4, seed=3, size=1)[0]
    text, gold = item["metadata"]["text"], item["answer"]
    assert score(NAME, gold.upper(), item) == 1.0
    assert score(NAME, f'The reversed text is:\n"{gold}"', item) == 1.0
    in_place = " ".join(word[::-1] for word in text.split())
    slip = gold[1] + gold[0] + gold[2:]
    for wrong in (
        text,
        in_place,
        slip,
        f"{gold}, {text}",
        f"{gold} or {slip}",
        gold[:-1],
        gold + gold[-1],
        "x" * 1_000_000,
    ):
        if wrong.casefold() != gold.casefold():
            assert score(NAME, wrong, item) == 0.0, wrong[:60]


@pytest.mark.parametrize("level", range(6))
def test_inline_draws_equal_rng_choice(level: int) -> None:
    """The cached pool and inline draws give ``rng.choice`` per word over ``words_by_length``."""
    config = spell_backward.FAMILY.config_for_level(level)
    pool = words_by_length(WORDS, config.min_length, config.max_length)
    ours, theirs = random.Random(level), random.Random(level)
    for _ in range(200):
        text = " ".join(theirs.choice(pool) for _ in range(config.words))
        problem = spell_backward.generate(config, ours)
        assert problem.extra["text"] == text and problem.answer == text[::-1]
        assert f'backwards: "{text}".' in problem.question
    assert ours.getstate() == theirs.getstate()
