"""string_manipulation: operations do what their descriptions say; outputs are clean lines."""

from __future__ import annotations

import random
import re
from collections import Counter

from generators.dataset import create_dataset, score
from generators.families.algorithmic.string_manipulation import _make_op


def _op(name: str, text: str = "hello big world") -> str:
    return _make_op(name, text, random.Random(0))[1](text)


def test_operations_on_fixed_input() -> None:
    assert _op("reverse_string") == "dlrow gib olleh"
    assert _op("reverse_words") == "world big hello"
    assert _op("reverse_each") == "olleh gib dlrow"
    assert _op("capitalize") == "Hello Big World"
    assert _op("remove_vowels") == "hll bg wrld"
    assert _op("sort_words", "pear Apple fig") == "Apple fig pear"
    assert _op("alternate_case", "ab cd") == "Ab cD"
    description, fn = _make_op("drop_every", "abcdefgh", random.Random(1))
    k = int(description.split("every ")[1][0])
    assert fn("abcdefgh") == "".join(c for i, c in enumerate("abcdefgh", 1) if i % k)


def test_items_are_clean_and_consistent() -> None:
    for level in range(6):
        for item in create_dataset("string_manipulation", level=level, seed=6, size=30):
            final = item["metadata"]["final"]
            assert final == " ".join(final.split())
            if item["answer"] != final:
                assert item["answer"].isdigit()


def _count_items() -> list[dict]:
    return [
        item
        for level in range(3, 6)
        for item in create_dataset("string_manipulation", level=level, seed=12, size=200)
        if item["answer"] != item["metadata"]["final"]
    ]


def test_letter_counts_recomputed_and_spread() -> None:
    items = _count_items()
    assert len(items) > 100
    for item in items:
        m = re.search(r"are one of the letters ((?:'[a-z]'(?:, )?)+) \(in either case\)", item["question"])
        letters = re.findall(r"'([a-z])'", m.group(1))
        assert 2 <= len(letters) <= 4 and len(set(letters)) == len(letters)
        final = item["metadata"]["final"].lower()
        assert item["answer"] == str(sum(final.count(letter) for letter in letters))
        assert "answer with a single integer" in item["question"]
    # No count dominates: a constant such as "1" must not earn reward.
    top = Counter(item["answer"] for item in items).most_common(1)[0][1]
    assert top / len(items) < 0.3


def test_count_exploits_score_zero() -> None:
    for item in _count_items():
        m = re.search(r"are one of the letters ((?:'[a-z]'(?:, )?)+) \(", item["question"])
        letters = re.findall(r"'([a-z])'", m.group(1))
        final = item["metadata"]["final"].lower()
        gold = item["answer"]
        assert score("string_manipulation", gold, item) == 1.0
        wrong = {
            "1",
            str(final.count(letters[0])),  # only the first letter counted
            str(max(final.count(letter) for letter in letters)),
            str(len(final)),
            str(int(gold) + 1),
            f"{gold}, {int(gold) + 1}",
            item["metadata"]["final"],  # the string instead of the count
        } - {gold}
        for answer in wrong:
            assert score("string_manipulation", answer, item) == 0.0, (answer, gold)
