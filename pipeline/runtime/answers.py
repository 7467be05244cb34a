"""Reading a tool-use agent's final answer in the forms people and models write it.

Extraction is tolerant of form (markdown emphasis, code spans and fences, ``\\boxed{}``,
an "Answer:" prefix, bullets, numbered lists, JSON arrays, "a, b and c", dates as the
instructions write them) and strict on content: one number means exactly one number,
a list is the exact items (no duplicates, and in order when order is asked), a refusal
is one structured object. Everything is linear in the answer's length and never raises.

Tool-use answers are the value of ``{"answer": ...}``, not free-form completions, so
this is separate from the procedural convention in :mod:`generators.answers` (which
takes the last line of a response as the answer and would cut a list in two).
"""

from __future__ import annotations

import json
import re
import unicodedata
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

MAX_CHARS = 20_000
"""Longer answers are not parsed at all (a final answer is a value, not an essay)."""

_FENCE = re.compile(r"^```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```$", re.S)
_BOXED = re.compile(r"^\\boxed\{(.*)\}$", re.S)
_TAGGED = re.compile(r"^<answer>(.*)</answer>$", re.S | re.I)
_PREFIX = re.compile(r"^(?:the\s+)?(?:final\s+)?answer(?:\s+is)?\s*[:=]?\s+|^(?:final\s+)?answer\s*[:=]\s*", re.I)
_WRAPPERS = ("**", "__", "`", '"', "'", "*", "_", "“", "”", "‘", "’")
_NUMBER = re.compile(
    r"(?P<sign>[-+]?)[$€£]?\s*(?P<num>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)(?P<pct>\s*%)?"
    r"|(?P<fsign>[-+]?)(?:\\[dt]?frac\{(?P<fn>\d+)\}\{(?P<fd>\d+)\}|(?P<n>\d+)\s*/\s*(?P<d>\d+))"
)
_BULLET = re.compile(r"^\s*(?:[-*•+]|\d{1,3}[.)])\s+")
_SEPARATOR = re.compile(r"\s*(?:,\s*and\s+|,\s*&\s*|[,;&]|\s+and\s+)\s*")
_ORDINAL = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)\b")
_DATE_FORMATS = (
    "%Y-%m-%d",
    "%B %d, %Y",
    "%b %d, %Y",
    "%B %d %Y",
    "%b %d %Y",
    "%d %B %Y",
    "%d %b %Y",
    "%d %B, %Y",
    "%m/%d/%Y",
    "%Y/%m/%d",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M:%S",
)


def _strip_wrappers(text: str) -> str:
    value = text.strip()
    changed = True
    while changed and value:
        changed = False
        if value.endswith(".") and not value.endswith(".."):
            value, changed = value[:-1].rstrip(), True
        for w in _WRAPPERS:
            if len(value) > 2 * len(w) and value.startswith(w) and value.endswith(w):
                value, changed = value[len(w) : -len(w)].strip(), True
    return value


def clean(value: str) -> str:
    """The answer without its packaging: fences, tags, ``\\boxed{}``, "Answer:", emphasis, a final period."""
    text = unicodedata.normalize("NFKC", value).strip()
    for _ in range(3):
        before = text
        for pattern in (_FENCE, _TAGGED, _BOXED):
            m = pattern.match(text)
            if m:
                text = m.group(1).strip()
        text = _PREFIX.sub("", _strip_wrappers(text), count=1).strip()
        text = _strip_wrappers(text)
        if text == before:
            break
    return text


def normalise_text(value: Any) -> str:
    """Case, packaging, underscores and runs of spaces do not matter ("Bank_Transfer" = "bank transfer")."""
    text = clean(str(value)) if not isinstance(value, str) or len(value) <= MAX_CHARS else str(value)
    return " ".join(text.replace("_", " ").split()).casefold()


def _scalar(value: Any) -> Any:
    """A one-element list stands for its element (``["17"]`` is ``"17"``)."""
    return value[0] if isinstance(value, (list, tuple)) and len(value) == 1 else value


Number = Decimal | Fraction
"""Exact: a decimal as written (``2.0`` is ``2``), or a fraction for ``a/b`` forms."""


