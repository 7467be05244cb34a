"""Polynomials in one variable as ``{power: Fraction}``: a bounded linear parser and a printer.

The algebra families (polynomial multiplication, integration, complex numbers as
polynomials in ``i``) accept any equivalent way of writing a polynomial, so answers are
parsed into coefficients and compared as such instead of as strings. The parser reads one
term at a time (``[coef][*]x[^n][/den]``) after splitting at top-level ``+``/``-``; it
refuses anything else (commas, words, a second variable), so a list of candidates never
parses. Input is capped before any work, and every step is linear in its length.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction

__all__ = ["MAX_CHARS", "differentiate", "format_polynomial", "multiply", "parse_polynomial"]

MAX_CHARS = 4000
"""Longer answers are refused outright: no expected answer comes near this."""
MAX_POWER = 200

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
_SUPERSCRIPT_CHARS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_LATEX_FRAC = re.compile(r"\\[dt]?frac\{(\d+)\}\{(\d+)\}")
_COEF = r"(?:\d+(?:\.\d+)?(?:/\d+)?|\(\d+(?:\.\d+)?(?:/\d+)?\))"


def _term_pattern(var: str) -> re.Pattern[str]:
    v = re.escape(var)
    return re.compile(rf"(?P<coef>{_COEF})?\*?(?:(?P<var>{v})(?:\^(?P<exp>\d{{1,3}}))?)?(?:/(?P<den>\d+))?")


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _normalise(text: str) -> str:
    text = text.replace("\u2212", "-").replace("\u2013", "-").replace("**", "^").replace("\\cdot", "*")
    text = text.replace("·", "*").replace("×", "*").replace("\\left", "").replace("\\right", "")
    text = _LATEX_FRAC.sub(r"(\1/\2)", text)
    text = "".join(text.split()).replace("{", "").replace("}", "")
    if any(char in _SUPERSCRIPT_CHARS for char in text):
        out: list[str] = []
        previous_super = False
        for char in text:
            is_super = char in _SUPERSCRIPT_CHARS
            if is_super and not previous_super:
                out.append("^")
            out.append(char.translate(_SUPERSCRIPTS) if is_super else char)
            previous_super = is_super
        text = "".join(out)
    return text


def _coefficient(raw: str) -> Fraction:
    raw = raw.strip("()")
    if "/" in raw:
        num, den = raw.split("/")
        if int(den) == 0:
            raise ValueError("zero denominator")
        return Fraction(num) / int(den)
    return Fraction(raw)


def parse_polynomial(text: str, var: str = "x", *, drop: tuple[str, ...] = ()) -> dict[int, Fraction] | None:
    """Coefficients by power (zeros removed) of a polynomial in ``var``, or ``None``.

    ``drop`` names stand-alone terms to ignore (``("C",)`` for a constant of integration).
    Accepts ``3x^2``, ``3*x**2``, ``3x²``, ``-x``, ``x^3/3``, ``(1/3)x^3``, ``\\frac{1}{3}x^3``,
    ``1.5x``; like terms are added, so any equivalent expanded form gives the same result.
    """
    if not isinstance(text, str) or len(text) > MAX_CHARS:
        return None
    body = _normalise(text)
    if not body:
        return None
    pattern = _PATTERNS.get(var)
    if pattern is None:
        pattern = _PATTERNS.setdefault(var, _term_pattern(var))
    if body[0] not in "+-":
        body = "+" + body
    coefficients: dict[int, Fraction] = {}
    # Split at every sign: "+3x^2-x" -> [("+", "3x^2"), ("-", "x")]; a sign must be followed
    # by a term (no "--", no trailing "+").
    pieces = re.split(r"([+-])", body)
    if pieces[0] != "":
        return None
    try:
        for index in range(1, len(pieces), 2):
            sign, term = pieces[index], pieces[index + 1]
            if not term:
                return None
            if term in drop:
                continue
            match = pattern.fullmatch(term)
            if match is None or (match.group("coef") is None and match.group("var") is None):
                return None
            if match.group("exp") is not None and match.group("var") is None:
                return None
            value = _coefficient(match.group("coef")) if match.group("coef") else Fraction(1)
            if match.group("den") is not None:
                den = int(match.group("den"))
                if den == 0:
                    return None
                value /= den
            power = 0 if match.group("var") is None else int(match.group("exp") or 1)
            if power > MAX_POWER:
                return None
            coefficients[power] = coefficients.get(power, Fraction(0)) + (value if sign == "+" else -value)
    except (ValueError, ZeroDivisionError):
        return None
    return {power: c for power, c in coefficients.items() if c != 0}


def multiply(left: dict[int, int], right: dict[int, int]) -> dict[int, int]:
    """Product of two integer-coefficient polynomials (plain ints: generation stays fast)."""
    out: dict[int, int] = {}
    for p, a in left.items():
        for q, b in right.items():
            out[p + q] = out.get(p + q, 0) + a * b
    return {power: c for power, c in out.items() if c != 0}


def differentiate(poly: dict[int, Fraction]) -> dict[int, Fraction]:
    return {power - 1: c * power for power, c in poly.items() if power > 0 and c != 0}


def _magnitude(value: Fraction | int, power: int, var: str) -> str:
    body = "" if power == 0 else var if power == 1 else f"{var}^{power}"
    if isinstance(value, int):
        whole = abs(value)
        return body if whole == 1 and body else f"{whole}{body}"
    size = abs(Fraction(value))
    if size.denominator != 1:
        return f"({size.numerator}/{size.denominator}){body}" if body else f"{size.numerator}/{size.denominator}"
    if size == 1 and body:
        return body
    return f"{size.numerator}{body}"


def format_polynomial(poly: Mapping[int, Fraction | int], var: str = "x") -> str:
    """``-2x^3 + (1/2)x - 4``: descending powers, ``0`` for the zero polynomial."""
    pieces: list[str] = []
    for power in sorted(poly, reverse=True):
        value = poly[power]
        if value == 0:
            continue
        text = _magnitude(value, power, var)
        if not pieces:
            pieces.append(f"-{text}" if value < 0 else text)
        else:
            pieces.append(f"{'-' if value < 0 else '+'} {text}")
    return " ".join(pieces) or "0"
