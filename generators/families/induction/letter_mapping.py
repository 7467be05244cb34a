"""Induce a letter substitution from example word pairs and apply it (or its inverse).

Tests inducing a mapping from examples and combining partial evidence: each example shows a
word and its encoding under one hidden letter-for-letter substitution; the query word's
letters are spread over several examples, so the answer needs letters gathered from more
than one of them. Harder levels use more and longer example words (more to search), query
several words at once, and ask more often to *decode* (apply the inverse mapping), which
means reading the examples right to left.

Every letter of the query occurs in the examples (on the side being read), and the mapping
is one-to-one, so the examples determine the answer exactly; it is compared as text (case
and surrounding spaces forgiven).
"""

from __future__ import annotations

import functools
import random
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._words import WORDS

NAME = "letter_mapping"

_MAX_TRIES = 50
_BY_LETTER: dict[str, tuple[str, ...]] = {
    letter: tuple(word for word in WORDS if letter in word) for letter in string.ascii_lowercase
}


@dataclass(frozen=True)
class Config(Knobs):
    min_examples: int = 3
    max_examples: int = 5
    query_words: int = 1
    max_word_length: int = 5
    decode_rate: float = 0.0
    """Chance that the question asks to decode (the inverse mapping)."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "min_examples": (2, 12),
        "max_examples": (2, 12),
        "query_words": (1, 4),
        "max_word_length": (4, 9),
        "decode_rate": (0.0, 1.0),
    }

    def check(self) -> None:
        if self.min_examples > self.max_examples:
            raise ValueError("Config.min_examples must be <= max_examples")


LEVELS = (
    {"min_examples": 3, "max_examples": 5, "query_words": 1, "max_word_length": 4, "decode_rate": 0.0},
    {"min_examples": 3, "max_examples": 6, "query_words": 1, "max_word_length": 5, "decode_rate": 0.2},
    {"min_examples": 4, "max_examples": 7, "query_words": 1, "max_word_length": 6, "decode_rate": 0.3},
    {"min_examples": 4, "max_examples": 8, "query_words": 2, "max_word_length": 6, "decode_rate": 0.4},
    {"min_examples": 5, "max_examples": 9, "query_words": 2, "max_word_length": 7, "decode_rate": 0.5},
    {"min_examples": 6, "max_examples": 10, "query_words": 3, "max_word_length": 7, "decode_rate": 0.5},
)


def _encode(word: str, mapping: Mapping[str, str]) -> str:
    return "".join(mapping[char] for char in word)


@functools.cache
def _pool(max_length: int) -> tuple[str, ...]:
    return tuple(word for word in WORDS if 3 <= len(word) <= max_length)


def generate(config: Config, rng: random.Random) -> Problem:
    pool = _pool(config.max_word_length)
    for _ in range(_MAX_TRIES):
        query = rng.sample(pool, config.query_words)
        needed = sorted(set("".join(query)))
        examples: list[str] = []
        missing = list(needed)
        while missing and len(examples) < config.max_examples:
            letter = rng.choice(missing)
            drawn = [rng.choice(_BY_LETTER[letter]) for _ in range(6)]
            options = [w for w in drawn if w not in query and w not in examples]
            if not options:
                break
            # Prefer a short word so the query's letters come from several examples.
            word = min(options, key=len)
            examples.append(word)
            missing = [char for char in missing if char not in word]
        if missing:
            continue
        while len(examples) < config.min_examples:
            word = rng.choice(pool)
            if word not in query and word not in examples:
                examples.append(word)
        if len(examples) >= 2 or config.max_examples < 2:
            break
    else:
        raise ValueError("letter_mapping: no example set covers the query")
    rng.shuffle(examples)
    letters = list(string.ascii_lowercase)
    mapping = dict(zip(letters, rng.sample(letters, len(letters))))
    while any(mapping[char] == char for char in set("".join(query))):  # the answer never echoes the query
        mapping = dict(zip(letters, rng.sample(letters, len(letters))))
    decode = rng.random() < config.decode_rate
    pairs = [(word, _encode(word, mapping)) for word in examples]
    plain = " ".join(query)
    coded = " ".join(_encode(word, mapping) for word in query)
    shown = "\n".join(f"{word} -> {code}" for word, code in pairs)
    if decode:
        ask = f"Which text encodes to '{coded}'? Answer with the original text only."
        answer = plain
    else:
        ask = f"How is '{plain}' encoded? Answer with the encoded text only."
        answer = coded
    question = (
        "A secret code replaces every letter by another letter (always the same one, and no two letters by "
        f"the same letter); spaces stay. Some words and their encodings:\n{shown}\n\n{ask}"
    )
    return Problem(question, answer, {"decode": decode, "examples": len(pairs)})


FAMILY = Family(
    name=NAME,
    description="Encode or decode words with a letter substitution induced from example word pairs.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="text",
)