def as_number(value: Any) -> Number | None:
    """Exactly one number: 17, "17", "2.0", "$1,204.50", "**16**", "Answer: 16", "12.5%", "\\frac{33}{2}"."""
    value = _scalar(value)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value)) if value == value and value not in (float("inf"), float("-inf")) else None
    if not isinstance(value, str) or len(value) > MAX_CHARS:
        return None
    m = _NUMBER.fullmatch(clean(value))
    if m is None:
        return None
    if m.group("num") is not None:
        try:
            number = Decimal(m.group("num").replace(",", ""))
        except InvalidOperation:
            return None
        return -number if m.group("sign") == "-" else number
    num, den = (m.group("fn"), m.group("fd")) if m.group("fn") is not None else (m.group("n"), m.group("d"))
    if int(den) == 0:
        return None
    fraction = Fraction(int(num), int(den))
    return -fraction if m.group("fsign") == "-" else fraction


def same_number(a: Number, b: Number, tolerance: float = 0.0) -> bool:
    """|a - b| <= tolerance, exactly (no float rounding on either side)."""
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return a == b if not tolerance else abs(a - b) <= Decimal(repr(float(tolerance)))
    fa, fb = Fraction(a), Fraction(b)
    return fa == fb if not tolerance else abs(fa - fb) <= Fraction(repr(float(tolerance)))


_TRUE = frozenset({"yes", "true", "y", "1"})
_FALSE = frozenset({"no", "false", "n", "0"})


def as_bool(value: Any) -> bool | None:
    """Yes or no, as the instructions write flags ("yes"/"no") or as stored ("true"/"false", 1/0)."""
    value = _scalar(value)
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if not isinstance(value, str) or len(value) > 100:
        return None
    text = normalise_text(value)
    return True if text in _TRUE else False if text in _FALSE else None


def as_date(value: Any) -> date | None:
    """One calendar date: "2024-10-28", "October 28, 2024", "Oct. 28th 2024", "28 October 2024", "10/28/2024"."""
    value = _scalar(value)
    if not isinstance(value, str) or len(value) > 100:
        return None
    text = " ".join(_ORDINAL.sub(r"\1", clean(value)).replace(".", " ").split()).replace(" ,", ",")
    for form in _DATE_FORMATS:
        try:
            return datetime.strptime(text, form).date()
        except ValueError:
            continue
    return None


def _lines(text: str) -> list[str] | None:
    """Items written one per line (bullets and numbers stripped; a heading ending in ':' dropped)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        return None
    if lines[0].rstrip().endswith(":") and not _BULLET.match(lines[0]):
        lines = lines[1:]
    return [clean(_BULLET.sub("", line, count=1)) for line in lines]


def _segments(line: str, expected: list[str], ordered: bool) -> list[str] | None:
    """Split one line at separators (",", ";", "and", "&") so that every piece is one expected item.

    Items may themselves hold separators ("Ortiz, Mercer and Barron"), so the split
    points are chosen to fit the expected items; any answer this accepts is made of
    exactly those items, each once.
    """
    cuts = [(m.start(), m.end()) for m in _SEPARATOR.finditer(line)]
    if len(cuts) > sum(len(_SEPARATOR.findall(e)) + 1 for e in expected) + 2:
        return None
    starts = [0] + [end for _, end in cuts]
    ends = [start for start, _ in cuts] + [len(line)]
    wanted = [normalise_text(e) for e in expected]
    n = len(starts)
    memo: dict[tuple[int, int], list[str] | None] = {}

    def solve(i: int, used: int) -> list[str] | None:
        if i == n:
            return [] if used == (1 << len(wanted)) - 1 else None
        if (i, used) in memo:
            return memo[(i, used)]
        found = None
        for j in range(i, n):
            piece = normalise_text(line[starts[i] : ends[j]])
            for k, w in enumerate(wanted):
                if used >> k & 1 or piece != w or (ordered and k != bin(used).count("1")):
                    continue
                rest = solve(j + 1, used | 1 << k)
                if rest is not None:
                    found = [piece, *rest]
                    break
            if found is not None:
                break
        memo[(i, used)] = found
        return found

    return solve(0, 0) if len(wanted) <= 12 else None


def _json_list(text: str) -> list[Any] | None:
    """The list a text holds as JSON, or None (not a list, not JSON, or nested too deep to parse)."""
    if not text.startswith("["):
        return None
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, list) else None


def as_items(value: Any, expected: list[Any], ordered: bool) -> list[str] | None:
    """The answer's items, normalised: a JSON list, one per line, bullets, numbered, or "a, b and c"."""
    if isinstance(value, (list, tuple)):
        if not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value):
            return None
        return [normalise_text(v) for v in value]
    if not isinstance(value, str) or len(value) > MAX_CHARS:
        return None
    text = clean(value)
    parsed = _json_list(text)
    if parsed is not None:
        return as_items(parsed, expected, ordered)
    lines = _lines(text)
    if lines is not None:
        return [normalise_text(line) for line in lines]
    found = _segments(text, [str(e) for e in expected], ordered)
    if found is not None:
        return found
    return [normalise_text(piece) for piece in _SEPARATOR.split(text) if piece.strip()]


