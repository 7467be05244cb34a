"""How many 1 bits the binary representation of a number has (its population count).

The number is given in decimal, so the solver must convert before counting. The count is
drawn uniformly first and the bits placed at random positions, which keeps the answers
flat (a constant answer hits at most one count in ``bits``). Harder levels use wider
numbers: more digits to convert and more bits to count.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from math import ceil, log
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


@cache
def _pool_limit(k: int) -> int:
    """The largest population ``random.Random.sample`` draws ``k`` from by its pool branch."""
    return 21 + (4 ** ceil(log(k * 3, 4)) if k > 5 else 0)


def generate(config: Config, rng: random.Random) -> Problem:
    bits = config.bits
    ones = rng.randint(1, bits)
    # ``sum(1 << p for p in rng.sample(range(bits), ones))`` with the sample's draws inline,
    # in whichever of its two branches ``random.Random.sample`` takes for these sizes.
    getrandbits = rng.getrandbits
    number = 0
    if bits <= _pool_limit(ones):
        pool = list(range(bits))
        for m in range(bits, bits - ones, -1):
            width = m.bit_length()
            j = getrandbits(width)
            while j >= m:
                j = getrandbits(width)
            number |= 1 << pool[j]
            pool[j] = pool[m - 1]
    else:  # the selected-set branch: the number's own bits are the set
        width = bits.bit_length()
        for _ in range(ones):
            j = getrandbits(width)
            while j >= bits or number >> j & 1:
                j = getrandbits(width)
            number |= 1 << j
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
