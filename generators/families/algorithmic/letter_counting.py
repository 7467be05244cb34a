"""Count how many times a letter occurs in a passage of words.

Counting letters is a known weak spot of token-based models, which see words rather than
letters. The count is drawn uniformly first and the passage built to hit it (random words holding
the letter no more often than the count still missing, until it is reached, then words
without it, shuffled), so the answers are flat and no constant pays. Harder levels use longer passages and larger
counts, with the letter sometimes doubled inside a word.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._words import WORDS

NAME = "letter_counting"

LETTERS = "aeinorst"


def _pools() -> tuple[dict[str, tuple[str, ...]], dict[str, dict[int, tuple[str, ...]]]]:
    without: dict[str, tuple[str, ...]] = {}
    up_to: dict[str, dict[int, tuple[str, ...]]] = {}
    for letter in LETTERS:
        without[letter] = tuple(w for w in WORDS if letter not in w)
        most = max(w.count(letter) for w in WORDS)
        up_to[letter] = {r: tuple(w for w in WORDS if 0 < w.count(letter) <= r) for r in range(1, most + 1)}
    return without, up_to


WITHOUT, UP_TO = _pools()
"""letter -> words without it; letter -> r -> words holding it 1..r times (in list order)."""


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"max_count": (4, 80), "filler_words": (0, 200)}

    max_count: int = 20
    """The count is uniform on 1..max_count."""
    filler_words: int = 10
    """Words without the letter mixed in."""


LEVELS = (
    {"max_count": 20, "filler_words": 8},
    {"max_count": 24, "filler_words": 12},
    {"max_count": 28, "filler_words": 16},
    {"max_count": 32, "filler_words": 22},
    {"max_count": 40, "filler_words": 30},
    {"max_count": 50, "filler_words": 40},
)


_WIDTHS = tuple(m.bit_length() for m in range(1024))
"""``m.bit_length()`` for every shuffle range a passage can have (at most 280 words)."""


def generate(config: Config, rng: random.Random) -> Problem:
    # ``rng.choice(LETTERS)`` and ``rng.randint(1, max_count)`` with their draws inline
    # (the same getrandbits calls).
    getrandbits = rng.getrandbits
    count = len(LETTERS)
    bits = count.bit_length()
    r = getrandbits(bits)
    while r >= count:
        r = getrandbits(bits)
    letter = LETTERS[r]
    pools = UP_TO[letter]
    span = config.max_count
    bits = span.bit_length()
    r = getrandbits(bits)
    while r >= span:
        r = getrandbits(bits)
    target = 1 + r
    words: list[str] = []
    remaining = target
    top = len(pools)
    while remaining > 0:
        pool = pools[remaining if remaining < top else top]  # rng.choice(pool), its draws inline
        size = len(pool)
        bits = size.bit_length()
        r = getrandbits(bits)
        while r >= size:
            r = getrandbits(bits)
        word = pool[r]
        words.append(word)
        remaining -= word.count(letter)
    # ``rng.choice(WITHOUT[letter])`` per filler word, its draws inline (same getrandbits calls).
    filler = WITHOUT[letter]
    size = len(filler)
    bits = size.bit_length()
    for _ in range(config.filler_words):
        r = getrandbits(bits)
        while r >= size:
            r = getrandbits(bits)
        words.append(filler[r])
    widths = _WIDTHS if len(words) <= len(_WIDTHS) else tuple(m.bit_length() for m in range(len(words) + 1))
    for i in range(len(words) - 1, 0, -1):  # rng.shuffle(words), inline with the widths read
        m = i + 1
        width = widths[m]
        j = getrandbits(width)
        while j >= m:
            j = getrandbits(width)
        words[i], words[j] = words[j], words[i]
    passage = " ".join(words)
    if passage.count(letter) != target:
        raise ValueError("letter_counting: passage does not hold the drawn count")
    question = (
        f'How many times does the letter "{letter}" appear in the text below? Count every occurrence, '
        f'including repeats inside a word.\n\n"{passage}"\n\nGive a single integer.'
    )
    return Problem(question, str(target), {"letter": letter})


FAMILY = Family(
    name=NAME,
    description="Occurrences of one letter in a passage of words (count drawn uniformly).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
    counterpart="reasoning_gym:letter_counting",
)
