"""polygon_area: the gold equals an area summed column by column (not by the shoelace
formula), the drawn ring is a real polygon, equivalent forms score 1 and exploits 0."""

from __future__ import annotations

import time
from fractions import Fraction

from generators.dataset import create_dataset, score
from generators.families._geom import cross


def _column_area(ring: list[list[int]]) -> Fraction:
    """Area as sum over unit columns of exact vertical slice lengths (trapezoids of the ring)."""
    xs = [p[0] for p in ring]
    total = Fraction(0)
    n = len(ring)
    for x in range(min(xs), max(xs)):
        mid = Fraction(2 * x + 1, 2)
        crossings = sorted(
            Fraction(y1) + (mid - x1) * Fraction(y2 - y1, x2 - x1)
            for (x1, y1), (x2, y2) in ((ring[i], ring[(i + 1) % n]) for i in range(n))
            if (x1 < mid) != (x2 < mid)
        )
        # the slice at the column centre times 1 equals the column's area (edges are straight)
        total += sum(crossings[k + 1] - crossings[k] for k in range(0, len(crossings), 2))
    return total


def test_gold_is_the_area_and_the_ring_is_simple() -> None:
    for level in range(6):
        for item in create_dataset("polygon_area", level=level, seed=4, size=12):
            ring = item["metadata"]["vertices"]
            assert Fraction(item["answer"]) == _column_area(ring)
            n = len(ring)
            assert all(cross(ring[i - 1], ring[i], ring[(i + 1) % n]) != 0 for i in range(n))
            assert score("polygon_area", item["answer"], item) == 1.0


def test_equivalent_forms_score_one() -> None:
    halves = [
        item for item in create_dataset("polygon_area", level=3, seed=2, size=40) if item["answer"].endswith(".5")
    ]
    item = halves[0]
    value = Fraction(item["answer"])
    for form in (
        f"{value.numerator}/{value.denominator}",
        item["answer"] + "0",
        f"Answer: {item['answer']} square units",
    ):
        assert score("polygon_area", form, item) == 1.0, form


def test_exploits_score_zero() -> None:
    item = create_dataset("polygon_area", level=4, seed=9, size=1)[0]
    value = Fraction(item["answer"])
    signed = str(-value)
    for wrong in (
        str(value + Fraction(1, 2)),
        str(2 * value),  # the shoelace sum without the halving
        signed,
        f"{item['answer']}, {value + 1}",
        f"{item['answer']} or {value + 1}",
        f"{item['answer']} + 1",
        item["answer"] * 2,
    ):
        assert score("polygon_area", wrong, item) == 0.0, wrong


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("polygon_area", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("1" * 1_048_576, item["answer"] + " " * 1_048_576 + "x", "(" * 1_048_576):
        assert score("polygon_area", hostile, item) == 0.0
    assert time.perf_counter() - started < 1.5  # three 1 MiB answers, extraction included
