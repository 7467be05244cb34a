"""Alice in Wonderland problems: counting siblings, friends and relatives from the other side.

Tests the perspective switch that the "Alice has N brothers and M sisters; how many sisters
does Alice's brother have?" question is known for (the answer counts Alice herself: M + 1).
Harder levels add more relations (all siblings, the parents' children and daughters, a
closed circle of friends, nephews and nieces through a second generation), male
protagonists (so the person counted in is a brother, not a sister) and distracting facts
(cousins, pets) that must be ignored. Counts are drawn from a wide range so that no
constant answer pays. The answer is one integer.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "aiw"

_FEMALE = ("Alice", "Maria", "Sofia", "Emma", "Aisha", "Mei", "Olga", "Priya", "Lucia", "Hana")
_MALE = ("Bob", "James", "Omar", "Luca", "Ken", "Ivan", "Raj", "Tom", "Diego", "Felix")
_TEMPLATES = (
    "sisters_of_brother",
    "brothers_of_sister",
    "parents_daughters",
    "siblings_of_brother",
    "parents_children",
    "friends",
    "nephews",
    "nieces_of_brother",
)


@dataclass(frozen=True)
class Config(Knobs):
    templates: int = 2
    """How many question templates (in the order of ``_TEMPLATES``) can be drawn."""
    max_count: int = 12
    male_rate: float = 0.0
    """Chance that the protagonist is male."""
    distractors: int = 0

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "templates": (1, len(_TEMPLATES)),
        "max_count": (3, 50),
        "male_rate": (0.0, 0.5),
        "distractors": (0, 3),
    }


LEVELS = (
    {"templates": 2, "max_count": 25, "male_rate": 0.0, "distractors": 0},
    {"templates": 3, "max_count": 25, "male_rate": 0.2, "distractors": 0},
    {"templates": 5, "max_count": 25, "male_rate": 0.3, "distractors": 1},
    {"templates": 6, "max_count": 26, "male_rate": 0.4, "distractors": 1},
    {"templates": 8, "max_count": 28, "male_rate": 0.5, "distractors": 2},
    {"templates": 8, "max_count": 30, "male_rate": 0.5, "distractors": 3},
)


def _distractors(name: str, pronoun: str, count: int, config: Config, rng: random.Random) -> list[str]:
    facts = [
        f"{name} also has {rng.randint(2, config.max_count)} cousins.",
        f"{pronoun} owns {rng.randint(2, 9)} pets.",
        f"{name}'s best friend has {rng.randint(1, config.max_count)} siblings.",
        f"{pronoun} has visited {rng.randint(2, 30)} countries.",
    ]
    return rng.sample(facts, count)


def generate(config: Config, rng: random.Random) -> Problem:
    template = rng.choice(_TEMPLATES[: config.templates])
    male = rng.random() < config.male_rate
    name = rng.choice(_MALE if male else _FEMALE)
    pronoun, self_female, self_male = ("He", 0, 1) if male else ("She", 1, 0)
    top = config.max_count
    b, s = rng.randint(1, top), rng.randint(1, top)
    family = f"{name} has {b} brothers and {s} sisters."
    if template == "sisters_of_brother":
        facts, ask, answer = [family], f"How many sisters does {name}'s brother have?", s + self_female
    elif template == "brothers_of_sister":
        facts, ask, answer = [family], f"How many brothers does {name}'s sister have?", b + self_male
    elif template == "parents_daughters":
        facts, ask, answer = [family], f"How many daughters do {name}'s parents have?", s + self_female
    elif template == "siblings_of_brother":
        facts, ask, answer = [family], f"How many siblings does {name}'s brother have?", b + s
    elif template == "parents_children":
        facts, ask, answer = [family], f"How many children do {name}'s parents have?", b + s + 1
    elif template == "friends":
        x, y = rng.randint(1, top), rng.randint(1, top)
        facts = [
            f"{name} has {x} male friends and {y} female friends. They are all friends with each other "
            "and have no other friends."
        ]
        if rng.random() < 0.5:
            ask, answer = f"How many female friends does one of {name}'s male friends have?", y + self_female
        else:
            ask, answer = f"How many male friends does one of {name}'s female friends have?", x + self_male
    else:
        b = max(b, 2)
        sons, daughters = rng.randint(1, 6), rng.randint(1, 6)
        facts = [
            f"{name} has {b} brothers and {s} sisters, and no children.",
            f"Each of {name}'s brothers has {sons} sons and {daughters} daughters; the sisters have no children.",
        ]
        if template == "nephews":
            ask, answer = f"How many nephews does {name} have?", b * sons
        else:
            ask, answer = f"How many nieces does one of {name}'s brothers have?", (b - 1) * daughters
    facts += _distractors(name, pronoun, config.distractors, config, rng)
    head, rest = facts[0], facts[1:]
    rng.shuffle(rest)
    question = " ".join([head, *rest, ask]) + " Answer with one integer."
    return Problem(question, str(answer), {"template": template, "male": male})


FAMILY = Family(
    name=NAME,
    description="Alice-in-Wonderland counting: siblings, friends and relatives seen from another person.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
    counterpart="reasoning_gym:aiw",
)
