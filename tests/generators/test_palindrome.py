"""palindrome: answers agree with brute force over all substrings / subsequences, every
shortest insertion palindrome is accepted, and near misses score 0."""

from __future__ import annotations

import itertools
import time

import pytest

from generators.dataset import create_dataset, score
from generators.families.algorithmic.palindrome import min_insertions, shortest_insertion_palindrome
from generators.scoring import ScorerError


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


def _is_subsequence(short: str, long: str) -> bool:
    remaining = iter(long)
    return all(any(ch == other for other in remaining) for ch in short)


def _all_shortest_palindromes(text: str) -> set[str]:
    """Brute force: every palindrome of length len(text) + min insertions over the string's letters
    that contains the string as a subsequence."""
    length = len(text) + _insertions(text)
    letters = sorted(set(text))
    out = set()
    for half in itertools.product(letters, repeat=(length + 1) // 2):
        word = "".join(half) + "".join(half[::-1])[length % 2 :]
        if _is_subsequence(text, word):
            out.add(word)
    return out


def test_against_brute_force() -> None:
    for level in range(6):
        for item in create_dataset("palindrome", level=level, seed=4, size=30):
            text = item["metadata"]["string"]
            gold = item["answer"]
            assert score("palindrome", gold, item) == 1.0
            if item["metadata"]["task"] == "longest":
                assert _longest(text) == {gold}
                continue
            assert gold == gold[::-1] and _is_subsequence(text, gold)
            assert len(gold) == len(text) + min_insertions(text)
            if len(text) <= 14:
                assert len(gold) == len(text) + _insertions(text)


def test_every_shortest_palindrome_is_accepted() -> None:
    several = False
    for item in create_dataset("palindrome", level=2, seed=6, size=20):
        found = _all_shortest_palindromes(item["metadata"]["string"])
        assert item["answer"] in found
        several |= len(found) > 1
        for word in found:
            assert score("palindrome", word, item) == 1.0, word
            assert score("palindrome", word.upper(), item) == 1.0
    assert several, "some strings have more than one shortest palindrome"


def test_reconstruction_on_small_cases() -> None:
    for text, length in (("a", 1), ("ab", 3), ("abc", 5), ("aab", 4), ("abcba", 5), ("abca", 5)):
        word = shortest_insertion_palindrome(text)
        assert word == word[::-1] and _is_subsequence(text, word) and len(word) == length


def _insertion_item(text: str) -> dict[str, object]:
    return {"answer": shortest_insertion_palindrome(text), "metadata": {"task": "insertions", "string": text}}


def test_insertion_exploits_score_zero() -> None:
    item = _insertion_item("abcab")  # fewest insertions 2: "abcacba", "bacbcab", ... (brute force)
    best = _all_shortest_palindromes("abcab")
    assert best and all(score("palindrome", word, item) == 1.0 for word in best)
    length = len(next(iter(best)))
    assert score("palindrome", "abcab", item) == 0.0  # the string itself: not a palindrome
    assert score("palindrome", "abcabca", item) == 0.0  # right length, contains the string, not a palindrome
    assert score("palindrome", "a" * length, item) == 0.0  # palindrome of the right length, string not inside
    assert score("palindrome", "bacacab", item) == 0.0  # palindrome of the right length, string not a subsequence
    assert score("palindrome", "abcabacba", item) == 0.0  # palindrome containing the string, too long
    assert score("palindrome", "abcab" + "bacba", item) == 0.0  # string + its reverse: too long
    assert score("palindrome", str(min_insertions("abcab")), item) == 0.0  # the count instead
    word = min(best)
    assert score("palindrome", f"{word} {word}", item) == 0.0  # stuffed twice
    assert score("palindrome", f"{word}, {word[::-1]}x", item) == 0.0


def test_counts_and_constants_score_zero() -> None:
    for level in range(2, 6):
        for item in create_dataset("palindrome", level=level, seed=9, size=20):
            if item["metadata"]["task"] == "insertions":
                count = min_insertions(item["metadata"]["string"])
                assert score("palindrome", str(count), item) == 0.0
                assert score("palindrome", item["answer"] + item["answer"][0] * 2, item) == 0.0


def test_hostile_answers_are_refused_fast() -> None:
    item = _insertion_item("abcabcabcabcabcabcabcabcabcabcabc")
    started = time.perf_counter()
    for hostile in ("a" * 128_000, "ab" * 64_000, "[" * 100_000, "9" * 100_000, None, 7):
        assert score("palindrome", hostile, item) == 0.0  # type: ignore[arg-type]
    assert time.perf_counter() - started < 2.0
    with pytest.raises(ScorerError):  # a broken item is the project's error, never the agent's 0
        score("palindrome", "aba", {"answer": "aba", "metadata": {}})
