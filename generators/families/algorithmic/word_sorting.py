"""Sort a list of words alphabetically, ascending or descending.

Words are common lowercase English words, so the order is plain alphabetical (the same as
ASCII order). Harder levels sort more words and draw many that share long prefixes, so
the comparison has to look deep into the words; descending order is mixed in early.

The answer is the ordered list (commas or spaces between words); order matters, so a
permutation, a missing word or an extra one scores 0.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._words import WORDS

NAME = "word_sorting"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"min_words": (2, 40), "max_words": (2, 40), "shared_prefix": (0.0, 1.0)}

    min_words: int = 4
    max_words: int = 6
    shared_prefix: float = 0.0
    """Share of words drawn to start with the same letter as another word in the list."""

    def check(self) -> None:
        if self.min_words > self.max_words:
            raise ValueError("Config.min_words must be <= max_words")


LEVELS = (
    {"min_words": 4, "max_words": 6, "shared_prefix": 0.0},
    {"min_words": 6, "max_words": 8, "shared_prefix": 0.2},
    {"min_words": 8, "max_words": 10, "shared_prefix": 0.4},
    {"min_words": 10, "max_words": 14, "shared_prefix": 0.5},
    {"min_words": 12, "max_words": 18, "shared_prefix": 0.6},
    {"min_words": 16, "max_words": 24, "shared_prefix": 0.7},
)

_BY_FIRST: dict[str, tuple[str, ...]] = {}
for _word in WORDS:
    _BY_FIRST[_word[0]] = (*_BY_FIRST.get(_word[0], ()), _word)


def generate(config: Config, rng: random.Random) -> Problem:
    count = rng.randint(config.min_words, config.max_words)
    chosen: dict[str, None] = {rng.choice(WORDS): None}
    while len(chosen) < count:
        if rng.random() < config.shared_prefix:
            anchor = rng.choice(list(chosen))
            chosen[rng.choice(_BY_FIRST[anchor[0]])] = None
        else:
            chosen[rng.choice(WORDS)] = None
    words = list(chosen)
    rng.shuffle(words)
    descending = rng.random() < 0.5
    order = "descending (Z to A)" if descending else "ascending (A to Z)"
    question = (
        f"Sort these words in {order} alphabetical order: {', '.join(words)}.\n"
        "Give the sorted words separated by commas."
    )
    return Problem(question, ", ".join(sorted(words, reverse=descending)), {"words": words, "descending": descending})


FAMILY = Family(
    name=NAME,
    description="Sort 4-24 lowercase words alphabetically, ascending or descending (ordered list).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
    counterpart="reasoning_gym:word_sorting",
)
