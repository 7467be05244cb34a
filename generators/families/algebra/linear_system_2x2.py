"""Solve two linear equations in x and y.

Early levels plant an integer solution; the hardest levels draw integer coefficients and
right-hand sides freely, so solutions are rational. Scoring reads ``x = 3, y = -2`` or a
bare pair ``(3, -2)`` and refuses anything with more than one value per unknown.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer, format_number, parse_number
from generators.base import Family, Knobs, Problem

NAME = "linear_system_2x2"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"max_coefficient": (1, 10_000), "max_solution": (1, 10**6)}

    max_coefficient: int = 5
    max_solution: int = 10
    integer_solution: bool = True

    def check(self) -> None:
        if not isinstance(self.integer_solution, bool):
            raise ValueError(f"Config.integer_solution must be a bool, got {self.integer_solution!r}")


LEVELS = (
    {"max_coefficient": 5, "max_solution": 10},
    {"max_coefficient": 10, "max_solution": 20},
    {"max_coefficient": 20, "max_solution": 50},
    {"max_coefficient": 50, "max_solution": 100},
    {"max_coefficient": 12, "max_solution": 60, "integer_solution": False},
    {"max_coefficient": 40, "max_solution": 300, "integer_solution": False},
)

_ASSIGN = re.compile(r"\b([xy])\s*=\s*([^,;=]+?)\s*(?=[,;]|\band\b|$)", re.IGNORECASE)


def parse_pair(text: str) -> tuple[Fraction, Fraction] | None:
    """(x, y) from ``x = 3, y = -2`` / ``y=-2; x=3`` / ``(3, -2)``; ``None`` otherwise."""
    text = text.strip()
    assignments = _ASSIGN.findall(text)
    if assignments:
        values: dict[str, Fraction] = {}
        for name, raw in assignments:
            value = parse_number(raw)
            if value is None or name.lower() in values:
                return None
            values[name.lower()] = value
        leftover = _ASSIGN.sub("", text)
        if set(values) != {"x", "y"} or re.search(r"\d", leftover):
            return None
        return values["x"], values["y"]
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    parts = [part.strip() for part in re.split(r"[,;]", text)]
    if len(parts) != 2:
        return None
    x, y = parse_number(parts[0]), parse_number(parts[1])
    return (x, y) if x is not None and y is not None else None


def _term(coefficient: int, variable: str, first: bool) -> str:
    sign = "-" if coefficient < 0 else "+"
    size = abs(coefficient)
    body = variable if size == 1 else f"{size}{variable}"
    if first:
        return f"-{body}" if coefficient < 0 else body
    return f" {sign} {body}"


def _equation(a: int, b: int, c: int) -> str:
    if a == 0:
        return f"{_term(b, 'y', True)} = {c}"
    if b == 0:
        return f"{_term(a, 'x', True)} = {c}"
    return f"{_term(a, 'x', True)}{_term(b, 'y', False)} = {c}"


def generate(config: Config, rng: random.Random) -> Problem:
    k = config.max_coefficient
    while True:
        a1, b1, a2, b2 = (rng.randint(-k, k) for _ in range(4))
        det = a1 * b2 - a2 * b1
        if det != 0 and (a1 or b1) and (a2 or b2):
            break
    if config.integer_solution:
        x = rng.randint(-config.max_solution, config.max_solution)
        y = rng.randint(-config.max_solution, config.max_solution)
        c1, c2 = a1 * x + b1 * y, a2 * x + b2 * y
        fx, fy = Fraction(x), Fraction(y)
    else:
        c1 = rng.randint(-config.max_solution, config.max_solution)
        c2 = rng.randint(-config.max_solution, config.max_solution)
        fx = Fraction(c1 * b2 - c2 * b1, det)
        fy = Fraction(a1 * c2 - a2 * c1, det)
    first, second = _equation(a1, b1, c1), _equation(a2, b2, c2)
    question = (
        f"Solve the system of equations:\n{first}\n{second}\n"
        "Answer in the form x = ..., y = ... using integers or fractions in lowest terms."
    )
    return Problem(question, f"x = {format_number(fx)}, y = {format_number(fy)}", {"equations": [first, second]})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    try:
        got = parse_pair(extract_answer(answer_text))
        want = parse_pair(str(item["answer"]))
        return 1.0 if got is not None and got == want else 0.0
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    description="Two linear equations in x and y with a unique solution.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
)
