"""Palindrome reasoning: longest palindromic substring, or fewest insertions to a palindrome.

Tests systematic scanning (every centre must be tried) and, for the insertion task, the
longest-palindromic-subsequence recurrence. Harder levels use longer strings over smaller
alphabets, where palindromic fragments are everywhere and the longest one is easy to miss,
and mix both tasks. The longest palindrome is planted and items are kept only when it is
the unique longest (as a string), so the answer is unambiguous.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

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


def min_insertions(text: str) -> int:
    """len(text) minus its longest palindromic subsequence (classic interval DP)."""
    n = len(text)
    if n == 0:
        return 0
    lps = [[0] * n for _ in range(n)]
    for i in range(n - 1, -1, -1):
        lps[i][i] = 1
        for j in range(i + 1, n):
            if text[i] == text[j]:
                lps[i][j] = lps[i + 1][j - 1] + 2 if j > i + 1 else 2
            else:
                lps[i][j] = max(lps[i + 1][j], lps[i][j - 1])
    return n - lps[0][n - 1]


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
        answer = str(min_insertions(text))
        question = (
            "What is the minimum number of characters that must be inserted (anywhere in the string) to turn "
            f"the following string into a palindrome?\n\n{text}\n\n"
            "Answer with a single integer."
        )
    return Problem(question=question, answer=answer, extra={"task": task, "string": text})


FAMILY = Family(
    name=NAME,
    description="Longest palindromic substring, or minimum insertions to make a palindrome.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="text",
    notes="Integer answers (insertion task) are plain digits, compared as text.",
)
