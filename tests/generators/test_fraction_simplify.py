"""fraction_simplify: the shown expression, read with the usual precedence, has the gold as
its value in lowest terms (a sum under a product or quotient is grouped)."""

from __future__ import annotations

import ast
import operator
import re
from fractions import Fraction

import pytest

from generators.dataset import create_dataset

_TERM = re.compile(r"(\d+)/(\d+)")
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _value(node: ast.expr) -> Fraction:
    if isinstance(node, ast.BinOp):
        return Fraction(_OPS[type(node.op)](_value(node.left), _value(node.right)))
    if isinstance(node, ast.Call):  # F(p, q): one shown term
        p, q = (arg.value for arg in node.args if isinstance(arg, ast.Constant))
        return Fraction(p, q)
    raise AssertionError(f"unexpected node {ast.dump(node)}")


@pytest.mark.parametrize("level", range(6))
def test_shown_expression_evaluates_to_the_gold(level: int) -> None:
    grouped = 0
    for item in create_dataset("fraction_simplify", level=level, seed=4, size=300):
        shown = item["metadata"]["expression"]
        tree = ast.parse(_TERM.sub(r"F(\1, \2)", shown), mode="eval")
        value = _value(tree.body)
        gold = Fraction(item["answer"])
        assert value == gold and str(gold) == item["answer"]  # lowest terms
        grouped += "(" in shown
    if level >= 4:  # products and quotients after sums occur, and are grouped
        assert grouped > 20
