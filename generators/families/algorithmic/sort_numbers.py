"""Sort a list of numbers.

Tests careful, exhaustive bookkeeping over a list: every number must appear exactly once
in the answer, in order. Harder levels lengthen the list, widen the magnitudes, mix in
negative numbers, decimals and duplicates (which must be kept, not collapsed), and ask
for descending order, each of which breaks a different shortcut.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "sort_numbers"

_ORDERS = ("ascending", "descending", "either")


@dataclass(frozen=True)
class Config(Knobs):
    count: int = 6
    max_abs: int = 50
    negatives: bool = False
    decimals: int = 0
    """Digits after the decimal point (0 = integers only)."""
    duplicates: bool = False
    """Force at least one repeated value, which must appear as often as in the input."""
    order: str = "ascending"
    """``ascending``, ``descending`` or ``either`` (drawn per item)."""

    RANGES: ClassVar = {"count": (2, 60), "max_abs": (5, 1_000_000), "decimals": (0, 3)}

    def check(self) -> None:
        if self.order not in _ORDERS:
            raise ValueError(f"order must be one of {_ORDERS}, got {self.order!r}")
        if not self.duplicates and self.decimals == 0:
            span = self.max_abs * (2 if self.negatives else 1) + 1
            if span < self.count:
                raise ValueError("max_abs is too small to draw count distinct integers")


LEVELS = (
    {"count": 5, "max_abs": 20},
    {"count": 8, "max_abs": 100, "order": "either"},
    {"count": 12, "max_abs": 1000, "negatives": True, "order": "either"},
    {"count": 18, "max_abs": 1000, "negatives": True, "duplicates": True, "order": "either"},
    {"count": 25, "max_abs": 10_000, "negatives": True, "decimals": 1, "duplicates": True, "order": "either"},
    {"count": 40, "max_abs": 100_000, "negatives": True, "decimals": 2, "duplicates": True, "order": "either"},
)


def _format(units: int, decimals: int) -> str:
    """Exact decimal text for ``units / 10**decimals`` (no float rounding)."""
    if decimals == 0:
        return str(units)
    sign = "-" if units < 0 else ""
    whole, frac = divmod(abs(units), 10**decimals)
    return f"{sign}{whole}.{frac:0{decimals}d}"


def generate(config: Config, rng: random.Random) -> Problem:
    scale = 10**config.decimals
    high = config.max_abs * scale
    low = -high if config.negatives else 0
    values = [rng.randint(low, high) for _ in range(config.count)]
    if config.duplicates:
        # Copy one drawn value over another position so a repeat always exists.
        i, j = rng.sample(range(config.count), 2)
        values[j] = values[i]
    elif config.decimals == 0:
        values = rng.sample(range(low, high + 1), config.count)
    order = config.order if config.order != "either" else rng.choice(("ascending", "descending"))
    ordered = sorted(values, reverse=order == "descending")
    shown = ", ".join(_format(v, config.decimals) for v in values)
    question = (
        f"Sort the following {config.count} numbers in {order} order: {shown}.\n"
        "Keep repeated numbers as many times as they appear and write each number exactly as "
        "given. Answer with the sorted numbers as a comma-separated list."
    )
    answer = ", ".join(_format(v, config.decimals) for v in ordered)
    return Problem(question=question, answer=answer, extra={"order": order})


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:number_sorting",
    description="Sort a list of integers or decimals ascending or descending.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
    notes="Numbers are printed with a fixed number of decimals so the gold text is exact.",
)
