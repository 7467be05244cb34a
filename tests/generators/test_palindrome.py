"""palindrome: answers agree with brute force over all substrings / subsequences."""

from __future__ import annotations

import itertools

from generators.dataset import create_dataset


def _longest(text: str) -> set[str]:
    pals = {text[i:j] for i in range(len(text)) for j in range(i + 1, len(text) + 1) if text[i:j] == text[i:j][::-1]}
    best = max(map(len, pals))
    return {p for p in pals if len(p) == best}


def _insertions(text: str) -> int:
    n = len(text)
    for size in range(n, 0, -1):
        for idx in itertools.combinations(range(n), size):
            sub = "".join(text[i] for i in idx)
            if sub == sub[::-1]:
                return n - size
    return n


def test_against_brute_force() -> None:
    for level in range(6):
        for item in create_dataset("palindrome", level=level, seed=4, size=30):
            text = item["metadata"]["string"]
            if item["metadata"]["task"] == "longest":
                assert _longest(text) == {item["answer"]}
            elif len(text) <= 14:
                assert int(item["answer"]) == _insertions(text)
