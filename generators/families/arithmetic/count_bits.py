"""How many 1 bits the binary representation of a number has (its population count).

The number is given in decimal, so the solver must convert before counting. The count is
drawn uniformly first and the bits placed at random positions, which keeps the answers
flat (a constant answer hits at most one count in ``bits``). Harder levels use wider
numbers: more digits to convert and more bits to count.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "count_bits"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"bits": (12, 128)}

    bits: int = 24
    """The number is below 2**bits; its count of 1 bits is uniform on 1..bits."""


LEVELS = (
    {"bits": 24},
    {"bits": 28},
    {"bits": 32},
    {"bits": 40},
    {"bits": 48},
    {"bits": 64},
)


def generate(config: Config, rng: random.Random) -> Problem:
    ones = rng.randint(1, config.bits)
    number = sum(1 << position for position in rng.sample(range(config.bits), ones))
    question = f"How many 1 bits are there in the binary representation of the number {number}? Give a single integer."
    return Problem(question, str(ones), {"number": str(number)})


FAMILY = Family(
    name=NAME,
    description="Population count (number of 1 bits) of a decimal number, counts drawn uniformly.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
    counterpart="reasoning_gym:count_bits",
)
