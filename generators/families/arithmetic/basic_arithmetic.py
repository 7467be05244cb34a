"""Evaluate an arithmetic expression with + - * / and parentheses, exactly.

Difficulty grows with the number of operands, their size, the operators allowed and
negative operands. Division keeps exact rational results, so answers are integers or
fractions in lowest terms and never depend on floating point.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

from generators.answers import format_number
from generators.base import Family, Knobs, Problem

NAME = "basic_arithmetic"

_OPERATORS = "+-*/"
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"terms": (2, 12), "max_operand": (2, 100_000)}

    terms: int = 2
    max_operand: int = 20
    operators: str = "+-"
    allow_negative: bool = False

    def check(self) -> None:
        if not isinstance(self.operators, str) or not self.operators:
            raise ValueError("Config.operators must be a non-empty string of + - * /")
        if any(op not in _OPERATORS for op in self.operators) or len(set(self.operators)) != len(self.operators):
            raise ValueError(f"Config.operators must be distinct characters from '+-*/', got {self.operators!r}")
        if not isinstance(self.allow_negative, bool):
            raise ValueError(f"Config.allow_negative must be a bool, got {self.allow_negative!r}")


LEVELS = (
    {"terms": 2, "max_operand": 50, "operators": "+-"},
    {"terms": 3, "max_operand": 50, "operators": "+-*"},
    {"terms": 4, "max_operand": 100, "operators": "+-*"},
    {"terms": 5, "max_operand": 100, "operators": "+-*/"},
    {"terms": 6, "max_operand": 1000, "operators": "+-*/", "allow_negative": True},
    {"terms": 8, "max_operand": 10_000, "operators": "+-*/", "allow_negative": True},
)

# A node is either an int leaf or (op, left, right).
Node = int | tuple


def _value(node: Node) -> Fraction:
    if isinstance(node, int):
        return Fraction(node)
    op, left, right = node
    a, b = _value(left), _value(right)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    return a / b


def _leaf(config: Config, rng: random.Random) -> int:
    value = rng.randint(1, config.max_operand)
    if config.allow_negative and rng.random() < 0.25:
        value = -value
    return value


def _apply(op: str, a: Fraction | int, b: Fraction | int) -> Fraction | int:
    """``a op b`` exactly, staying in ``int`` while the values are whole (a ``Fraction`` per
    node was most of the generation time)."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if type(a) is int and type(b) is int:
        quotient, rest = divmod(a, b)
        return quotient if rest == 0 else Fraction(a, b)
    return Fraction(a) / b


def _build_valued(config: Config, rng: random.Random, leaves: int) -> tuple[Node, Fraction | int]:
    """The tree and its value, computed once bottom-up (same draws as building then valuing)."""
    if leaves == 1:
        leaf = _leaf(config, rng)
        return leaf, leaf
    split = rng.randint(1, leaves - 1)
    left, a = _build_valued(config, rng, split)
    right, b = _build_valued(config, rng, leaves - split)
    op = rng.choice(config.operators)
    if op == "/" and b == 0:
        op = "+" if "+" in config.operators else config.operators[0]
        if op == "/":
            right = _leaf(config, rng) or 1
            b = right
    return (op, left, right), _apply(op, a, b)


def _render(node: Node) -> str:
    if isinstance(node, int):
        return f"({node})" if node < 0 else str(node)
    op, left, right = node
    left_text, right_text = _render(left), _render(right)
    if isinstance(left, tuple) and _PRECEDENCE[left[0]] < _PRECEDENCE[op]:
        left_text = f"({left_text})"
    if isinstance(right, tuple) and (
        _PRECEDENCE[right[0]] < _PRECEDENCE[op] or (_PRECEDENCE[right[0]] == _PRECEDENCE[op] and op in "-/")
    ):
        right_text = f"({right_text})"
    return f"{left_text} {op} {right_text}"


def generate(config: Config, rng: random.Random) -> Problem:
    tree, value = _build_valued(config, rng, config.terms)
    expression = _render(tree)
    question = (
        f"Compute the exact value of {expression}. "
        "Give an integer, or a fraction in lowest terms such as -7/3 if the result is not whole."
    )
    return Problem(question, format_number(value), {"expression": expression})


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:basic_arithmetic",
    description="Exact value of an arithmetic expression with + - * / and parentheses.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="number",
    notes="Level 0 (two operands up to 50 with + or -) has 5,000 distinct questions.",
)
