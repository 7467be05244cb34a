"""Track the colours of a cube's six sides through a sequence of rotations.

Tests mental rotation: each step turns the whole cube by a quarter turn that brings one
side to another position ("the side that was at the left is now at the top"). Such a
turn is unique whenever the two positions are neighbours, so a side is never sent to its
opposite (that half turn could go about two axes). Harder levels chain more turns and use
any pair of neighbouring positions instead of only moves to the top.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "color_cube_rotation"

POSITIONS = ("top", "bottom", "front", "back", "left", "right")
OPPOSITE = {"top": "bottom", "bottom": "top", "front": "back", "back": "front", "left": "right", "right": "left"}
COLOURS = (
    "red",
    "blue",
    "green",
    "yellow",
    "orange",
    "purple",
    "pink",
    "brown",
    "gray",
    "white",
    "black",
    "cyan",
    "magenta",
    "gold",
    "silver",
    "indigo",
    "teal",
    "maroon",
    "beige",
    "violet",
)


@dataclass(frozen=True)
class Config(Knobs):
    min_turns: int = 1
    max_turns: int = 1
    any_target: bool = False
    """Turns may bring a side to any neighbouring position, not only to the top."""

    RANGES: ClassVar = {"min_turns": (1, 20), "max_turns": (1, 20)}

    def check(self) -> None:
        if self.min_turns > self.max_turns:
            raise ValueError("color_cube_rotation: min_turns must be <= max_turns")


LEVELS = (
    {"min_turns": 1, "max_turns": 1},
    {"min_turns": 1, "max_turns": 2},
    {"min_turns": 2, "max_turns": 3, "any_target": True},
    {"min_turns": 3, "max_turns": 4, "any_target": True},
    {"min_turns": 4, "max_turns": 6, "any_target": True},
    {"min_turns": 6, "max_turns": 8, "any_target": True},
)


def turn(cube: dict[str, str], source: str, target: str) -> dict[str, str]:
    """The quarter turn taking the side at ``source`` to ``target`` (neighbouring positions).

    The four sides around the turning axis advance one step: source -> target ->
    opposite(source) -> opposite(target) -> source; the two on the axis stay.
    """
    if source == target or OPPOSITE[source] == target:
        raise ValueError("color_cube_rotation: a quarter turn needs neighbouring positions")
    cycle = (source, target, OPPOSITE[source], OPPOSITE[target])
    out = dict(cube)
    for here, there in zip(cycle, cycle[1:] + cycle[:1], strict=True):
        out[there] = cube[here]
    return out


def generate(config: Config, rng: random.Random) -> Problem:
    colours = rng.sample(COLOURS, 6)
    cube = dict(zip(POSITIONS, colours, strict=True))
    lines = [
        f"A cube has a {cube[p]} {p} side." if i == 0 else f"The {p} side is {cube[p]}."
        for i, p in enumerate(POSITIONS)
    ]
    steps = []
    for _ in range(rng.randint(config.min_turns, config.max_turns)):
        target = rng.choice(POSITIONS) if config.any_target else "top"
        source = rng.choice([p for p in POSITIONS if p not in (target, OPPOSITE[target])])
        cube = turn(cube, source, target)
        steps.append((source, target))
    asked = rng.choice(POSITIONS)
    described = [
        f"{'Then the' if i else 'The'} cube is rotated so that the side which was at the {s} is now at the {t}."
        for i, (s, t) in enumerate(steps)
    ]
    question = (
        " ".join(lines)
        + "\n\n"
        + "\n".join(described)
        + f"\n\nWhat is now the colour of the {asked} side of the cube? Answer with the colour only."
    )
    return Problem(question, cube[asked], {"steps": [list(step) for step in steps], "asked": asked})


FAMILY = Family(
    name=NAME,
    description="The colour of one side of a cube after a chain of quarter turns.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="text",
    counterpart="reasoning_gym:color_cube_rotation",
)
