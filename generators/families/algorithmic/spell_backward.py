"""Spell a word, or a short phrase, backwards.

Reversing letters one at a time is a known weak spot of token-based models, which see
whole words rather than letters. Harder levels use longer words and then phrases of two
or three words reversed as a whole string (spaces included), which also reverses the
order of the words.

The answer is the reversed string, compared case-insensitively with surrounding
whitespace and punctuation ignored; a near miss (one letter swapped) scores 0.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._words import WORDS, words_by_length

NAME = "spell_backward"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"min_length": (3, 10), "max_length": (3, 10), "words": (1, 4)}

    min_length: int = 3
    max_length: int = 5
    words: int = 1

    def check(self) -> None:
        if self.min_length > self.max_length:
            raise ValueError("Config.min_length must be <= max_length")


LEVELS = (
    {"min_length": 3, "max_length": 5, "words": 1},
    {"min_length": 5, "max_length": 6, "words": 1},
    {"min_length": 6, "max_length": 8, "words": 1},
    {"min_length": 6, "max_length": 10, "words": 2},
    {"min_length": 6, "max_length": 10, "words": 3},
    {"min_length": 7, "max_length": 10, "words": 4},
)


_POOLS: dict[tuple[int, int], tuple[str, ...]] = {}
"""(min_length, max_length) -> ``words_by_length``'s pool: one dict lookup an item instead
of a call that keys its own cache by the word list's identity."""


def generate(config: Config, rng: random.Random) -> Problem:
    low, high, count = config.min_length, config.max_length, config.words
    pool = _POOLS.get((low, high))
    if pool is None:
        pool = _POOLS[low, high] = words_by_length(WORDS, low, high)
    # ``rng.choice(pool)`` per word with its draws inline (same getrandbits calls).
    getrandbits, size = rng.getrandbits, len(pool)
    bits = size.bit_length()
    if count == 1:  # one word: no list and no join
        r = getrandbits(bits)
        while r >= size:
            r = getrandbits(bits)
        text = pool[r]
        question = f'Spell this word backwards: "{text}".\nGive the reversed text only.'
        return Problem(question, text[::-1], {"text": text})
    words = []
    for _ in range(count):
        r = getrandbits(bits)
        while r >= size:
            r = getrandbits(bits)
        words.append(pool[r])
    text = " ".join(words)
    question = f'Spell this phrase (as one string, spaces included) backwards: "{text}".\nGive the reversed text only.'
    return Problem(question, text[::-1], {"text": text})


FAMILY = Family(
    name=NAME,
    description="Spell a word or a 2-4 word phrase backwards (letter by letter).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="text",
    counterpart="reasoning_gym:spell_backward",
)
