"""complex_arithmetic: the gold equals the printed expression evaluated independently with
Python complex numbers, every way of writing a + bi scores 1, and near misses score 0."""

from __future__ import annotations

import re
import time

from generators.dataset import create_dataset, score

NAME = "complex_arithmetic"


def _evaluate(expr: str) -> complex:
    """A small recursive-descent evaluator over Python complex (independent of the family)."""
    tokens = re.findall(r"\d+i|\d+|i|[-+*/()]", expr)
    pos = 0

    def atom() -> complex:
        nonlocal pos
        token = tokens[pos]
        pos += 1
        if token == "(":
            value = expression()
            pos += 1
            return value
        if token == "-":
            return -atom()
        if token.endswith("i"):
            return complex(0, int(token[:-1] or 1))
        return complex(int(token), 0)

    def term() -> complex:
        nonlocal pos
        value = atom()
        while pos < len(tokens) and tokens[pos] in "*/":
            op = tokens[pos]
            pos += 1
            other = atom()
            value = value * other if op == "*" else value / other
        return value

    def expression() -> complex:
        nonlocal pos
        value = term()
        while pos < len(tokens) and tokens[pos] in "+-":
            op = tokens[pos]
            pos += 1
            other = term()
            value = value + other if op == "+" else value - other
        return value

    return expression()


def test_gold_matches_independent_evaluation() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=9, size=60):
            expr = item["question"].split("Compute ")[1].split(", where")[0]
            value = _evaluate(expr)
            meta = item["metadata"]
            assert abs(value.real - meta["real"]) < 1e-6 and abs(value.imag - meta["imag"]) < 1e-6, expr


def test_forms_score_one() -> None:
    item = {"answer": "3 - 4i", "metadata": {"real": 3, "imag": -4}}
    for form in (
        "3 - 4i",
        "3-4i",
        "-4i + 3",
        "3 - 4*i",
        "3 - 4j",
        "(3 - 4i)",
        "Answer: 3 - 4i",
        "<answer>3-4i</answer>",
    ):
        assert score(NAME, form, item) == 1.0, form
    pure = {"answer": "-i", "metadata": {"real": 0, "imag": -1}}
    for form in ("-i", "0 - i", "-1i", "0 - 1i"):
        assert score(NAME, form, pure) == 1.0, form


def test_exploits_score_zero() -> None:
    item = {"answer": "3 - 4i", "metadata": {"real": 3, "imag": -4}}
    for wrong in (
        "3 + 4i",  # conjugate
        "3",  # real part only
        "-4i",
        "3 - 4i, 3 + 4i",
        "3 - 4i or 3 + 4i",
        "3 - 4i^2",
        "(3, -4)",
        "3 - 4i - 5",
        "3 - 4x",
        "i" * 1_000_000,
    ):
        assert score(NAME, wrong, item) == 0.0, wrong[:60]


def test_huge_answer_is_fast() -> None:
    item = {"answer": "3 - 4i", "metadata": {"real": 3, "imag": -4}}
    started = time.process_time()
    for hostile in ("1+" * 500_000, "3 - 4i " * 150_000):
        assert score(NAME, hostile, item) == 0.0
    assert time.process_time() - started < 1.0
