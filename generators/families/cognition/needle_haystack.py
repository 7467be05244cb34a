"""Find the one person a long list of facts names for an asked (attitude, activity) pair.

Tests retrieval from a long context: a "haystack" of sentences "<person> <attitude>
<activity>." hides exactly one sentence matching the question. Harder levels grow the
haystack and add near misses: the same activity with another attitude, the same attitude
with another activity, and people who share the answer's first or last name, so only the
exact sentence and the full name are right. The asked pair is made unique by redrawing any
other sentence that would also match it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "needle_haystack"


def _split(text: str) -> tuple[str, ...]:
    return tuple(text.split())


FIRST = _split(
    """Ada Alan Alma Amir Anya Arlo Asha Bela Boris Cara Cyril Dara Dev Edda Eli Emre Enzo Esme Ezra Faye
    Finn Gaia Gil Hana Hugo Ida Igor Ines Ivo Jada Joel Juno Kai Kira Lars Lena Leon Lila Luca Mara Milo
    Nadia Nico Nina Noor Omar Otto Paz Pia Quinn Rafa Remy Rosa Ruth Sami Sara Teo Tove Uma Vera Wren Yara
    Yuri Zane Zoe"""
)
LAST = _split(
    """Abbott Acosta Bauer Becker Brandt Castro Costa Dalton Diaz Dunn Ellis Engel Falk Fischer Garcia Greer
    Hahn Holm Ibsen Ito Jansen Kato Keller Klein Lange Lopez Marsh Meyer Moreno Nagy Novak Ortiz Park Petit
    Quist Reyes Rossi Sato Silva Stone Tanaka Torres Ueda Vance Varga Weber Wolfe Young Zeller Ziegler"""
)
ATTITUDES = (
    "loves",
    "enjoys",
    "dislikes",
    "is bored by",
    "is curious about",
    "is passionate about",
    "avoids",
    "is obsessed with",
)
ACTIVITIES = _split(
    """archery baking ballet birdwatching bowling calligraphy camping canoeing chess climbing cooking
    cycling dancing darts diving embroidery fencing fishing gardening golf hiking juggling karate
    kayaking knitting origami painting photography poetry pottery rowing running sailing sculpting
    singing skating skiing snowboarding surfing swimming tennis volleyball woodworking yoga"""
)


@dataclass(frozen=True)
class Config(Knobs):
    sentences: int = 15
    near_misses: float = 0.0
    """Share of sentences drawn as near misses of the needle rather than at random."""

    RANGES: ClassVar = {"sentences": (3, 2000), "near_misses": (0.0, 0.9)}


LEVELS = (
    {"sentences": 15, "near_misses": 0.0},
    {"sentences": 40, "near_misses": 0.1},
    {"sentences": 80, "near_misses": 0.2},
    {"sentences": 150, "near_misses": 0.3},
    {"sentences": 200, "near_misses": 0.4},
    {"sentences": 300, "near_misses": 0.5},
)


def generate(config: Config, rng: random.Random) -> Problem:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    needle = (f"{first} {last}", rng.choice(ATTITUDES), rng.choice(ACTIVITIES))
    n = config.sentences - 1
    # Draws in bulk (one ``choices`` call per column): a call per sentence was the slow part.
    firsts, lasts = rng.choices(FIRST, k=n), rng.choices(LAST, k=n)
    attitudes, activities = rng.choices(ATTITUDES, k=n), rng.choices(ACTIVITIES, k=n)
    share = config.near_misses / 4
    # Kinds 0-3 are near misses sharing part of the needle; kind 4 is a random sentence.
    kinds = rng.choices(range(5), cum_weights=(share, 2 * share, 3 * share, 4 * share, 1.0), k=n)
    facts = []
    for kind, fn, ln, attitude, activity in zip(kinds, firsts, lasts, attitudes, activities, strict=True):
        if kind == 0:
            activity = needle[2]
        elif kind == 1:
            attitude = needle[1]
        elif kind == 2:
            fn, attitude = first, needle[1]
        elif kind == 3:
            ln, activity = last, needle[2]
        if attitude == needle[1] and activity == needle[2]:  # only the needle may answer the question
            attitude = ATTITUDES[(ATTITUDES.index(attitude) + 1) % len(ATTITUDES)]
        facts.append(f"{fn} {ln} {attitude} {activity}.")
    facts.insert(rng.randint(0, len(facts)), f"{needle[0]} {needle[1]} {needle[2]}.")
    text = "\n".join(facts)
    question = (
        f"Read the following sentences.\n\n{text}\n\n"
        f"Who {needle[1]} {needle[2]}? Answer with the person's full name (first and last name) only."
    )
    return Problem(question, needle[0], {"sentences": len(facts)})


FAMILY = Family(
    name=NAME,
    description="Find the one person a long list of sentences names for an asked attitude and activity.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="text",
    counterpart="reasoning_gym:needle_haystack",
)
