"""How many 1 bits the binary representation of a number has (its population count).

The number is given in decimal, so the solver must convert before counting. The count is
drawn uniformly first and the bits placed at random positions, which keeps the answers
flat (a constant answer hits at most one count in ``bits``). Harder levels use wider
numbers: more digits to convert and more bits to count.
"""

from __future__ import annotations

import random
from collections.abc import Callable
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


def _subset(getrandbits: Callable[[int], int], bits: int, size: int) -> int:
    """A uniformly random ``size``-subset of ``range(bits)`` as a bit mask, ``size <= bits // 2``.

    Small subsets are drawn position by position (rejecting taken ones); larger ones start
    from i.i.d. random bits of about the right density (1/4, 3/8 or 1/2, from two or three
    ``getrandbits``) and add or remove random positions until ``size`` are set. Every step
    treats the positions alike (the starting bits are exchangeable; an added or removed
    position is uniform among those that qualify), so the mask's distribution is invariant
    under permuting positions, which for masks of one size means uniform; the few
    corrections cost far fewer draws than one draw per position.
    """
    width = bits.bit_length()
    eighths = (8 * size + bits // 2) // bits
    if eighths < 2:
        mask = 0
        count = 0
    else:
        mask = getrandbits(bits)
        if eighths == 2:
            mask &= getrandbits(bits)
        elif eighths == 3:
            mask &= getrandbits(bits) | getrandbits(bits)
        count = mask.bit_count()
    while count < size:
        j = getrandbits(width)
        if j < bits and not mask >> j & 1:
            mask |= 1 << j
            count += 1
    while count > size:
        j = getrandbits(width)
        if j < bits and mask >> j & 1:
            mask ^= 1 << j
            count -= 1
    return mask


def generate(config: Config, rng: random.Random) -> Problem:
    bits = config.bits
    getrandbits = rng.getrandbits
    # ``rng.randint(1, bits)`` with its draws inline
    width = bits.bit_length()
    r = getrandbits(width)
    while r >= bits:
        r = getrandbits(width)
    ones = 1 + r
    if 2 * ones <= bits:
        number = _subset(getrandbits, bits, ones)
    else:  # the complement of a uniform (bits - ones)-subset is a uniform ones-subset
        number = _subset(getrandbits, bits, bits - ones) ^ ((1 << bits) - 1)
    text = str(number)  # once: the question and the metadata hold the same decimal
    question = f"How many 1 bits are there in the binary representation of the number {text}? Give a single integer."
    return Problem(question, str(ones), {"number": text})


FAMILY = Family(
    name=NAME,
    description="Population count (number of 1 bits) of a decimal number, counts drawn uniformly.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
    counterpart="reasoning_gym:count_bits",
)
