"""Decide whether two strings are isomorphic.

Two strings are isomorphic when the characters of the first can be replaced, one for
one, to give the second: each character always maps to the same character, and no two
characters map to the same one. Half the pairs are isomorphic by construction; the other
half are made from an isomorphic pair by one edit that breaks exactly one of the two
rules, so the difference is a single position. Harder levels use longer strings over
larger alphabets.

Each question asks about four to eight numbered pairs and the answer is the set of pair
numbers that are isomorphic (``1, 3`` or ``none``); every pair is isomorphic with chance
one half independently, so a constant answer earns at most ``2**-pairs`` and a guess no
longer earns half the reward (see ``_choose``).
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer
from generators.base import Family, Knobs, Problem
from generators.families._choose import format_indices, parse_indices

NAME = "isomorphic_strings"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"pairs": (4, 12), "min_length": (2, 60), "max_length": (2, 60), "alphabet": (2, 26)}

    pairs: int = 4
    min_length: int = 4
    max_length: int = 6
    alphabet: int = 4

    def check(self) -> None:
        if self.min_length > self.max_length:
            raise ValueError("Config.min_length must be <= max_length")


LEVELS = (
    {"pairs": 4, "min_length": 4, "max_length": 6, "alphabet": 4},
    {"pairs": 4, "min_length": 6, "max_length": 9, "alphabet": 5},
    {"pairs": 5, "min_length": 8, "max_length": 12, "alphabet": 6},
    {"pairs": 5, "min_length": 12, "max_length": 16, "alphabet": 8},
    {"pairs": 6, "min_length": 16, "max_length": 22, "alphabet": 10},
    {"pairs": 8, "min_length": 20, "max_length": 28, "alphabet": 12},
)


def isomorphic(s: str, t: str) -> bool:
    """Equal lengths and as many distinct (s, t) letter pairs as distinct letters on each
    side: then every letter maps one to one (set sizes in C, no Python loop per letter)."""
    if len(s) != len(t):
        return False
    pairs = len(set(zip(s, t)))
    return pairs == len(set(s)) == len(set(t))


_OTHER_LETTERS = {ch: tuple(other for other in string.ascii_lowercase if other != ch) for ch in string.ascii_lowercase}
"""Per letter, the alphabet without it (the replacement a broken pair draws from)."""


def _sample_letters(getrandbits: Callable[[int], int], k: int) -> str:
    """``"".join(rng.sample(string.ascii_lowercase, k))`` with the draws inline (same
    getrandbits calls): Random.sample's selected-set branch for k <= 5 (26 is over its pool
    size 21 there; the at most 5 taken letters are scanned as a string), its pool branch above."""
    letters = string.ascii_lowercase
    if k <= 5:
        picked = ""
        for _ in range(k):
            j = getrandbits(5)
            while j >= 26 or letters[j] in picked:
                j = getrandbits(5)
            picked += letters[j]
        return picked
    pool = list(letters)
    result = []
    for i in range(k):
        m = 26 - i
        bits = m.bit_length()
        j = getrandbits(bits)
        while j >= m:
            j = getrandbits(bits)
        result.append(pool[j])
        pool[j] = pool[m - 1]
    return "".join(result)


def _pair(config: Config, rng: random.Random, want: bool) -> tuple[str, str]:
    """One pair, isomorphic iff ``want``."""
    return _pairs(config, rng, [want])[0]


def _pairs(config: Config, rng: random.Random, labels: list[bool]) -> list[tuple[str, str]]:
    """A pair per label, isomorphic iff its label, drawn in order (the draws' set-up done
    once per item rather than per pair)."""
    getrandbits = rng.getrandbits
    low, span = config.min_length, config.max_length - config.min_length + 1
    bits = span.bit_length()
    letters = string.ascii_lowercase
    # ``rng.choices(alphabet, k=length)`` as random.Random.choices draws it (floor(random() * n)).
    pool, size, uniform = letters[: config.alphabet], float(config.alphabet), rng.random
    pairs = []
    for want in labels:
        r = getrandbits(bits)  # rng.randint(min_length, max_length), inline
        while r >= span:
            r = getrandbits(bits)
        length = low + r
        source = "".join([pool[int(uniform() * size)] for _ in range(length)])
        used = "".join(sorted(set(source)))
        count = len(used)
        if count <= 5:  # _sample_letters' selected-set branch, inline
            picked = ""
            for _ in range(count):
                j = getrandbits(5)
                while j >= 26 or letters[j] in picked:
                    j = getrandbits(5)
                picked += letters[j]
        else:
            picked = _sample_letters(getrandbits, count)
        # The renaming as one translate table (sorted source letters -> sampled letters).
        target = source.translate(str.maketrans(used, picked))
        if want:  # a one-to-one renaming of the source: isomorphic by construction
            pairs.append((source, target))
            continue
        pairs.append(_break(source, target, getrandbits))
    return pairs


def _break(source: str, target: str, getrandbits: Callable[[int], int]) -> tuple[str, str]:
    """The pair made not isomorphic by changing one letter of ``target`` (a one-to-one
    renaming of ``source``), drawn as ``rng.randrange`` and ``rng.choice`` would."""
    length = len(source)
    length_bits = length.bit_length()
    for _ in range(200):
        position = getrandbits(length_bits)  # rng.randrange(length), inline
        while position >= length:
            position = getrandbits(length_bits)
        r = getrandbits(5)  # rng.choice of the 25 other letters, inline
        while r >= 25:
            r = getrandbits(5)
        letter = _OTHER_LETTERS[target[position]][r]
        # ``not isomorphic(source, broken)`` for a one-to-one target with one letter changed:
        # the source letter there occurs elsewhere (now mapped two ways), or the new letter
        # is already another source letter's image.
        if source.count(source[position]) > 1 or letter in target:
            return source, target[:position] + letter + target[position + 1 :]
    # A one-letter source: every edit keeps it isomorphic, so break the other way.
    source = source[:-1] + ("b" if source[-1] == "a" else "a")
    t = target[0] * length
    if isomorphic(source, t):
        raise ValueError("isomorphic_strings: label does not match the pair")
    return source, t


def generate(config: Config, rng: random.Random) -> Problem:
    labels = [rng.random() < 0.5 for _ in range(config.pairs)]
    pairs = _pairs(config, rng, labels)
    listed = "\n".join([f"{i}. {s} {t}" for i, (s, t) in enumerate(pairs, 1)])
    question = (
        "Two strings are isomorphic if the characters in the first can be replaced to get the second: every "
        "occurrence of a character is replaced by the same character, and no two different characters are "
        "replaced by the same character (a character may map to itself).\n"
        f"Which of these numbered pairs of strings are isomorphic?\n{listed}\n"
        "Give the numbers of the isomorphic pairs separated by commas (for example 1, 3), or none if no pair is."
    )
    answer = format_indices([i for i, want in enumerate(labels, 1) if want])
    return Problem(question, answer, {"pairs": [list(pair) for pair in pairs]})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the answer names exactly the isomorphic pairs (any order, or none)."""
    try:
        count = len((item.get("metadata") or {})["pairs"])
        want = parse_indices(str(item["answer"]), count)
        got = parse_indices(extract_answer(answer_text), count)
        return 1.0 if want is not None and got == want else 0.0
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    description="Which of 4-8 string pairs are isomorphic (one-to-one character mapping)? Set of pair numbers.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="set",
    score=score,
    counterpart="reasoning_gym:isomorphic_strings",
)
