"""Exact probabilities of events on fair dice.

Outcome counts come from a convolution over sums (at most 10 dice with at most 20 faces,
so at most a few thousand steps), never from enumeration; answers are fractions in lowest
terms.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

from generators.answers import format_number
from generators.base import Family, Knobs, Problem

NAME = "dice_probability"

_EVENTS = ("sum_eq", "sum_ge", "sum_le", "sum_between", "at_least_one", "all_distinct", "max_eq")
_SIDES = (4, 6, 8, 10, 12, 20)


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"min_dice": (1, 10), "max_dice": (1, 10), "max_sides": (4, 20)}

    min_dice: int = 1
    max_dice: int = 2
    max_sides: int = 6
    events: str = "sum_eq,sum_ge"

    def check(self) -> None:
        if self.min_dice > self.max_dice:
            raise ValueError(f"Config.min_dice ({self.min_dice}) exceeds max_dice ({self.max_dice})")
        events = self.events.split(",") if isinstance(self.events, str) else []
        if not events or any(e not in _EVENTS for e in events) or len(set(events)) != len(events):
            raise ValueError(f"Config.events must be distinct names from {', '.join(_EVENTS)}, got {self.events!r}")


LEVELS = (
    {"min_dice": 1, "max_dice": 2, "max_sides": 12, "events": "sum_eq,sum_ge,sum_le,sum_between"},
    {"min_dice": 2, "max_dice": 3, "max_sides": 12, "events": "sum_eq,sum_ge,sum_le,sum_between,at_least_one"},
    {"min_dice": 2, "max_dice": 3, "max_sides": 12, "events": "sum_eq,sum_between,at_least_one,all_distinct"},
    {"min_dice": 3, "max_dice": 4, "max_sides": 12, "events": "sum_eq,sum_between,all_distinct,max_eq"},
    {"min_dice": 4, "max_dice": 5, "max_sides": 20, "events": "sum_eq,sum_ge,sum_between,max_eq"},
    {"min_dice": 5, "max_dice": 8, "max_sides": 20, "events": "sum_eq,sum_between,all_distinct,max_eq"},
)


def sum_counts(dice: int, sides: int) -> list[int]:
    """``counts[s]`` = number of ordered outcomes whose faces sum to ``s``."""
    counts = [1]
    for _ in range(dice):
        nxt = [0] * (len(counts) + sides)
        for total, ways in enumerate(counts):
            if ways:
                for face in range(1, sides + 1):
                    nxt[total + face] += ways
        counts = nxt
    return counts


def generate(config: Config, rng: random.Random) -> Problem:
    sides = rng.choice([s for s in _SIDES if s <= config.max_sides])
    dice = rng.randint(config.min_dice, config.max_dice)
    event = rng.choice(config.events.split(","))
    if (event == "all_distinct" and dice > sides) or (event == "all_distinct" and dice == 1):
        event = "sum_eq"
    total = sides**dice
    low, high = dice, dice * sides
    what = f"{dice} fair {sides}-sided {'die' if dice == 1 else 'dice'} (faces 1 to {sides})"
    if event.startswith("sum"):
        counts = sum_counts(dice, sides)
        t = rng.randint(low, high)
        if event == "sum_eq":
            favourable, text = counts[t], f"the sum is exactly {t}"
        elif event == "sum_ge":
            favourable, text = sum(counts[t:]), f"the sum is at least {t}"
        elif event == "sum_le":
            favourable, text = sum(counts[: t + 1]), f"the sum is at most {t}"
        else:
            u = rng.randint(t, high)
            favourable, text = sum(counts[t : u + 1]), f"the sum is between {t} and {u} inclusive"
        if dice == 1:
            text = text.replace("the sum", "the result")
    elif event == "at_least_one":
        face = rng.randint(1, sides)
        favourable, text = total - (sides - 1) ** dice, f"at least one die shows {face}"
    elif event == "all_distinct":
        favourable, text = math.perm(sides, dice), "all dice show different numbers"
    else:
        m = rng.randint(1, sides)
        favourable, text = m**dice - (m - 1) ** dice, f"the highest number shown is exactly {m}"
    probability = Fraction(favourable, total)
    question = (
        f"Roll {what}. What is the probability that {text}? Give the exact probability as a fraction in lowest terms."
    )
    return Problem(question, format_number(probability), {"event": event, "dice": dice, "sides": sides})


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:dice",
    description="Exact probabilities of sum, maximum and distinctness events on fair dice.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="number",
    notes="Level 0 has a small item space (about 1,000 distinct questions: one or two dice).",
)
