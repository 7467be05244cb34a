"""simple_geometry: the angles (missing one included) sum to (n - 2) * 180 and are all
convex, units are forgiven, and wrong or stuffed answers score 0."""

from __future__ import annotations

import re
import time
from fractions import Fraction

from generators.dataset import create_dataset, score


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
