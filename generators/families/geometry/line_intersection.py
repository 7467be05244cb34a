"""The exact intersection point of two non-parallel lines in the plane.

Tests solving a 2x2 linear system that comes dressed as geometry. Lines are given through
two lattice points, as ``ax + by = c`` or as ``y = mx + q``; harder levels mix the forms
(so each line must first be converted), widen the coordinates and make the crossing point
rational rather than whole, which punishes any rounding. The answer is exact: ``(3/2, -4)``
and ``(1.5, -4)`` are the same point; a rounded repeating decimal is not.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, format_number
from generators.base import Family, Knobs, Problem
from generators.families._geom import format_point, score_point, show_point

NAME = "line_intersection"

Line = tuple[int, int, int]
"""(a, b, c) of a*x + b*y = c."""


@dataclass(frozen=True)
class Config(Knobs):
    span: int = 6
    """Coordinates of the defining points (and of a whole crossing) lie in [-span, span]."""
    forms: int = 1
    """How many presentations are mixed: 1 two points, 2 also ax + by = c, 3 also y = mx + q."""
    rational_share: float = 0.0
    """Share of items whose crossing point is drawn freely (usually not whole)."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "span": (3, 10**6),
        "forms": (1, 3),
        "rational_share": (0.0, 1.0),
    }


LEVELS: tuple[dict[str, object], ...] = (
    {"span": 6, "forms": 1, "rational_share": 0.0},
    {"span": 8, "forms": 2, "rational_share": 0.2},
    {"span": 10, "forms": 2, "rational_share": 0.5},
    {"span": 15, "forms": 3, "rational_share": 0.7},
    {"span": 30, "forms": 3, "rational_share": 0.9},
    {"span": 60, "forms": 3, "rational_share": 1.0},
)


def _through(p: tuple[int, int], q: tuple[int, int]) -> Line:
    a, b = q[1] - p[1], p[0] - q[0]
    return a, b, a * p[0] + b * p[1]


def _term(coef: Fraction, var: str, first: bool) -> str:
    sign = "-" if coef < 0 else ("" if first else "+")
    size = abs(coef)
    body = ("" if size == 1 else f"({format_number(size)})" if size.denominator != 1 else str(size)) + var
    return f"{sign}{body}" if first else f" {sign} {body}"


def _describe(line: Line, points: tuple[tuple[int, int], tuple[int, int]], form: int) -> str:
    a, b, c = line
    if form == 2 or (form == 3 and b == 0):
        g = math.gcd(math.gcd(a, b), c) or 1
        if a < 0 or (a == 0 and b < 0):
            g = -g
        a, b, c = a // g, b // g, c // g
        left = "".join(
            _term(Fraction(k), v, not i) for i, (k, v) in enumerate(((k, v) for k, v in ((a, "x"), (b, "y")) if k))
        )
        return f"the line {left} = {c}"
    if form == 3:
        slope, offset = Fraction(-a, b), Fraction(c, b)
        right = _term(slope, "x", True) if slope else ""
        if offset or not right:
            right += (" + " if right and offset >= 0 else " - " if right else "") + format_number(
                abs(offset) if right else offset
            )
        return f"the line y = {right}"
    return f"the line through {show_point(points[0])} and {show_point(points[1])}"


def _line_points(
    rng: random.Random, span: int, anchor: tuple[int, int] | None
) -> tuple[tuple[int, int], tuple[int, int]]:
    while True:
        if anchor is None:
            p = (rng.randint(-span, span), rng.randint(-span, span))
            q = (rng.randint(-span, span), rng.randint(-span, span))
        else:
            d = (rng.randint(-3, 3), rng.randint(-3, 3))
            s, t = rng.sample((-3, -2, -1, 1, 2, 3), 2)
            p = (anchor[0] + s * d[0], anchor[1] + s * d[1])
            q = (anchor[0] + t * d[0], anchor[1] + t * d[1])
        if p != q:
            return p, q


def generate(config: Config, rng: random.Random) -> Problem:
    anchor = (
        None
        if rng.random() < config.rational_share
        else (
            rng.randint(-config.span, config.span),
            rng.randint(-config.span, config.span),
        )
    )
    while True:
        first, second = _line_points(rng, config.span, anchor), _line_points(rng, config.span, anchor)
        (a1, b1, c1), (a2, b2, c2) = _through(*first), _through(*second)
        det = a1 * b2 - a2 * b1
        if det:
            break
    point = (Fraction(c1 * b2 - c2 * b1, det), Fraction(a1 * c2 - a2 * c1, det))
    one = _describe((a1, b1, c1), first, rng.randint(1, config.forms))
    two = _describe((a2, b2, c2), second, rng.randint(1, config.forms))
    question = (
        f"Line 1 is {one}. Line 2 is {two}. At which point do the two lines intersect?\n"
        "Answer with the exact coordinates as (x, y): each an integer, a fraction in lowest terms such as "
        "-7/3, or a terminating decimal such as 2.5."
    )
    return Problem(question, format_point(point), {"lines": [[a1, b1, c1], [a2, b2, c2]]})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 iff both coordinates equal the exact crossing point (order x, y)."""
    try:
        return score_point(answer_text, str(item["answer"]))
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """The coordinates swapped (when they differ) and x shifted by one."""
    x, y = str(item["answer"])[1:-1].split(", ")
    out = [f"({x}, {Fraction(y) + 1})"]
    if x != y:
        out.append(f"({y}, {x})")
    return out


FAMILY = Family(
    name=NAME,
    description="Exact intersection point of two lines given by points, ax + by = c or y = mx + q.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="",
)
