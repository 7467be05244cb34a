"""polynomial_equations: the gold roots make both sides of the printed equation equal, no
other integer in range does, and partial, extra, repeated or stuffed root lists score 0."""

from __future__ import annotations

from fractions import Fraction

from generators.dataset import create_dataset, score
from generators.families._poly import parse_polynomial

NAME = "polynomial_equations"


def _value(poly: dict[int, Fraction], x: int) -> Fraction:
    return sum((c * x**p for p, c in poly.items()), Fraction(0))


def test_gold_roots_are_exactly_the_integer_solutions() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=3, size=25):
            var = item["metadata"]["variable"]
            left_text, right_text = item["metadata"]["equation"].split(" = ")
            assert item["metadata"]["equation"] in item["question"]
            left, right = parse_polynomial(left_text, var), parse_polynomial(right_text, var)
            assert left is not None and right is not None
            solutions = [x for x in range(-120, 121) if _value(left, x) == _value(right, x)]
            assert item["answer"] == ", ".join(map(str, solutions))


def test_forms_and_exploits() -> None:
    item = {"answer": "-3, 1, 4", "metadata": {"degree": 3}}
    for right in (
        "-3, 1, 4",
        "4, -3, 1",
        "x = -3, x = 1, x = 4",
        "x = -3 or x = 1 or x = 4",
        "{1, 4, -3}",
        "Answer: -3, 1, 4",
    ):
        assert score(NAME, right, item) == 1.0, right
    for wrong in (
        "-3, 1",
        "-3, 1, 4, 5",
        "-3, 1, 1, 4",
        "3, 1, 4",
        "-3, 1, 4 and more",
        "-3 1 4",
        "-3, 1, 4" * 100_000,
    ):
        assert score(NAME, wrong, item) == 0.0, wrong[:40]
