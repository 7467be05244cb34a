"""Next term of an integer sequence.

Rules unlock with the level: arithmetic, geometric, quadratic, Fibonacci-like, two
interleaved arithmetic sequences, alternating "+a, *b" steps, and cubic. Enough terms are
shown to pin the rule down (a cubic needs at least five, so six are shown).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "sequence_next"

_RULES = ("arithmetic", "geometric", "quadratic", "fibonacci", "interleaved", "alternating", "cubic")
_MIN_TERMS = {
    "arithmetic": 3,
    "geometric": 3,
    "quadratic": 4,
    "fibonacci": 4,
    "interleaved": 6,
    "alternating": 5,
    "cubic": 5,
}


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"terms_shown": (3, 12), "max_start": (1, 10_000), "max_step": (1, 1000)}

    rules: str = "arithmetic"
    terms_shown: int = 5
    max_start: int = 20
    max_step: int = 9
    negative: bool = False

    def check(self) -> None:
        rules = self.rules.split(",") if isinstance(self.rules, str) else []
        if not rules or any(rule not in _RULES for rule in rules) or len(set(rules)) != len(rules):
            raise ValueError(f"Config.rules must be distinct names from {', '.join(_RULES)}, got {self.rules!r}")
        if not isinstance(self.negative, bool):
            raise ValueError(f"Config.negative must be a bool, got {self.negative!r}")
        needed = max(_MIN_TERMS[rule] for rule in rules)
        if self.terms_shown < needed:
            raise ValueError(f"Config.terms_shown must be >= {needed} for rules {self.rules!r}")


LEVELS = (
    {"rules": "arithmetic", "terms_shown": 5, "max_start": 100, "max_step": 20},
    {"rules": "arithmetic,geometric", "terms_shown": 5, "max_start": 100, "max_step": 30},
    {"rules": "arithmetic,geometric,quadratic", "terms_shown": 5, "max_start": 50, "max_step": 12, "negative": True},
    {
        "rules": "geometric,quadratic,fibonacci,alternating",
        "terms_shown": 6,
        "max_start": 50,
        "max_step": 15,
        "negative": True,
    },
    {
        "rules": "quadratic,fibonacci,interleaved,alternating",
        "terms_shown": 7,
        "max_start": 100,
        "max_step": 20,
        "negative": True,
    },
    {
        "rules": "fibonacci,interleaved,alternating,cubic",
        "terms_shown": 7,
        "max_start": 200,
        "max_step": 30,
        "negative": True,
    },
)


def _signed(rng: random.Random, bound: int, negative: bool) -> int:
    value = rng.randint(1, bound)
    return -value if negative and rng.random() < 0.4 else value


def _terms(rule: str, config: Config, rng: random.Random, count: int) -> list[int]:
    start = rng.randint(-config.max_start if config.negative else 0, config.max_start)
    step = config.max_step
    if rule == "arithmetic":
        d = _signed(rng, step, config.negative)
        return [start + d * n for n in range(count)]
    if rule == "geometric":
        ratio = rng.randint(2, 4) * (-1 if config.negative and rng.random() < 0.3 else 1)
        first = rng.randint(1, max(1, config.max_start // 4)) * (1 if rng.random() < 0.7 or not config.negative else -1)
        return [first * ratio**n for n in range(count)]
    if rule == "quadratic":
        a = _signed(rng, max(1, step // 3), config.negative)
        b = rng.randint(-step, step)
        return [start + b * n + a * n * n for n in range(count)]
    if rule == "cubic":
        a = _signed(rng, 3, config.negative)
        b, c = rng.randint(-step // 2, step // 2), rng.randint(-step, step)
        return [start + c * n + b * n * n + a * n**3 for n in range(count)]
    if rule == "fibonacci":
        values = [rng.randint(1, max(1, config.max_start // 2)), rng.randint(1, max(1, config.max_start // 2))]
        while len(values) < count:
            values.append(values[-1] + values[-2])
        return values[:count]
    if rule == "interleaved":
        d1, d2 = _signed(rng, step, config.negative), _signed(rng, step, config.negative)
        s2 = rng.randint(0, config.max_start)
        return [start + d1 * (n // 2) if n % 2 == 0 else s2 + d2 * (n // 2) for n in range(count)]
    add, times = _signed(rng, step, config.negative), rng.randint(2, 3)
    values = [start]
    while len(values) < count:
        values.append(values[-1] + add if len(values) % 2 else values[-1] * times)
    return values


def generate(config: Config, rng: random.Random) -> Problem:
    rule = rng.choice(config.rules.split(","))
    values = _terms(rule, config, rng, config.terms_shown + 1)
    shown = ", ".join(str(v) for v in values[:-1])
    question = f"What is the next term of the sequence {shown}, ...? Give a single integer."
    return Problem(question, str(values[-1]), {"rule": rule})


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:number_sequence",
    description="Next term of arithmetic, geometric, polynomial, Fibonacci-like and mixed sequences.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
)