def _json_object(value: Any) -> dict[str, Any] | None:
    """The one JSON object an answer is or holds (text around it, fences and emphasis ignored), or None."""
    value = _scalar(value)
    if isinstance(value, dict):
        return value
    if not isinstance(value, str) or len(value) > MAX_CHARS:
        return None
    text = clean(value)
    start, end = text.find("{"), text.rfind("}")
    if start == -1 or end < start:
        return None
    try:
        parsed = json.loads(text[start : end + 1])
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, dict) else None


def as_refusal(value: Any) -> dict[str, Any] | None:
    """The one JSON object of a structured refusal (``{"cannot": ..., "id": ..., "value": ...}``), or None."""
    found = _json_object(value)
    return found if found is not None and "cannot" in found else None


def as_refusals(value: Any) -> list[dict[str, Any]] | None:
    """Every refusal object of an answer: a JSON list of them, one per line, or a single one.

    A partly done request refuses each part it could not do; the parts are read in any order.
    """
    if isinstance(value, (list, tuple)):
        found = [as_refusal(v) for v in value]
        return None if not found or any(f is None for f in found) else [f for f in found if f is not None]
    if isinstance(value, dict):
        one = as_refusal(value)
        return None if one is None else [one]
    if not isinstance(value, str) or len(value) > MAX_CHARS:
        return None
    text = clean(value)
    parsed = _json_list(text)
    if parsed is not None:
        return as_refusals(parsed)
    lines = [line.strip().rstrip(",") for line in text.splitlines() if line.strip()]
    if len(lines) > 1:
        found = [as_refusal(line) for line in lines]
        if all(f is not None for f in found):
            return [f for f in found if f is not None]
    one = as_refusal(text)
    return None if one is None else [one]


def as_report(value: Any) -> dict[str, Any] | None:
    """The one JSON object of a report answer (a ``total``, and its ``refused`` list, which an answer
    where nothing was refused may leave out: a request for one record's refund asks for the total
    alone), or None.

    Other keys are ignored (an agent may add a note); one total and one list of refusals decide.
    """
    found = _json_object(value)
    if found is None or "total" not in found:
        return None
    return {**found, "refused": found.get("refused")}


def report_matches(expected: dict[str, Any], answer: Any) -> bool:
    """The total exactly (to the cent, in any number form) and exactly the expected refusals, any order
    (an empty list, or none given, where nothing was refused)."""
    got = as_report(answer)
    if got is None or not _same_amount(got["total"], expected["total"]):
        return False
    want = list(expected["refused"])
    refused = got["refused"]
    if not want:
        return refused in ([], None)
    return refusal_matches(want, refused)


def as_id(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"\s*#?\d{1,19}\s*", value):
        return int(value.strip().lstrip("#"))
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _same_amount(value: Any, expected: Any) -> bool:
    got, want = as_number(value), as_number(expected)
    return got is not None and want is not None and same_number(got, want, 0.0)


def _one_refusal(expected: dict[str, Any], got: dict[str, Any] | None) -> bool:
    if got is None or not isinstance(got.get("cannot"), str):
        return False
    if normalise_text(got["cannot"]) != expected["cannot"] or as_id(got.get("id")) != expected["id"]:
        return False
    if expected["cannot"] == "missing":
        return True
    value = got.get("value")
    if expected["cannot"] == "limit":
        return _same_amount(value, expected["value"])
    return isinstance(value, str) and normalise_text(value) == normalise_text(expected["value"])


def refusal_matches(expected: dict[str, Any] | list[dict[str, Any]] | tuple[dict[str, Any], ...], answer: Any) -> bool:
    """One expected refusal, or several (each part of a request that could not be done, any
    order): exactly those, each once."""
    if isinstance(expected, dict):
        return _one_refusal(expected, as_refusal(answer))
    if len(expected) == 1:
        return _one_refusal(expected[0], as_refusal(answer))
    got = as_refusals(answer)
    if got is None or len(got) != len(expected):
        return False
    left = list(got)
    for want in expected:
        hit = next((g for g in left if _one_refusal(want, g)), None)
        if hit is None:
            return False
        left.remove(hit)
    return True
