"""The missing interior angle of a convex polygon, given all the others.

Tests the interior-angle sum (n - 2) * 180 degrees and careful subtraction. Harder levels
have more sides (a longer sum and a larger total to remember) and, at the top, angles with
one decimal place. Every angle, the missing one included, stays strictly below 180 degrees,
so the polygon described really is convex.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
from generators.base import Family, Knobs, Problem
from generators.families._geom import score_number

NAME = "simple_geometry"

SMALLEST = 30
"""Smallest angle drawn (in degrees, before any decimals)."""


@dataclass(frozen=True)
class Config(Knobs):
    min_sides: int = 3
    max_sides: int = 4
    places: int = 0
    """Decimal places of the given angles (0: whole degrees)."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "min_sides": (3, 30),
        "max_sides": (3, 30),
        "places": (0, 2),
    }

    def check(self) -> None:
        if self.min_sides > self.max_sides:
            raise ValueError("simple_geometry: min_sides must be <= max_sides")


LEVELS: tuple[dict[str, object], ...] = (
    {"min_sides": 3, "max_sides": 4, "places": 0},
    {"min_sides": 4, "max_sides": 6, "places": 0},
    {"min_sides": 5, "max_sides": 8, "places": 0},
    {"min_sides": 6, "max_sides": 10, "places": 0},
    {"min_sides": 8, "max_sides": 12, "places": 1},
    {"min_sides": 10, "max_sides": 16, "places": 1},
)


def _angles(sides: int, unit: int, rng: random.Random) -> list[int]:
    """``sides`` angles in units of 1/unit degree, each in [SMALLEST, 180), summing right.

    Drawn through the exterior angles, which always sum to 360 degrees: a uniform random
    composition of 360 into ``sides`` positive parts, redrawn while a part is too large (an
    interior angle below SMALLEST). Spreads the angles evenly instead of pinning late ones.
    """
    whole = 360 * unit
    cap = (180 - SMALLEST) * unit
    # ``sorted(rng.sample(range(1, whole), sides - 1))`` with the sample's draws inline: its
    # selected-set branch (the population, at least 359, is always over its pool size for
    # at most 29 cuts), where a draw is repeated while out of range or already taken.
    # About ten attempts per polygon, so the sample's frames were half the family's time.
    population = whole - 1
    bits = population.bit_length()
    getrandbits = rng.getrandbits
    count = sides - 1
    top = 180 * unit
    if count in (2, 3):  # triangles and quadrilaterals, unrolled: most redraws are theirs
        for _ in range(1000):
            a = getrandbits(bits)
            while a >= population:
                a = getrandbits(bits)
            b = getrandbits(bits)
            while b >= population or b == a:
                b = getrandbits(bits)
            if a > b:
                a, b = b, a
            if count == 2:
                if a < cap and b - a <= cap and population - b <= cap:
                    return [top - a - 1, top - (b - a), top - (population - b)]
                continue
            c = getrandbits(bits)
            while c >= population or c in (a, b):
                c = getrandbits(bits)
            if c < a:
                a, b, c = c, a, b
            elif c < b:
                b, c = c, b
            if a < cap and b - a <= cap and c - b <= cap and population - c <= cap:
                return [top - a - 1, top - (b - a), top - (c - b), top - (population - c)]
        raise ValueError("simple_geometry: no angle set found")
    for _ in range(1000):
        # A list for the few cuts of a small polygon (membership by a short scan, sorted in
        # place), a set for many; the same draws either way.
        if count <= 8:
            cuts = []
            for _ in range(count):
                j = getrandbits(bits)
                while j >= population or j in cuts:
                    j = getrandbits(bits)
                cuts.append(j)
            cuts.sort()
        else:
            selected: set[int] = set()
            for _ in range(count):
                j = getrandbits(bits)
                while j >= population or j in selected:
                    j = getrandbits(bits)
                selected.add(j)
            cuts = sorted(selected)
        previous = -1
        for cut in cuts:  # a part over the cap rejects the set: no list of parts built first
            if cut - previous > cap:
                break
            previous = cut
        else:
            if population - previous <= cap:
                parts = [b - a for a, b in zip([-1, *cuts], [*cuts, population])]
                return [top - part for part in parts]
    raise ValueError("simple_geometry: no angle set found")


def _show(value: int, unit: int) -> str:
    if unit == 1:
        return str(value)
    places = len(str(unit)) - 1
    # int / int is the correctly rounded float of value/unit, as float(Fraction(value, unit)) is.
    return f"{value / unit:.{places}f}"


_SHOWN: dict[int, tuple[str, ...]] = {}
"""unit -> ``_show(v, unit)`` for every angle v in [0, 180 * unit], built on first use (at
most 18,001 strings for two places): one tuple index per listed angle instead of a format."""


def _shown(unit: int) -> tuple[str, ...]:
    table = _SHOWN.get(unit)
    if table is None:
        table = _SHOWN[unit] = tuple(_show(v, unit) for v in range(180 * unit + 1))
    return table


def generate(config: Config, rng: random.Random) -> Problem:
    sides = rng.randint(config.min_sides, config.max_sides)
    unit = 10**config.places
    angles = _angles(sides, unit, rng)
    missing = angles.pop(rng.randrange(sides))
    shown = _shown(unit)
    listed = ", ".join([shown[a] for a in angles])
    question = (
        f"A convex polygon has {sides} sides. {sides - 1} of its interior angles measure {listed} degrees. "
        "What is the measure of the remaining interior angle, in degrees? Answer with the number only "
        f"({'a whole number' if unit == 1 else 'give it exactly, as a decimal'})."
    )
    return Problem(question, shown[missing], {"sides": sides, "angles": angles})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """Exact value equality; a trailing degree sign or "degrees" is allowed."""
    try:
        return score_number(answer_text, str(item["answer"]))
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    description="Missing interior angle of a convex polygon from the other angles.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="number",
    score=score,
    counterpart="reasoning_gym:simple_geometry",
)
