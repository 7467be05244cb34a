"""simple_geometry: the angles (missing one included) sum to (n - 2) * 180 and are all
convex, units are forgiven, and wrong or stuffed answers score 0."""

from __future__ import annotations

import random
import re
import time
from fractions import Fraction

from generators.dataset import create_dataset, score
from generators.families.geometry import simple_geometry


def test_angles_close_and_stay_convex() -> None:
    for level in range(6):
        for item in create_dataset("simple_geometry", level=level, seed=5, size=20):
            sides = item["metadata"]["sides"]
            match = re.search(r"measure (.+) degrees\.", item["question"])
            assert match is not None
            listed = match.group(1).split(", ")
            angles = [Fraction(a) for a in listed] + [Fraction(item["answer"])]
            assert len(angles) == sides
            assert sum(angles) == (sides - 2) * 180
            assert all(30 <= a < 180 for a in angles)


def test_forms_and_exploits() -> None:
    item = create_dataset("simple_geometry", level=2, seed=1, size=1)[0]
    gold = item["answer"]
    sides = item["metadata"]["sides"]
    for form in (f"{gold}°", f"{gold} degrees", f"Answer: {gold}", f"{gold}.0"):
        assert score("simple_geometry", form, item) == 1.0, form
    for wrong in (
        str((sides - 2) * 180),
        str(int(gold) + 1),
        f"{gold}, {int(gold) + 1}",
        f"{gold} or 90",
        f"{gold} radians",
    ):
        assert score("simple_geometry", wrong, item) == 0.0, wrong


def test_huge_answers_score_zero() -> None:
    item = create_dataset("simple_geometry", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    assert score("simple_geometry", item["answer"] + "°" * 1_048_576, item) == 0.0
    assert time.perf_counter() - started < 1.0


def _reference_angles(sides: int, unit: int, rng: random.Random) -> list[int]:
    """The plain form of ``_angles``: sorted cuts from ``rng.sample``, parts, rejection."""
    whole, cap = 360 * unit, 150 * unit
    for _ in range(1000):
        cuts = sorted(rng.sample(range(1, whole), sides - 1))
        parts = [b - a for a, b in zip([0, *cuts], [*cuts, whole])]
        if max(parts) <= cap:
            return [180 * unit - part for part in parts]
    raise ValueError("no angle set found")


def test_inline_angle_draws_equal_the_sample_reference() -> None:
    """Every branch of ``_angles`` (two cuts, three, a short list, a set) gives the angles and
    leaves the generator in the state that ``Random.sample`` and ``sorted`` would."""
    for sides in (3, 4, 5, 9, 10, 16, 30):
        for unit in (1, 10, 100):
            ours, theirs = random.Random(sides * unit), random.Random(sides * unit)
            for _ in range(400 if sides < 10 else 40):
                assert simple_geometry._angles(sides, unit, ours) == _reference_angles(sides, unit, theirs)
            assert ours.getstate() == theirs.getstate()
    assert simple_geometry._shown(10)[1795] == "179.5" and simple_geometry._shown(100)[3001] == "30.01"
