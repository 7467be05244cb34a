"""string_manipulation: operations do what their descriptions say; outputs are clean lines."""

from __future__ import annotations

import random

from generators.dataset import create_dataset
from generators.families.string_manipulation import _make_op


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
