"""Fractions: reduce one to lowest terms, or combine several and reduce the result.

The answer must be in lowest terms (``6/8`` is refused for ``3/4``) because reducing is the
skill being trained; integers are written without a denominator.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer, parse_number
from generators.base import Family, Knobs, Problem

NAME = "fraction_simplify"

_OPERATORS = "+-*/"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"terms": (1, 8), "max_denominator": (2, 10_000), "max_factor": (2, 1000)}

    terms: int = 1
    max_denominator: int = 12
    max_factor: int = 6
    operators: str = "+"

    def check(self) -> None:
        if (
            not isinstance(self.operators, str)
            or not self.operators
            or any(op not in _OPERATORS for op in self.operators)
        ):
            raise ValueError(f"Config.operators must be a non-empty string of + - * /, got {self.operators!r}")


LEVELS = (
    {"terms": 1, "max_denominator": 12, "max_factor": 9},
    {"terms": 1, "max_denominator": 60, "max_factor": 30},
    {"terms": 2, "max_denominator": 12, "operators": "+-"},
    {"terms": 3, "max_denominator": 20, "operators": "+-"},
    {"terms": 3, "max_denominator": 30, "operators": "+-*"},
    {"terms": 4, "max_denominator": 50, "operators": "+-*/"},
)

_FORM = re.compile(r"^(?P<num>[+-]?\d+)(?:\s*/\s*(?P<den>\d+))?$")
_LATEX = re.compile(r"^(?P<sign>[+-]?)\\[dt]?frac\{(?P<num>\d+)\}\{(?P<den>\d+)\}$")


def is_lowest_terms(text: str) -> bool:
    """Whether ``text`` is an integer or ``p/q`` with ``gcd(p, q) == 1`` and ``q > 1``."""
    text = text.strip()
    match = _FORM.match(text) or _LATEX.match(text)
    if not match:
        return False
    den = match.group("den")
    if den is None:
        return True
    num, q = abs(int(match.group("num"))), int(den)
    return q > 1 and math.gcd(num, q) == 1


def generate(config: Config, rng: random.Random) -> Problem:
    if config.terms == 1:
        den = rng.randint(2, config.max_denominator)
        num = rng.randint(1, 3 * den)
        factor = rng.randint(2, config.max_factor)
        shown = f"{num * factor}/{den * factor}"
        question = f"Simplify the fraction {shown} to lowest terms."
    else:
        # Exact rational arithmetic on a numerator/denominator pair, reduced once at the end
        # (a Fraction per step normalised by gcd every time; the value is the same).
        # Each ``randint`` / ``choice`` with its draws inline (same getrandbits calls).
        getrandbits = rng.getrandbits
        operators = config.operators
        op_count = len(operators)
        op_bits = op_count.bit_length()
        den_span = config.max_denominator - 1
        den_bits = den_span.bit_length()
        r = getrandbits(den_bits)
        while r >= den_span:
            r = getrandbits(den_bits)
        den = 2 + r
        span = 2 * den
        bits = span.bit_length()
        r = getrandbits(bits)
        while r >= span:
            r = getrandbits(bits)
        num = 1 + r
        shown = f"{num}/{den}"
        additive = False  # whether shown holds a + or -
        for _ in range(config.terms - 1):
            r = getrandbits(op_bits)
            while r >= op_count:
                r = getrandbits(op_bits)
            op = operators[r]
            r = getrandbits(den_bits)
            while r >= den_span:
                r = getrandbits(den_bits)
            term_den = 2 + r
            span = 2 * term_den
            bits = span.bit_length()
            r = getrandbits(bits)
            while r >= span:
                r = getrandbits(bits)
            term_num = 1 + r
            # The value step and the shown text together; a product or quotient of a sum is
            # grouped (terms are positive, so only these operators put a + or - in shown).
            if op == "+":
                num, den = num * term_den + term_num * den, den * term_den
                shown = f"{shown} + {term_num}/{term_den}"
                additive = True
            elif op == "-":
                num, den = num * term_den - term_num * den, den * term_den
                shown = f"{shown} - {term_num}/{term_den}"
                additive = True
            elif op == "*":
                num, den = num * term_num, den * term_den
                shown = f"({shown}) * {term_num}/{term_den}" if additive else f"{shown} * {term_num}/{term_den}"
            else:  # the divisor is at least 1/den: never zero, and the denominator stays positive
                num, den = num * term_den, den * term_num
                shown = f"({shown}) / {term_num}/{term_den}" if additive else f"{shown} / {term_num}/{term_den}"
        question = f"Compute {shown} and simplify the result to lowest terms."
    question += " Give an integer or a fraction p/q in lowest terms."
    # Lowest terms by one gcd (den > 0 throughout), the text ``format_number(Fraction(num, den))`` gives.
    common = math.gcd(num, den)
    num, den = num // common, den // common
    return Problem(question, str(num) if den == 1 else f"{num}/{den}", {"expression": shown})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    try:
        extracted = extract_answer(answer_text)
        if not is_lowest_terms(extracted):
            return 0.0
        got, want = parse_number(extracted), parse_number(str(item["answer"]))
        return 1.0 if got is not None and got == want else 0.0
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:fraction_simplification",
    description="Reduce fractions to lowest terms, alone or after combining several.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="number",
    score=score,
)
