"""Shared pieces of the geometry families: lattice polygons, exact points, rounded numbers.

Kept here so that every geometry family draws polygons, formats rational points and reads a
point or a rounded number out of an answer the same way (one parser per answer shape, all
linear in the answer length and bounded before any work).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

from generators.answers import extract_answer, format_number, parse_number

Point = tuple[int, int]

MAX_ANSWER_CHARS = 200
"""A point or a number never needs more; longer answers are refused before parsing."""
_UNITS = ("°", "degrees", "degree", "deg", "square units", "units", "unit")


def cross(o: Point, a: Point, b: Point) -> int:
    """Twice the signed area of triangle o-a-b (positive when a -> b turns left around o)."""
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def lattice_polygon(vertices: int, span: int, rng: random.Random, tries: int = 200) -> list[Point]:
    """A simple counter-clockwise lattice polygon with ``vertices`` corners in ``[0, span]^2``.

    Points are sorted by angle around their mean; when every consecutive pair turns strictly
    left around the mean (each angular gap in (0, pi)) the edges live in disjoint sectors, so
    the polygon is simple. No three consecutive corners are collinear, so every corner is real.
    """
    for _ in range(tries):
        pts = list({(rng.randint(0, span), rng.randint(0, span)) for _ in range(vertices)})
        if len(pts) != vertices:
            continue
        pts.sort()
        sx, sy = sum(p[0] for p in pts), sum(p[1] for p in pts)
        rel = [(vertices * x - sx, vertices * y - sy) for x, y in pts]
        if any(v == (0, 0) for v in rel):
            continue
        order = sorted(range(vertices), key=lambda i: math.atan2(rel[i][1], rel[i][0]))
        ring = [pts[i] for i in order]
        vecs = [rel[i] for i in order]
        ok = all(
            vecs[i][0] * vecs[(i + 1) % vertices][1] - vecs[i][1] * vecs[(i + 1) % vertices][0] > 0
            for i in range(vertices)
        )
        if ok and all(cross(ring[i - 1], ring[i], ring[(i + 1) % vertices]) != 0 for i in range(vertices)):
            return ring
    raise ValueError(f"no simple {vertices}-gon found in span {span}")


def twice_area(ring: Sequence[Point]) -> int:
    """Shoelace sum: twice the signed area (positive for counter-clockwise rings)."""
    n = len(ring)
    return sum(ring[i][0] * ring[(i + 1) % n][1] - ring[(i + 1) % n][0] * ring[i][1] for i in range(n))


def boundary_points(ring: Sequence[Point]) -> int:
    """Lattice points on the boundary: each edge holds gcd(|dx|, |dy|) of them (one end counted)."""
    n = len(ring)
    return sum(
        math.gcd(abs(ring[(i + 1) % n][0] - ring[i][0]), abs(ring[(i + 1) % n][1] - ring[i][1])) for i in range(n)
    )


def circumcentre(pts: Sequence[Point]) -> tuple[Fraction, Fraction]:
    """Equidistant point: |P-A|^2 = |P-B|^2 = |P-C|^2 reduces to two linear equations."""
    (ax, ay), (bx, by), (cx, cy) = pts
    d = 2 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by))
    a2, b2, c2 = ax * ax + ay * ay, bx * bx + by * by, cx * cx + cy * cy
    ux = Fraction(a2 * (by - cy) + b2 * (cy - ay) + c2 * (ay - by), d)
    uy = Fraction(a2 * (cx - bx) + b2 * (ax - cx) + c2 * (bx - ax), d)
    return ux, uy


def show_point(point: Sequence[int]) -> str:
    return "(" + ", ".join(str(v) for v in point) + ")"


def format_point(point: Sequence[Fraction]) -> str:
    """Gold form of an exact point: ``(3/2, -4)``."""
    return "(" + ", ".join(format_number(v) for v in point) + ")"


def decimal_string(value: Fraction | float, places: int) -> str:
    """``value`` rounded half-up to ``places`` decimals, as text with exactly that many."""
    with localcontext() as ctx:
        ctx.prec = 50
        exact = Decimal(value.numerator) / Decimal(value.denominator) if isinstance(value, Fraction) else Decimal(value)
        return str(exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def sqrt_string(square: int, places: int) -> str:
    """The square root of a non-negative integer rounded half-up (50 significant digits first)."""
    with localcontext() as ctx:
        ctx.prec = 50
        root = Decimal(square).sqrt()
        return str(root.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def _answer(answer_text: object) -> str | None:
    text = extract_answer(answer_text)
    if not text or len(text) > MAX_ANSWER_CHARS:
        return None
    return text


def _strip_unit(text: str) -> str:
    lowered = text.lower().rstrip()
    for unit in _UNITS:
        if lowered.endswith(unit):
            return text[: len(lowered) - len(unit)].rstrip()
    return text


def parse_point(answer_text: object, dims: int = 2) -> tuple[Fraction, ...] | None:
    """``(x, y)`` (or ``x, y``, ``[x, y]``, ``x = 3/2, y = -4``) as exact values, else None."""
    text = _answer(answer_text)
    if text is None:
        return None
    if text[:1] in "([" and text[-1:] in ")]":
        text = text[1:-1]
    parts = text.split(",")
    if len(parts) != dims:
        return None
    values = [parse_number(part.strip()) for part in parts]
    if any(v is None for v in values):
        return None
    return tuple(v for v in values if v is not None)


def score_point(answer_text: object, gold: str, dims: int = 2) -> float:
    """1.0 iff the answer is the gold point exactly (fractions and terminating decimals alike)."""
    got = parse_point(answer_text, dims)
    want = parse_point(gold, dims)
    return 1.0 if got is not None and want is not None and got == want else 0.0


def score_number(answer_text: object, gold: str) -> float:
    """1.0 iff the answer's value equals the gold value exactly; a trailing unit (°, degrees,
    square units) is allowed, anything else after the number is not."""
    text = _answer(answer_text)
    if text is None:
        return 0.0
    got = parse_number(_strip_unit(text))
    want = parse_number(gold)
    return 1.0 if got is not None and want is not None and got == want else 0.0
