"""simple_integration: any antiderivative scores 1 (with or without a constant, fractions
written either way), while the integrand, a wrong power or a stuffed list scores 0."""

from __future__ import annotations

import time

from generators.dataset import create_dataset, score
from generators.families._poly import differentiate, parse_polynomial

NAME = "simple_integration"
ITEM = {
    "answer": "(7/4)x^4 - x^2 + 3x + C",
    "metadata": {"variable": "x", "integrand": {"3": "7", "1": "-2", "0": "3"}},
}


def test_gold_differentiates_to_the_question_integrand() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=5, size=25):
            var = item["metadata"]["variable"]
            shown = item["question"].split("integral of ")[1].split(" with respect")[0]
            gold = parse_polynomial(item["answer"], var, drop=("C",))
            assert gold is not None and differentiate(gold) == parse_polynomial(shown, var)


def test_any_antiderivative_form_scores_one() -> None:
    for form in (
        "(7/4)x^4 - x^2 + 3x + C",
        "(7/4)x^4 - x^2 + 3x",
        "7x^4/4 - x^2 + 3x + K",
        "1.75x^4 - x^2 + 3x + 12",
        "3x - x**2 + 7/4*x^4 + C",
        "\\frac{7}{4}x^{4} - x^{2} + 3x + C",
        "<answer>(7/4)x^4 - x^2 + 3x + C</answer>",
    ):
        assert score(NAME, form, ITEM) == 1.0, form


def test_exploits_score_zero() -> None:
    for wrong in (
        "7x^3 - 2x + 3",  # the integrand itself
        "21x^2 - 2",  # its derivative
        "7x^4 - 2x^2 + 3x + C",  # forgot to divide by the new power
        "(7/4)x^4 - x^2 + C",  # partial
        "(7/4)x^4 - x^2 + 3x + C, 7x^4 - x^2 + 3x",  # stuffed
        "(7/4)x^4 - x^2 + 3x + C or 0",
        "C",
        "(7/4)x^4 - x^2 + 3x + C dx",
        "(7/4)x^4 - x^2 + 3x + Cx",
        "x" * 1_000_000,
    ):
        assert score(NAME, wrong, ITEM) == 0.0, wrong[:80]


def test_huge_answer_is_fast() -> None:
    started = time.process_time()
    for hostile in ("x+" * 500_000, "C+" * 500_000, "(" * 1_000_000):
        assert score(NAME, hostile, ITEM) == 0.0
    assert time.process_time() - started < 1.0
