"""decimal_arithmetic: the gold equals an independent Fraction evaluation of the printed
expression; trailing zeros are fine, while rounded or nearly-equal values score 0."""

from __future__ import annotations

import ast
from fractions import Fraction

from generators.dataset import create_dataset, score

NAME = "decimal_arithmetic"


def _evaluate(node: ast.AST) -> Fraction:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant):
        return Fraction(str(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand)
    if isinstance(node, ast.BinOp):
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
    raise AssertionError(ast.dump(node))


def test_gold_matches_independent_evaluation() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=8, size=40):
            expression = item["question"].split("Calculate ")[1].split(" exactly")[0]
            # Literals like 79.750 keep their digits: read them as text, not floats.
            tree = ast.parse(expression, mode="eval")
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant):
                    node.value = repr(node.value)  # float repr is exact for these short literals
            assert Fraction(item["answer"]) == _evaluate(tree)


def test_forms_and_exploits() -> None:
    item = {"answer": "-7909.551", "metadata": {"value": "-7909551/1000"}}
    for right in ("-7909.551", "-7909.5510", "-7,909.551", "Answer: -7909.551", "-7909551/1000"):
        assert score(NAME, right, item) == 1.0, right
    for wrong in (
        "-7909.55",
        "-7909.5511",
        "7909.551",
        "-7909.551, -7909.55",
        "-7909.551 or 0",
        "-7909.551 approximately",
        "-7909.551" + "1" * 1_000_000,
    ):
        assert score(NAME, wrong, item) == 0.0, wrong[:40]
    big = {"answer": "111695.66889", "metadata": {"value": "11169566889/100000"}}
    assert score(NAME, "111695.67", big) == 0.0  # within a relative tolerance, but rounded
