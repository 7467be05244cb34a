"""Total number of legs of a collection of animals.

A word problem listing how many of each animal there are; the solver must know each
animal's leg count (the question never states it) and add up the products. Only animals
whose leg count is not in doubt are used. Harder levels list more kinds of animal and
larger herds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "leg_counting"

ANIMALS: tuple[tuple[str, str, int], ...] = (
    ("chicken", "chickens", 2),
    ("duck", "ducks", 2),
    ("goose", "geese", 2),
    ("parrot", "parrots", 2),
    ("penguin", "penguins", 2),
    ("ostrich", "ostriches", 2),
    ("flamingo", "flamingos", 2),
    ("owl", "owls", 2),
    ("dog", "dogs", 4),
    ("cat", "cats", 4),
    ("horse", "horses", 4),
    ("cow", "cows", 4),
    ("sheep", "sheep", 4),
    ("goat", "goats", 4),
    ("pig", "pigs", 4),
    ("zebra", "zebras", 4),
    ("giraffe", "giraffes", 4),
    ("elephant", "elephants", 4),
    ("lion", "lions", 4),
    ("tiger", "tigers", 4),
    ("deer", "deer", 4),
    ("frog", "frogs", 4),
    ("crocodile", "crocodiles", 4),
    ("ant", "ants", 6),
    ("bee", "bees", 6),
    ("beetle", "beetles", 6),
    ("butterfly", "butterflies", 6),
    ("grasshopper", "grasshoppers", 6),
    ("cockroach", "cockroaches", 6),
    ("ladybug", "ladybugs", 6),
    ("spider", "spiders", 8),
    ("scorpion", "scorpions", 8),
    ("tick", "ticks", 8),
    ("octopus", "octopuses", 8),
    ("crab", "crabs", 10),
    ("lobster", "lobsters", 10),
    ("shrimp", "shrimp", 10),
    ("snake", "snakes", 0),
    ("fish", "fish", 0),
    ("snail", "snails", 0),
    ("worm", "worms", 0),
    ("starfish", "starfish", 5),
)
"""(singular, plural, legs): octopus arms and starfish arms count as legs, as is usual in
these puzzles; the question says so explicitly."""


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"min_kinds": (1, 12), "max_kinds": (1, 12), "max_count": (1, 1000)}

    min_kinds: int = 2
    max_kinds: int = 3
    max_count: int = 5

    def check(self) -> None:
        if self.min_kinds > self.max_kinds:
            raise ValueError("Config.min_kinds must be <= max_kinds")


LEVELS = (
    {"min_kinds": 2, "max_kinds": 3, "max_count": 6},
    {"min_kinds": 3, "max_kinds": 4, "max_count": 8},
    {"min_kinds": 4, "max_kinds": 5, "max_count": 10},
    {"min_kinds": 5, "max_kinds": 7, "max_count": 12},
    {"min_kinds": 6, "max_kinds": 9, "max_count": 15},
    {"min_kinds": 8, "max_kinds": 12, "max_count": 20},
)


def generate(config: Config, rng: random.Random) -> Problem:
    kinds = rng.sample(ANIMALS, rng.randint(config.min_kinds, config.max_kinds))
    parts, total = [], 0
    for singular, plural, legs in kinds:
        count = rng.randint(1, config.max_count)
        parts.append(f"{count} {singular if count == 1 else plural}")
        total += count * legs
    listed = ", ".join(parts[:-1]) + f" and {parts[-1]}"
    question = (
        f"Count how many legs there are in total when you have {listed}. "
        "Each animal has its usual number of legs (an octopus's arms and a starfish's arms count as legs; "
        "snakes, fish, snails and worms have none). Give a single integer."
    )
    return Problem(question, str(total), {"animals": parts})


FAMILY = Family(
    name=NAME,
    description="Total legs of a list of animals (leg counts are world knowledge, never stated).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
    counterpart="reasoning_gym:leg_counting",
)
