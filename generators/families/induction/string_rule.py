"""Induce a hidden string transformation from examples and apply it to a new word.

Tests rule induction over strings: the hidden rule is one edit or two composed (reverse,
rotate, swap halves, double every letter, drop vowels, sort the letters, shift letters
along the alphabet, drop an end letter, mirror). Harder levels unlock more edits, compose
two and use longer words, so that several rules look plausible after one example.

The examples are checked to determine the answer: every rule of the level's candidate set
(each edit and, where the level composes, each pair of edits) that reproduces all examples
gives the same output on the query word; otherwise an example is added or the item is
redrawn. The answer is the output string, compared as text (case forgiven).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._words import WORDS

NAME = "string_rule"

Edit = Callable[[str], str]
_MAX_TRIES = 40
_VOWELS = frozenset("aeiou")


def _shift(word: str, k: int) -> str:
    return "".join(chr((ord(c) - 97 + k) % 26 + 97) for c in word)


_TIERS: tuple[tuple[tuple[str, Edit], ...], ...] = (
    (
        ("reverse", lambda s: s[::-1]),
        ("rotate left 1", lambda s: s[1:] + s[:1]),
        ("rotate right 1", lambda s: s[-1:] + s[:-1]),
        ("double letters", lambda s: "".join(c + c for c in s)),
        ("drop first", lambda s: s[1:]),
        ("drop last", lambda s: s[:-1]),
    ),
    (
        ("swap halves", lambda s: s[len(s) // 2 :] + s[: len(s) // 2]),
        ("drop vowels", lambda s: "".join(c for c in s if c not in _VOWELS)),
        ("sort letters", lambda s: "".join(sorted(s))),
        ("shift 1", lambda s: _shift(s, 1)),
        ("rotate left 2", lambda s: s[2:] + s[:2]),
    ),
    (
        ("mirror", lambda s: s + s[::-1]),
        ("shift 2", lambda s: _shift(s, 2)),
        ("shift -1", lambda s: _shift(s, -1)),
        ("repeat first", lambda s: s[:1] + s),
    ),
)


@dataclass(frozen=True)
class Config(Knobs):
    tiers: int = 1
    depth: int = 1
    examples: int = 3
    max_word_length: int = 5

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "tiers": (1, len(_TIERS)),
        "depth": (1, 2),
        "examples": (2, 8),
        "max_word_length": (4, 9),
    }


LEVELS = (
    {"tiers": 1, "depth": 1, "examples": 3, "max_word_length": 5},
    {"tiers": 2, "depth": 1, "examples": 3, "max_word_length": 6},
    {"tiers": 2, "depth": 2, "examples": 3, "max_word_length": 6},
    {"tiers": 3, "depth": 2, "examples": 3, "max_word_length": 7},
    {"tiers": 3, "depth": 2, "examples": 4, "max_word_length": 8},
    {"tiers": 3, "depth": 2, "examples": 4, "max_word_length": 9},
)


def edits(tiers: int) -> list[tuple[str, Edit]]:
    return [edit for tier in _TIERS[:tiers] for edit in tier]


def fitting_outputs(examples: list[tuple[str, str]], query: str, tiers: int, depth: int) -> set[str]:
    """The query outputs of every rule (one edit, or two composed when ``depth`` is 2) that
    reproduces all ``examples``."""
    pool = [f for _, f in edits(tiers)]
    first_in, first_out = examples[0]
    chains: list[tuple[Edit, ...]] = [(f,) for f in pool]
    if depth >= 2:
        by_mid: dict[str, list[Edit]] = {}
        for f in pool:
            by_mid.setdefault(f(first_in), []).append(f)
        for mid, firsts in by_mid.items():
            chains.extend((f, g) for g in pool if g(mid) == first_out for f in firsts)
    answers: set[str] = set()
    for chain in chains:
        if all(functools.reduce(lambda s, f: f(s), chain, given) == wanted for given, wanted in examples):
            answers.add(functools.reduce(lambda s, f: f(s), chain, query))
    return answers


@functools.cache
def _pool(max_length: int) -> tuple[str, ...]:
    return tuple(word for word in WORDS if 4 <= len(word) <= max_length)


def generate(config: Config, rng: random.Random) -> Problem:
    pool = _pool(config.max_word_length)
    available = edits(config.tiers)
    for _ in range(_MAX_TRIES):
        chain = [rng.choice(available) for _ in range(config.depth)]
        if config.depth == 2 and chain[0][0] == chain[1][0]:
            continue

        def rule(word: str, chain: list[tuple[str, Edit]] = chain) -> str:
            for _, f in chain:
                word = f(word)
            return word

        words = rng.sample(pool, config.examples + 4)
        query, spare = words[0], words[config.examples + 1 :]
        examples = [(word, rule(word)) for word in words[1 : config.examples + 1]]
        answer = rule(query)
        if len(answer) < 2 or answer == query or any(given == out or not out for given, out in examples):
            continue
        while True:
            fits = fitting_outputs(examples, query, config.tiers, config.depth)
            if fits == {answer} or not spare:
                break
            word = spare.pop()
            examples.append((word, rule(word)))
        if fits == {answer}:
            break
    else:
        raise ValueError("string_rule: no item whose examples fix the answer")
    shown = "\n".join(f"{given} -> {out}" for given, out in examples)
    question = (
        f"A hidden rule transforms words (lowercase letters):\n{shown}\n\n"
        f"What does the same rule turn '{query}' into? Answer with the resulting string only."
    )
    return Problem(question, answer, {"rule": [name for name, _ in chain], "examples": len(examples)})


FAMILY = Family(
    name=NAME,
    description="Apply a hidden string edit (or two composed) induced from word examples to a new word.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="text",
)
