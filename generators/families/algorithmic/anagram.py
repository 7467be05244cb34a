"""Unscramble jumbled letters back into common English words.

Tests search over letter arrangements guided by vocabulary. Longer words have far more
arrangements, several words per item must all be solved, and the first-letter hint of the
easy levels is withdrawn. Only words whose letters form no other word in the built-in list
(plus a list of known anagram partners such as stop/pots/tops) are asked, so each scramble
has exactly one intended answer; the scramble itself is never a word.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._words import UNIQUE_ANAGRAM_WORDS, WORD_SET, words_by_length

NAME = "anagram"


@dataclass(frozen=True)
class Config(Knobs):
    min_len: int = 4
    max_len: int = 4
    n_words: int = 1
    first_letter_hint: bool = True

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "min_len": (3, 10),
        "max_len": (3, 10),
        "n_words": (1, 5),
    }

    def check(self) -> None:
        if self.min_len > self.max_len:
            raise ValueError("anagram: min_len must be <= max_len")
        if len(words_by_length(UNIQUE_ANAGRAM_WORDS, self.min_len, self.max_len)) < 10 * self.n_words:
            raise ValueError("anagram: too few unambiguous words in the requested length range")


LEVELS: tuple[dict[str, object], ...] = (
    {"min_len": 4, "max_len": 4, "n_words": 1, "first_letter_hint": True},
    {"min_len": 4, "max_len": 5, "n_words": 1, "first_letter_hint": False},
    {"min_len": 5, "max_len": 6, "n_words": 1, "first_letter_hint": False},
    {"min_len": 6, "max_len": 7, "n_words": 2, "first_letter_hint": False},
    {"min_len": 7, "max_len": 8, "n_words": 2, "first_letter_hint": False},
    {"min_len": 7, "max_len": 10, "n_words": 3, "first_letter_hint": False},
)


def scramble(word: str, rng: random.Random) -> str:
    """A permutation of ``word`` that is neither the word nor any other known word."""
    letters = list(word)
    for _ in range(100):
        rng.shuffle(letters)
        candidate = "".join(letters)
        if candidate != word and candidate not in WORD_SET:
            return candidate
    raise ValueError(f"anagram: cannot scramble {word!r}")


def generate(config: Config, rng: random.Random) -> Problem:
    pool = words_by_length(UNIQUE_ANAGRAM_WORDS, config.min_len, config.max_len)
    words = rng.sample(pool, config.n_words)
    scrambles = [scramble(w, rng).upper() for w in words]
    lines = []
    for i, (word, jumble) in enumerate(zip(words, scrambles), start=1):
        hint = f" (starts with {word[0].upper()})" if config.first_letter_hint else ""
        lines.append(f"{i}. {jumble}{hint}")
    if config.n_words == 1:
        intro = "Unscramble the following letters into a common English word, using every letter exactly once."
        fmt = "Answer with the word only, in lowercase."
    else:
        intro = (
            f"Unscramble each of the following {config.n_words} letter groups into a common English word, "
            "using every letter of the group exactly once."
        )
        fmt = "Answer with the words in the same order, in lowercase, separated by commas (e.g. word1, word2)."
    question = intro + "\n\n" + "\n".join(lines) + "\n\n" + fmt
    return Problem(question=question, answer=", ".join(words), extra={"scrambles": scrambles})


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:letter_jumble",
    description="Unscramble letters into common English words (unique solution within the word list).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
    notes="Uniqueness is relative to the built-in word list plus a list of known anagram partners; an obscure "
    "English word with the same letters is possible in principle but never the gold answer.",
)
