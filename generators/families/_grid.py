"""Matrix answers for the grid families (rotate, spiral, distances, life, pooling).

A model writes a matrix in several reasonable ways: a nested list ``[[1, 2], [3, 4]]`` on
one line, rows separated by ``;``, or one row per line inside ``<answer>`` tags or as the
last lines of its reply. :func:`matrix_from_response` reads any of those into rows of exact
numbers, and refuses anything else (text between rows, two matrices, ragged brackets), so
stuffing several candidates never parses into the gold. Input is capped before parsing and
every step is one pass over the text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from generators.answers import ANSWER_ERRORS, extract_answer, parse_number

__all__ = ["MAX_CHARS", "format_matrix", "matrix_from_response", "parse_matrix", "score_matrix", "show_matrix"]

MAX_CHARS = 40_000
"""Longer answers are refused before parsing; the largest gold matrix is far smaller."""
_ROW = re.compile(r"\[([^\[\]]*)\]")
_ROW_CHARS = frozenset("0123456789-+., \t/")
_CELL_SPLIT = re.compile(r"[,\s]+")


def _number(token: str) -> Fraction | None:
    if token.isdigit():
        return Fraction(int(token))
    return parse_number(token)


def _row(text: str) -> list[Fraction] | None:
    cells = [cell for cell in _CELL_SPLIT.split(text.strip()) if cell]
    values = [_number(cell) for cell in cells]
    if not values or any(value is None for value in values):
        return None
    return values  # type: ignore[return-value]


def parse_matrix(text: str) -> list[list[Fraction]] | None:
    """Rows of a matrix written as a nested list, ``;``-separated rows or one row per line."""
    if not isinstance(text, str) or len(text) > MAX_CHARS:
        return None
    body = text.strip()
    rows: list[list[Fraction]] = []
    if body.startswith("[["):
        if not body.endswith("]]"):
            return None
        inner = body[1:-1]
        position = 0
        for match in _ROW.finditer(inner):
            gap = inner[position : match.start()]
            if gap.strip() not in (("", ",") if rows else ("",)):
                return None
            row = _row(match.group(1))
            if row is None:
                return None
            rows.append(row)
            position = match.end()
        if not rows or inner[position:].strip():
            return None
        return rows
    for line in re.split(r"[;\n]", body):
        line = line.strip().strip("[]|").strip()
        if not line:
            continue
        row = _row(line)
        if row is None:
            return None
        rows.append(row)
    return rows or None


def _trailing_rows(text: str) -> str | None:
    """The last lines of ``text`` that all look like rows of numbers, joined by newlines."""
    lines = text.rstrip().splitlines()
    block: list[str] = []
    for line in reversed(lines):
        stripped = line.strip()
        if not stripped or not set(stripped) <= _ROW_CHARS:
            break
        block.append(stripped)
    return "\n".join(reversed(block)) if len(block) > 1 else None


def matrix_from_response(answer_text: str) -> list[list[Fraction]] | None:
    """The matrix a response ends with (tags, boxed, answer line, or trailing row lines)."""
    if not isinstance(answer_text, str) or len(answer_text) > 4 * MAX_CHARS:
        return None
    extracted = extract_answer(answer_text)
    lower = answer_text.lower()
    tagged = "</answer>" in lower or "\\boxed{" in answer_text or "\\fbox{" in answer_text
    if not tagged and not extracted.startswith("[") and ";" not in extracted:
        trailing = _trailing_rows(answer_text)
        if trailing is not None:
            return parse_matrix(trailing)
    return parse_matrix(extracted)


def _cell(value: Fraction | int) -> str:
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    return str(float(value))


def format_matrix(rows: Sequence[Sequence[Fraction | int]]) -> str:
    """``[[1, 2], [3, 4]]``: the one-line gold form (non-integers as exact short decimals)."""
    return "[" + ", ".join("[" + ", ".join(_cell(v) for v in row) + "]" for row in rows) + "]"


def show_matrix(rows: Sequence[Sequence[object]]) -> str:
    """Rows of space-separated cells, one per line: how a question prints a matrix."""
    return "\n".join(" ".join(str(v) for v in row) for row in rows)


def score_matrix(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the response's matrix equals the gold one cell for cell (same shape)."""
    try:
        want = parse_matrix(str(item["answer"]))
        got = matrix_from_response(answer_text)
        return 1.0 if want is not None and got == want else 0.0
    except ANSWER_ERRORS:
        return 0.0
