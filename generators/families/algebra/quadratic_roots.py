"""Integer roots of a quadratic equation.

The quadratic is expanded from ``a(x - r1)(x - r2)``; later levels use larger roots and
leading coefficients and move terms to the right-hand side. The answer lists the distinct
roots in increasing order; scoring compares the set of roots, so order and "x = " prefixes
do not matter but any extra value does.
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

NAME = "quadratic_roots"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"max_root": (1, 10_000), "max_leading": (1, 100)}

    max_root: int = 6
    max_leading: int = 1
    rearranged: bool = False

    def check(self) -> None:
        if not isinstance(self.rearranged, bool):
            raise ValueError(f"Config.rearranged must be a bool, got {self.rearranged!r}")


LEVELS = (
    {"max_root": 30, "max_leading": 1},
    {"max_root": 60, "max_leading": 1},
    {"max_root": 25, "max_leading": 4},
    {"max_root": 20, "max_leading": 6, "rearranged": True},
    {"max_root": 40, "max_leading": 9, "rearranged": True},
    {"max_root": 100, "max_leading": 15, "rearranged": True},
)


def parse_roots(text: str) -> list[Fraction] | None:
    """Distinct roots, sorted, from ``-3, 5`` / ``x = -3 or x = 5`` / ``{5, -3}``."""
    cleaned = text.strip().strip("{}[]()")
    parts = [part.strip() for part in re.split(r",|;|\bor\b|\band\b", cleaned) if part.strip()]
    if not parts or len(parts) > 2:
        return None
    roots = []
    for part in parts:
        value = parse_number(part)
        if value is None:
            return None
        roots.append(value)
    return sorted(set(roots))


def _polynomial(coefficients: list[int]) -> str:
    """Render ``[c2, c1, c0]`` as ``2x^2 - 3x + 1`` (zero terms dropped, ``0`` if all zero)."""
    pieces: list[str] = []
    for power, c in zip((2, 1, 0), coefficients):
        if c == 0:
            continue
        size = abs(c)
        body = {2: "x^2", 1: "x", 0: ""}[power]
        text = str(size) if power == 0 or size != 1 else ""
        text += body
        sign = "-" if c < 0 else "+"
        pieces.append(f"-{text}" if not pieces and c < 0 else text if not pieces else f" {sign} {text}")
    return "".join(pieces) or "0"


def generate(config: Config, rng: random.Random) -> Problem:
    r1 = rng.randint(-config.max_root, config.max_root)
    r2 = rng.randint(-config.max_root, config.max_root)
    a = rng.randint(1, config.max_leading) * rng.choice((1, -1) if config.max_leading > 1 else (1,))
    coefficients = [a, -a * (r1 + r2), a * r1 * r2]
    if config.rearranged:
        moved = [rng.randint(-config.max_leading, config.max_leading) for _ in range(2)] + [rng.randint(-9, 9)]
        left = [c + m for c, m in zip(coefficients, moved)]
        equation = f"{_polynomial(left)} = {_polynomial(moved)}"
    else:
        equation = f"{_polynomial(coefficients)} = 0"
    roots = sorted({r1, r2})
    question = (
        f"Find all real solutions of {equation}. List the distinct solutions in increasing order, separated by commas."
    )
    return Problem(question, ", ".join(str(r) for r in roots), {"equation": equation})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    try:
        got = parse_roots(extract_answer(answer_text))
        want = parse_roots(str(item["answer"]))
        return 1.0 if got is not None and got == want else 0.0
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:polynomial_equations",
    description="Integer roots of a quadratic built from its factors.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="set",
    score=score,
)
