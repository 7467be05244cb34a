"""polynomial_multiplication: the gold is the product (checked by evaluating the factors at
points), equivalent expanded forms score 1, and partial, stuffed or huge answers score 0."""

from __future__ import annotations

import re
import time
from fractions import Fraction

from generators.dataset import create_dataset, score
from generators.families._poly import parse_polynomial

NAME = "polynomial_multiplication"


def _value(poly: dict[int, Fraction], x: int) -> Fraction:
    return sum((c * x**p for p, c in poly.items()), Fraction(0))


def test_gold_is_the_product_at_sample_points() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=2, size=20):
            var = item["metadata"]["variable"]
            shown = item["question"].split("product ")[1].split(".\n")[0]
            factors = [parse_polynomial(f, var) for f in re.findall(r"\(([^()]*)\)", shown)]
            assert all(f is not None for f in factors)
            gold = parse_polynomial(item["answer"], var)
            assert gold is not None
            for x in (-3, -1, 2, 5):
                product = Fraction(1)
                for factor in factors:
                    product *= _value(factor, x)  # type: ignore[arg-type]
                assert _value(gold, x) == product


def test_equivalent_forms_score_one() -> None:
    item = {"answer": "6x^2 - x - 2", "metadata": {"variable": "x", "coefficients": {"0": "-2", "1": "-1", "2": "6"}}}
    for form in (
        "6x^2 - x - 2",
        "-2 - x + 6x^2",
        "6*x**2 - 1*x - 2",
        "6x² - x - 2",
        "3x^2 + 3x^2 + 3x - 4x - 2",
        "<answer>6x^2-x-2</answer>",
        "Answer: 6 x^2 - x - 2",
        "\\boxed{6x^{2} - x - 2}",
    ):
        assert score(NAME, form, item) == 1.0, form


def test_exploits_score_zero() -> None:
    item = {"answer": "6x^2 - x - 2", "metadata": {"variable": "x", "coefficients": {"0": "-2", "1": "-1", "2": "6"}}}
    for wrong in (
        "(2x + 1)(3x - 2)",  # factored, not expanded
        "6x^2 - x",  # partial
        "6x^2 + x - 2",  # sign error
        "6x^2 - x - 2, 6x^2 + x - 2",  # stuffed
        "6x^2 - x - 2 or 6x^2 + x - 2",
        "6y^2 - y - 2",  # another variable
        "6x^2 - x - 2 = 0 when x = 2/3",
        "6x^-2 - x - 2",
        "6x^2 -- x - 2",
        "6x^2 - x - 2 +",
        "x" * 1_000_000,
        "6x^2 + " * 200_000,
    ):
        assert score(NAME, wrong, item) == 0.0, wrong[:80]


def test_huge_answer_is_fast() -> None:
    item = create_dataset(NAME, level=5, seed=1, size=1)[0]
    started = time.process_time()
    for hostile in ("1x+" * 350_000, "(" * 1_000_000, "9" * 1_000_000):
        assert score(NAME, hostile, item) == 0.0
    assert time.process_time() - started < 1.0
