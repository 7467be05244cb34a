"""Convert an integer between bases 2..36 (digits 0-9 then a-z).

Early levels stay within the common bases 2, 8, 10 and 16; later levels use any base and
much larger values. Digit case does not matter when scoring (``text`` kind).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "base_conversion"

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_COMMON = (2, 8, 10, 16)


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"max_value": (2, 10**30), "min_base": (2, 36), "max_base": (2, 36)}

    max_value: int = 255
    min_base: int = 2
    max_base: int = 16
    common_bases_only: bool = True

    def check(self) -> None:
        if self.min_base > self.max_base:
            raise ValueError(f"Config.min_base ({self.min_base}) exceeds max_base ({self.max_base})")
        if not isinstance(self.common_bases_only, bool):
            raise ValueError(f"Config.common_bases_only must be a bool, got {self.common_bases_only!r}")
        if len(self._bases()) < 2:
            raise ValueError("Config needs at least two bases to convert between")

    def _bases(self) -> list[int]:
        pool = _COMMON if self.common_bases_only else range(2, 37)
        return [b for b in pool if self.min_base <= b <= self.max_base]


LEVELS = (
    {"max_value": 255, "common_bases_only": True},
    {"max_value": 4095, "common_bases_only": True},
    {"max_value": 100_000, "max_base": 16, "common_bases_only": False},
    {"max_value": 10**6, "max_base": 36, "common_bases_only": False},
    {"max_value": 10**9, "max_base": 36, "common_bases_only": False},
    {"max_value": 10**15, "max_base": 36, "common_bases_only": False},
)


_FORMATS = {2: "b", 8: "o", 16: "x"}


@cache
def _pairs(base: int) -> tuple[str, ...]:
    """Every two-digit string of ``base``, indexed by value: half the divmods of a digit loop."""
    return tuple(_DIGITS[high] + _DIGITS[low] for high in range(base) for low in range(base))


def to_base(value: int, base: int) -> str:
    if value == 0:
        return "0"
    if base == 10:
        return str(value)
    if base in _FORMATS:
        return format(value, _FORMATS[base])
    pairs, square = _pairs(base), base * base
    chunks = []
    while value >= square:
        value, rest = divmod(value, square)
        chunks.append(pairs[rest])
    head = pairs[value].lstrip("0") if value >= base else _DIGITS[value]
    chunks.append(head)
    return "".join(reversed(chunks))


@cache
def _bases(config: Config) -> tuple[int, ...]:
    return tuple(config._bases())


_last: tuple[object, tuple[int, ...]] = (None, ())
"""The last config seen and its bases, replaced as one tuple: a family draws many items
from one config, and this identity check is cheaper than hashing the config for the cache."""


def generate(config: Config, rng: random.Random) -> Problem:
    global _last
    last = _last
    if last[0] is config:
        bases = last[1]
    else:
        bases = _bases(config)
        _last = (config, bases)
    # ``rng.sample(bases, 2)`` and ``rng.randint(1, max_value)`` with their draws inline (the
    # same getrandbits calls): the sample's pool branch for at most 21 bases, its
    # selected-set branch (a second draw equal to the first is redrawn) for more.
    getrandbits = rng.getrandbits
    n = len(bases)
    bits = n.bit_length()
    j = getrandbits(bits)
    while j >= n:
        j = getrandbits(bits)
    if n > 21:
        k = getrandbits(bits)
        while k >= n or k == j:
            k = getrandbits(bits)
        source, target = bases[j], bases[k]
    else:
        source = bases[j]
        m = n - 1
        bits = m.bit_length()
        k = getrandbits(bits)
        while k >= m:
            k = getrandbits(bits)
        target = bases[n - 1] if k == j else bases[k]
    span = config.max_value
    bits = span.bit_length()
    r = getrandbits(bits)
    while r >= span:
        r = getrandbits(bits)
    value = 1 + r
    shown = to_base(value, source)
    question = (
        f"Convert the base-{source} number {shown} to base {target}. "
        "Use digits 0-9 then letters a-z for digits above 9, with no prefix."
    )
    return Problem(question, to_base(value, target), {"value": value, "source_base": source, "target_base": target})


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:base_conversion",
    description="Convert integers between bases 2..36.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="text",
)
