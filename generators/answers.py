"""The one answer-extraction and comparison convention every family scores with.

Models answer in many shapes (tags, ``\\boxed{}``, "Answer: ..." lines, a bare last line).
Extraction is tolerant so that formatting does not cost reward, while comparison is strict
so that listing several candidates ("answer stuffing") never earns it. Everything here is
linear in the input size and never raises through :func:`score_answer`.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from generators.base import AnswerKind

__all__ = [
    "compare",
    "extract_answer",
    "format_number",
    "normalize_text",
    "parse_number",
    "safe_score",
    "score_answer",
    "split_tokens",
]

_ANSWER_OPEN = "<answer>"
_ANSWER_CLOSE = "</answer>"
_BOXED = ("\\boxed{", "\\fbox{")
_ANSWER_LINE = re.compile(
    r"^[\s>*_#-]*(?:the\s+)?(?:final\s+answer|answer)[\s*_]*(?:is\s*[:=]?|[:=])[\s*_]*(?P<value>.+)$",
    re.IGNORECASE,
)
_FINAL_ANSWER_IS = re.compile(r"final\s+answer\s+is\s*[:=]?\s*(?P<value>.+)$", re.IGNORECASE)
_WRAPPERS = ("**", "__", "`", '"', "'", "$", "“", "”", "‘", "’", "*")
_MAX_EXPONENT = 400
_MAX_DIGITS = 4000

_INT_RE = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)")
_DECIMAL_RE = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d*)?(?:[eE][+-]?\d+)?")
_FRACTION_RE = re.compile(r"(?P<num>[+-]?\d+)\s*/\s*(?P<den>[+-]?\d+)")
_LATEX_FRAC_RE = re.compile(r"(?P<sign>[+-]?)\\[dt]?frac\{\s*(?P<num>[+-]?\d+)\s*\}\{\s*(?P<den>[+-]?\d+)\s*\}")
_ASSIGNMENT_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*\s*=\s*(?P<value>[^=]+)$")


def _last_tag_content(text: str) -> str | None:
    lower = text.lower()
    close = lower.rfind(_ANSWER_CLOSE)
    if close == -1:
        return None
    open_ = lower.rfind(_ANSWER_OPEN, 0, close)
    if open_ == -1:
        return None
    return text[open_ + len(_ANSWER_OPEN) : close]


def _last_boxed_content(text: str) -> str | None:
    start = max(text.rfind(marker) for marker in _BOXED)
    if start == -1:
        return None
    begin = text.index("{", start) + 1
    depth = 1
    for position in range(begin, len(text)):
        char = text[position]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[begin:position]
    return None


def _answer_line(lines: list[str]) -> str | None:
    for line in reversed(lines):
        match = _ANSWER_LINE.match(line) or _FINAL_ANSWER_IS.search(line)
        if match:
            return match.group("value")
    return None


def _strip_wrappers(value: str) -> str:
    value = value.strip()
    changed = True
    while changed and value:
        changed = False
        if value.endswith(".") and not value.endswith(".."):
            value = value[:-1].rstrip()
            changed = True
        for wrapper in _WRAPPERS:
            if len(value) >= 2 * len(wrapper) and value.startswith(wrapper) and value.endswith(wrapper):
                value = value[len(wrapper) : -len(wrapper)].strip()
                changed = True
        if value.startswith("\\text{") and value.endswith("}"):
            value = value[len("\\text{") : -1].strip()
            changed = True
    return value


def extract_answer(text: Any) -> str:
    """The final answer inside a free-form response.

    Order: the last ``<answer>...</answer>``, the last ``\\boxed{...}``, the last
    "Answer: X" / "the final answer is X" line, else the last non-empty line. The result is
    stripped of whitespace, a trailing period and surrounding quotes, backticks, ``$`` and
    bold markers. Anything that is not a string yields ``""``.
    """
    if not isinstance(text, str):
        return ""
    tagged = _last_tag_content(text)
    if tagged is not None:
        return _strip_wrappers(tagged)
    boxed = _last_boxed_content(text)
    if boxed is not None:
        return _strip_wrappers(boxed)
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    line = _answer_line(lines)
    if line is not None:
        return _strip_wrappers(line)
    return _strip_wrappers(lines[-1])


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


def normalize_text(text: str) -> str:
    """Case-, whitespace- and surrounding-punctuation-insensitive form used by ``text``."""
    value = unicodedata.normalize("NFKC", text).casefold()
    value = " ".join(value.split())
    return value.strip(" \t.,;:!?\"'`$*()[]{}")


def split_tokens(text: str, *, commas_only: bool = False) -> list[str]:
    """Tokens of a ``list``/``set`` answer: comma separated, else (for lists) whitespace."""
    value = text.strip()
    for opener, closer in (("[", "]"), ("(", ")"), ("{", "}")):
        if value.startswith(opener) and value.endswith(closer):
            value = value[1:-1]
            break
    tokens = value.split(",") if "," in value or commas_only else value.split()
    return [normalize_text(token) for token in tokens]


def _numbers_equal(extracted: str, gold: str, *, tolerance: float) -> bool:
    got = parse_number(extracted)
    want = parse_number(gold)
    if got is None or want is None:
        return False
    if got == want:
        return True
    # Exact forms (integers, fractions) must be exactly right; the tolerance is for decimals,
    # which are approximations by nature. Otherwise a huge gold would accept neighbours.
    if tolerance <= 0 or not any(marker in extracted.lower() for marker in (".", "e")):
        return False
    scale = max(abs(float(want)), 1e-12)
    return math.isfinite(float(got)) and abs(float(got) - float(want)) <= tolerance * scale


def compare(kind: AnswerKind, extracted: str, gold: str) -> float:
    """1.0 when ``extracted`` matches ``gold`` under ``kind`` (see ``AnswerKind``), else 0.0."""
    if not isinstance(extracted, str) or not isinstance(gold, str):
        return 0.0
    extracted = extracted.strip()
    if not extracted:
        return 0.0
    if kind == "int":
        want = parse_number(gold)
        got = parse_number(extracted)
        ok = want is not None and got is not None and want.denominator == 1 and got == want
    elif kind == "number":
        ok = _numbers_equal(extracted, gold, tolerance=1e-6)
    elif kind == "text":
        ok = normalize_text(extracted) == normalize_text(gold)
    elif kind == "exact":
        ok = extracted == gold.strip()
    elif kind == "list":
        ok = split_tokens(extracted) == split_tokens(gold)
    elif kind == "set":
        got_tokens = split_tokens(extracted, commas_only=True)
        want_tokens = split_tokens(gold, commas_only=True)
        ok = sorted(got_tokens) == sorted(want_tokens)
    else:
        raise ValueError(f"unknown answer kind {kind!r}")
    return 1.0 if ok else 0.0


def score_answer(kind: AnswerKind, answer_text: Any, item: Mapping[str, Any]) -> float:
    """The default scorer: extract, then compare with ``item["answer"]``; never raises."""
    try:
        return compare(kind, extract_answer(answer_text), str(item["answer"]))
    except Exception:
        return 0.0


def safe_score(value: Any) -> float:
    """Clamp any scorer output into a finite float in [0, 1]; anything odd becomes 0.0."""
    try:
        result = float(value)
    except (TypeError, ValueError, OverflowError):
        return 0.0
    if not math.isfinite(result):
        return 0.0
    return min(1.0, max(0.0, result))
