"""Counting: combinations, permutations, word arrangements, stars and bars, round tables.

Every answer is an exact integer from ``math.comb``/``math.perm``/factorials. Question
wording varies the objects being counted, which also widens the small early levels.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "combinatorics_count"

_KINDS = ("choose", "permute", "word", "stars_bars", "stars_bars_positive", "round_table", "two_groups")
_PEOPLE = ("students", "employees", "players", "volunteers", "club members", "musicians", "chefs", "runners")
_THINGS = ("identical candies", "identical coins", "identical marbles", "identical tickets")
_CONTAINERS = ("children", "boxes", "jars", "teams")


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"max_n": (3, 200), "max_word_length": (2, 20), "max_alphabet": (2, 26)}

    kinds: str = "choose,permute"
    max_n: int = 10
    max_word_length: int = 6
    max_alphabet: int = 4

    def check(self) -> None:
        kinds = self.kinds.split(",") if isinstance(self.kinds, str) else []
        if not kinds or any(kind not in _KINDS for kind in kinds) or len(set(kinds)) != len(kinds):
            raise ValueError(f"Config.kinds must be distinct names from {', '.join(_KINDS)}, got {self.kinds!r}")


LEVELS = (
    {"kinds": "choose,permute", "max_n": 12},
    {"kinds": "choose,permute,word", "max_n": 15, "max_word_length": 6, "max_alphabet": 4},
    {"kinds": "choose,word,stars_bars,round_table", "max_n": 20, "max_word_length": 8, "max_alphabet": 5},
    {"kinds": "permute,word,stars_bars_positive,round_table,two_groups", "max_n": 25, "max_word_length": 10},
    {"kinds": "word,stars_bars,stars_bars_positive,two_groups", "max_n": 40, "max_word_length": 12, "max_alphabet": 6},
    {"kinds": "word,stars_bars_positive,two_groups,round_table", "max_n": 60, "max_word_length": 16, "max_alphabet": 8},
)


def generate(config: Config, rng: random.Random) -> Problem:
    kind = rng.choice(config.kinds.split(","))
    people = rng.choice(_PEOPLE)
    n = rng.randint(3, config.max_n)
    if kind == "choose":
        r = rng.randint(1, n - 1)
        question = f"In how many ways can a group of {r} be chosen from {n} {people} (order does not matter)?"
        answer = math.comb(n, r)
    elif kind == "permute":
        r = rng.randint(1, min(n, 8))
        question = (
            f"{n} {people} compete. In how many ways can the first {r} places be awarded (no ties; order matters)?"
        )
        answer = math.perm(n, r)
    elif kind == "word":
        length = rng.randint(2, config.max_word_length)
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: max(2, config.max_alphabet)]
        word = "".join(rng.choice(alphabet) for _ in range(length))
        counts = Counter(word)
        answer = math.factorial(length)
        for _, k in sorted(counts.items()):
            answer //= math.factorial(k)
        question = f"How many distinct strings can be formed by rearranging all the letters of {word}?"
    elif kind in ("stars_bars", "stars_bars_positive"):
        k = rng.randint(2, min(8, n))
        things, containers = rng.choice(_THINGS), rng.choice(_CONTAINERS)
        if kind == "stars_bars":
            answer = math.comb(n + k - 1, k - 1)
            rule = "some may get none"
        else:
            answer = math.comb(n - 1, k - 1)
            rule = "each gets at least one"
        question = f"In how many ways can {n} {things} be distributed among {k} distinct {containers} if {rule}?"
    elif kind == "round_table":
        question = (
            f"In how many ways can {n} {people} be seated around a round table, "
            "if seatings that differ only by a rotation are the same?"
        )
        answer = math.factorial(n - 1)
    else:
        m = rng.randint(3, config.max_n)
        r1, r2 = rng.randint(1, n - 1), rng.randint(1, m - 1)
        other = rng.choice([p for p in _PEOPLE if p != people])
        question = (
            f"A committee is formed by choosing {r1} of {n} {people} and {r2} of {m} {other}. "
            "How many different committees are possible?"
        )
        answer = math.comb(n, r1) * math.comb(m, r2)
    return Problem(question + " Give a single integer.", str(answer), {"kind": kind})


FAMILY = Family(
    name=NAME,
    description="Counting with combinations, permutations, multiset arrangements and stars and bars.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
    notes="Level 0 has a small item space (about 1,400 questions: n <= 12, eight wordings).",
)
