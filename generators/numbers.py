"""One number as a model writes it, read exactly: the number half of the answer convention.

:mod:`generators.answers` extracts an answer from a model's text and compares it; this module
reads one number ("1,000", "3/4", "\\frac{3}{4}", "1e3") as an exact :class:`~fractions.Fraction`
and writes the gold form back, bounded so that no input makes it slow.
"""

from __future__ import annotations

import re
from fractions import Fraction

__all__ = ["format_number", "parse_number"]

_MAX_EXPONENT = 400
_MAX_DIGITS = 4000

_INT_RE = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)")
_DECIMAL_RE = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d*)?(?:[eE][+-]?\d+)?")
_FRACTION_RE = re.compile(r"(?P<num>[+-]?\d+)\s*/\s*(?P<den>[+-]?\d+)")
_LATEX_FRAC_RE = re.compile(r"(?P<sign>[+-]?)\\[dt]?frac\{\s*(?P<num>[+-]?\d+)\s*\}\{\s*(?P<den>[+-]?\d+)\s*\}")
_ASSIGNMENT_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*\s*=\s*(?P<value>[^=]+)$")


def parse_number(text: str) -> Fraction | None:
    """An exact value for one number: "1,000", "+3", "3.0", "-0", "3/4", "\\frac{3}{4}", "1e3".

    Returns ``None`` for anything else, including several numbers ("3, 4"), so that a list
    of candidates never parses as the single gold value.
    """
    if not isinstance(text, str):
        return None
    value = text.strip().replace("\u2212", "-").replace("\u00a0", " ")
    if not value or len(value) > _MAX_DIGITS:
        return None
    assignment = _ASSIGNMENT_RE.match(value)
    if assignment:
        value = assignment.group("value").strip()
    try:
        if _INT_RE.fullmatch(value):
            return Fraction(int(value.replace(",", "")))
        fraction = _FRACTION_RE.fullmatch(value) or _LATEX_FRAC_RE.fullmatch(value)
        if fraction:
            den = int(fraction.group("den"))
            if den == 0:
                return None
            result = Fraction(int(fraction.group("num")), den)
            return -result if fraction.groupdict().get("sign") == "-" else result
        if any(char.isdigit() for char in value) and _DECIMAL_RE.fullmatch(value):
            mantissa, _, exponent = value.lower().partition("e")
            if exponent and abs(int(exponent)) > _MAX_EXPONENT:
                return None
            if mantissa in {"", "+", "-", ".", "+.", "-."}:
                return None
            return Fraction(mantissa.replace(",", "")) * (Fraction(10) ** int(exponent or 0))
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return None


def format_number(value: Fraction | int) -> str:
    """Gold form of an exact number: ``"7"``, ``"-3/4"`` (lowest terms, sign on the numerator)."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}"
