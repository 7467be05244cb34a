"""All real solutions of a polynomial equation of degree three to five with integer roots.

The polynomial is expanded from ``a(x - r1)(x - r2)...`` and some of its terms are moved
to the right-hand side, so the solver must collect terms, then find the roots (rational
root test, synthetic division). Repeated roots occur; the answer lists each distinct root
once. Harder levels raise the degree, the size of the roots and of the leading
coefficient.

The answer is the set of distinct roots, in any order (``-3, 1, 4`` or ``x = -3, x = 1,
x = 4``); a missing root, an extra one or a repeated one scores 0.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer, parse_number
from generators.base import Family, Knobs, Problem
from generators.families._poly import format_polynomial, multiply

NAME = "polynomial_equations"

VARIABLES = ("x", "y", "z", "t")
_SEPARATORS = re.compile(r",|;|\bor\b|\band\b")


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"min_degree": (2, 6), "max_degree": (2, 6), "max_root": (1, 100), "max_leading": (1, 20)}

    min_degree: int = 3
    max_degree: int = 3
    max_root: int = 5
    max_leading: int = 1
    rearranged: bool = False

    def check(self) -> None:
        if self.min_degree > self.max_degree:
            raise ValueError("Config.min_degree must be <= max_degree")
        if not isinstance(self.rearranged, bool):
            raise ValueError(f"Config.rearranged must be a bool, got {self.rearranged!r}")


LEVELS = (
    {"min_degree": 3, "max_degree": 3, "max_root": 6, "max_leading": 1},
    {"min_degree": 3, "max_degree": 3, "max_root": 9, "max_leading": 2, "rearranged": True},
    {"min_degree": 3, "max_degree": 4, "max_root": 9, "max_leading": 3, "rearranged": True},
    {"min_degree": 4, "max_degree": 4, "max_root": 12, "max_leading": 3, "rearranged": True},
    {"min_degree": 4, "max_degree": 5, "max_root": 12, "max_leading": 4, "rearranged": True},
    {"min_degree": 5, "max_degree": 5, "max_root": 15, "max_leading": 5, "rearranged": True},
)


def parse_roots(text: str, most: int) -> list[Fraction] | None:
    """Distinct roots (sorted) from ``-3, 1, 4`` / ``x = -3 or x = 1`` / ``{1, -3}``; a repeat refuses."""
    if len(text) > 40 * most + 40:
        return None
    cleaned = text.strip().strip("{}[]()")
    parts = [part.strip() for part in _SEPARATORS.split(cleaned) if part.strip()]
    if not parts or len(parts) > most:
        return None
    roots = []
    for part in parts:
        value = parse_number(part)
        if value is None:
            return None
        roots.append(value)
    if len(set(roots)) != len(roots):
        return None
    return sorted(roots)


def generate(config: Config, rng: random.Random) -> Problem:
    var = rng.choice(VARIABLES)
    degree = rng.randint(config.min_degree, config.max_degree)
    roots = [rng.randint(-config.max_root, config.max_root) for _ in range(degree)]
    leading = rng.randint(1, config.max_leading) * rng.choice((1, -1) if config.max_leading > 1 else (1,))
    poly: dict[int, int] = {0: leading}
    for root in roots:
        poly = multiply(poly, {1: 1, 0: -root})
    if config.rearranged:
        moved = {p: rng.randint(-9, 9) for p in rng.sample(range(degree), min(2, degree))}
        left = {p: poly.get(p, 0) + moved.get(p, 0) for p in range(degree + 1)}
        equation = f"{format_polynomial({p: c for p, c in left.items() if c}, var)} = " + format_polynomial(
            {p: c for p, c in moved.items() if c}, var
        )
    else:
        equation = f"{format_polynomial(poly, var)} = 0"
    distinct = sorted(set(roots))
    question = (
        f"Find all real solutions of {equation}.\n"
        "Every solution is an integer. List each distinct solution once, separated by commas."
    )
    return Problem(question, ", ".join(map(str, distinct)), {"degree": degree, "equation": equation, "variable": var})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the answer names exactly the distinct roots, in any order."""
    try:
        most = int((item.get("metadata") or {})["degree"])
        want = parse_roots(str(item["answer"]), most)
        got = parse_roots(extract_answer(answer_text), most)
        return 1.0 if want is not None and got == want else 0.0
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    description="Distinct integer roots of a degree 3-5 polynomial equation (set of roots).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="set",
    score=score,
    counterpart="reasoning_gym:polynomial_equations",
)
