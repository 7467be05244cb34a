"""color_cube_rotation: the gold agrees with a 3-D simulation (each turn a rotation matrix
about the axis perpendicular to both positions), other sides' colours score 0, and the
asked colours are balanced enough that no constant pays."""

from __future__ import annotations

import re
from collections import Counter

from generators.dataset import create_dataset, score

VECTORS = {
    "top": (0, 0, 1),
    "bottom": (0, 0, -1),
    "front": (0, -1, 0),
    "back": (0, 1, 0),
    "left": (-1, 0, 0),
    "right": (1, 0, 0),
}


def cross(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, int, int]:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def rotate(v: tuple[int, ...], axis: tuple[int, ...]) -> tuple[int, ...]:
    """A quarter turn of ``v`` about the unit ``axis`` (Rodrigues with cos 0, sin 1)."""
    along = sum(x * y for x, y in zip(v, axis))
    turned = cross(axis, v)
    return tuple(along * a + t for a, t in zip(axis, turned))


def simulate(question: str) -> tuple[dict[str, str], str]:
    first = re.search(r"A cube has a (\w+) (\w+) side", question)
    colours = {first.group(2): first.group(1)}
    colours.update(dict(re.findall(r"The (\w+) side is (\w+)\.", question)))
    sides = {VECTORS[p]: c for p, c in colours.items()}
    for source, target in re.findall(r"which was at the (\w+) is now at the (\w+)", question):
        axis = cross(VECTORS[source], VECTORS[target])
        sides = {rotate(v, axis): c for v, c in sides.items()}
    asked = re.search(r"colour of the (\w+) side", question).group(1)
    return {p: sides[v] for p, v in VECTORS.items()}, asked


def test_gold_matches_a_3d_simulation() -> None:
    for level in range(6):
        for item in create_dataset("color_cube_rotation", level=level, seed=2, size=40):
            sides, asked = simulate(item["question"])
            assert sides[asked] == item["answer"]
            for position, colour in sides.items():
                if colour != item["answer"]:
                    assert score("color_cube_rotation", colour, item) == 0.0, position


def test_answer_forms_and_stuffing() -> None:
    item = create_dataset("color_cube_rotation", level=4, seed=1, size=1)[0]
    gold = item["answer"]
    sides, _ = simulate(item["question"])
    for form in (gold.upper(), f"**{gold}**", f"Answer: {gold}.", f"<answer> {gold} </answer>"):
        assert score("color_cube_rotation", form, item) == 1.0
    others = [c for c in sides.values() if c != gold]
    assert score("color_cube_rotation", ", ".join([gold, *others]), item) == 0.0
    assert score("color_cube_rotation", f"{gold} or {others[0]}", item) == 0.0
    assert score("color_cube_rotation", f"{gold} and then {others[0]}", item) == 0.0
    assert score("color_cube_rotation", gold * 300_000, item) == 0.0


def test_no_colour_dominates() -> None:
    golds = Counter(item["answer"] for item in create_dataset("color_cube_rotation", level=0, seed=3, size=400))
    assert golds.most_common(1)[0][1] / 400 < 0.1
