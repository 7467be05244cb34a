"""Palindrome reasoning: longest palindromic substring, or a shortest palindrome by insertion.

Tests systematic scanning (every centre must be tried) and, for the insertion task, the
longest-palindromic-subsequence recurrence. Harder levels use longer strings over smaller
alphabets, where palindromic fragments are everywhere and the longest one is easy to miss,
and mix both tasks. The longest palindrome is planted and items are kept only when it is
the unique longest (as a string), so the answer is unambiguous.

The insertion task asks for the palindrome itself, not the number of insertions: counts
cluster on a few small values that one constant answer would often hit. The scorer checks
the witness (a palindrome, containing the string as a subsequence, of the least possible
length), so every shortest palindrome reachable by insertions is accepted.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
from generators.base import Family, Knobs, Problem

NAME = "palindrome"

TASKS = ("longest", "insertions", "mixed")
ALPHABET = "abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class Config(Knobs):
    task: str = "longest"
    """``longest`` substring, minimum ``insertions``, or ``mixed`` (either per item)."""
    min_len: int = 6
    max_len: int = 8
    alphabet_size: int = 3

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "min_len": (3, 60),
        "max_len": (3, 60),
        "alphabet_size": (2, 26),
    }

    def check(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"palindrome: task must be one of {TASKS}, got {self.task!r}")
        if self.min_len > self.max_len:
            raise ValueError("palindrome: min_len must be <= max_len")


LEVELS: tuple[dict[str, object], ...] = (
    {"task": "longest", "min_len": 6, "max_len": 8, "alphabet_size": 4},
    {"task": "longest", "min_len": 10, "max_len": 14, "alphabet_size": 3},
    {"task": "insertions", "min_len": 5, "max_len": 7, "alphabet_size": 3},
    {"task": "mixed", "min_len": 10, "max_len": 14, "alphabet_size": 3},
    {"task": "mixed", "min_len": 16, "max_len": 24, "alphabet_size": 3},
    {"task": "mixed", "min_len": 24, "max_len": 36, "alphabet_size": 2},
)


def palindromic_substrings_max(text: str) -> tuple[int, set[str]]:
    """Length of the longest palindromic substring and the set of such substrings."""
    best, found = 0, set()
    n = len(text)
    for centre in range(2 * n - 1):
        lo, hi = centre // 2, centre // 2 + centre % 2
        while lo >= 0 and hi < n and text[lo] == text[hi]:
            lo, hi = lo - 1, hi + 1
        length = hi - lo - 1
        if length > best:
            best, found = length, {text[lo + 1 : hi]}
        elif length == best and length > 0:
            found.add(text[lo + 1 : hi])
    return best, found


def _lps_table(text: str) -> list[list[int]]:
    """``lps[i][j]``: longest palindromic subsequence of ``text[i : j + 1]`` (interval DP)."""
    n = len(text)
    lps = [[0] * n for _ in range(n)]
    for i in range(n - 1, -1, -1):
        lps[i][i] = 1
        for j in range(i + 1, n):
            if text[i] == text[j]:
                lps[i][j] = lps[i + 1][j - 1] + 2 if j > i + 1 else 2
            else:
                lps[i][j] = max(lps[i + 1][j], lps[i][j - 1])
    return lps


def min_insertions(text: str) -> int:
    """len(text) minus its longest palindromic subsequence."""
    return len(text) - _lps_table(text)[0][len(text) - 1] if text else 0


def shortest_insertion_palindrome(text: str) -> str:
    """One shortest palindrome that contains ``text`` as a subsequence.

    Walk the table from the outside in: equal ends are kept as a pair; otherwise the end
    not on a longest palindromic subsequence is mirrored by an insertion on the other side.
    """
    lps = _lps_table(text)
    left: list[str] = []
    middle = ""
    i, j = 0, len(text) - 1
    while i <= j:
        if i == j:
            middle = text[i]
            break
        if text[i] == text[j]:
            left.append(text[i])
            i, j = i + 1, j - 1
        elif lps[i + 1][j] >= lps[i][j - 1]:
            left.append(text[i])  # text[i] is matched by an insertion just before text[j]
            i += 1
        else:
            left.append(text[j])  # text[j] is matched by an insertion just after text[i]
            j -= 1
    half = "".join(left)
    return half + middle + half[::-1]


def _longest_item(config: Config, rng: random.Random, letters: str) -> tuple[str, str]:
    for _ in range(200):
        n = rng.randint(config.min_len, config.max_len)
        size = rng.randint(max(3, n // 4), max(3, n // 2))
        half = "".join(rng.choice(letters) for _ in range((size + 1) // 2))
        planted = half + half[::-1][size % 2 :]
        rest = n - len(planted)
        if rest < 0:
            continue
        left = rng.randint(0, rest)
        text = (
            "".join(rng.choice(letters) for _ in range(left))
            + planted
            + "".join(rng.choice(letters) for _ in range(rest - left))
        )
        _, found = palindromic_substrings_max(text)
        if len(found) == 1:
            return text, found.pop()
    raise ValueError("palindrome: could not build a string with a unique longest palindrome")


def generate(config: Config, rng: random.Random) -> Problem:
    letters = "".join(rng.sample(ALPHABET, config.alphabet_size))
    task = config.task if config.task != "mixed" else rng.choice(("longest", "insertions"))
    if task == "longest":
        text, answer = _longest_item(config, rng, letters)
        question = (
            f"Find the longest palindromic substring (a contiguous run of characters that reads the same "
            f"forwards and backwards) of the string:\n\n{text}\n\n"
            "It is unique. Answer with that substring only."
        )
    else:
        n = rng.randint(config.min_len, config.max_len)
        text = "".join(rng.choice(letters) for _ in range(n))
        answer = shortest_insertion_palindrome(text)
        if len(answer) != n + min_insertions(text):
            raise ValueError("palindrome: reconstruction disagrees with the insertion count")
        question = (
            "Insert as few characters as possible (anywhere in the string, keeping its characters in order) "
            f"to turn the following string into a palindrome:\n\n{text}\n\n"
            "Give the resulting palindrome. If several are possible with that fewest number of insertions, "
            "any one of them is right. Answer with the palindrome only."
        )
    return Problem(question=question, answer=answer, extra={"task": task, "string": text})


def _is_subsequence(short: str, long: str) -> bool:
    remaining = iter(long)
    return all(any(ch == other for other in remaining) for ch in short)


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """Longest substring: text comparison with the unique gold. Insertions: 1.0 for any
    palindrome that contains the string as a subsequence and is of the least possible
    length, so a count, a constant, or a longer palindrome scores 0."""
    from generators.answers import compare, extract_answer, normalize_text

    try:
        meta = item.get("metadata") or item.get("extra") or {}
        if meta["task"] == "longest":
            return compare("text", extract_answer(answer_text), str(item["answer"]))
        text = str(meta["string"])
        candidate = extract_answer(answer_text)
        if len(candidate) > 2 * len(text) + 16:  # longer than any answer: refuse before any work
            return 0.0
        candidate = normalize_text(candidate)
        # The gold is a shortest palindrome (generate checks it against the DP), so its length
        # is the least possible: no O(n^2) table per scored answer.
        shortest = len(normalize_text(str(item["answer"])))
        if len(candidate) != shortest or candidate != candidate[::-1]:
            return 0.0
        return 1.0 if _is_subsequence(text, candidate) else 0.0
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    description="Longest palindromic substring, or a shortest palindrome made by insertions (any one, verified).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="text",
    score=score,
)
