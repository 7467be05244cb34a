"""anagram: every scramble has exactly one arrangement in the word list, and it is the gold."""

from __future__ import annotations

import itertools

from generators.dataset import create_dataset
from generators.families._words import WORD_SET


def test_scrambles_have_a_unique_word() -> None:
    for level in range(6):
        for item in create_dataset("anagram", level=level, seed=3, size=25):
            golds = [w.strip() for w in item["answer"].split(",")]
            for scramble, gold in zip(item["metadata"]["scrambles"], golds):
                scramble = scramble.lower()
                assert scramble != gold and scramble not in WORD_SET
                assert sorted(scramble) == sorted(gold)
                if len(scramble) <= 8:
                    words = {"".join(p) for p in itertools.permutations(scramble)} & WORD_SET
                    assert words == {gold}
