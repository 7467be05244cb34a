"""Shared grid code for the ARC-style and picture families: rendering, the question
layout, the rule-identifiability check and the one grid scorer.

A grid answer spans several lines, which the single-line conventions of
:func:`generators.answers.extract_answer` cannot carry on their own: a bare grid's last line
is only its last row. :func:`parse_answer_grid` therefore reads a tagged or boxed answer
whole (where ``extract_answer`` would look) and otherwise takes the block of grid rows that
ends the response (optionally headed by an "Answer:"/"Output:" line). The comparison is
exact: same number of rows, same cells, same order. Work is bounded by the gold's size before any
parsing, so a megabyte answer is refused in linear time.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from generators.answers import ANSWER_ERRORS

Grid = tuple[tuple[int, ...], ...]
"""Rows of colour numbers 0..9; 0 is the background."""
Rule = Callable[[Grid], "Grid | None"]
"""A candidate transformation; ``None`` when it does not apply to a grid."""

DIGITS = frozenset("0123456789")
DIGIT_BYTES = bytes(48 + b if b < 10 else b for b in range(256))
"""Colour 0..9 -> its digit character; byte 10 (the row break) stays a newline."""
_STRIP = str.maketrans("", "", "[]|")
_SEPARATORS = str.maketrans(",\t", "  ")
_ROW_NOISE = str.maketrans("", "", "[]|, \t`")
_HEADERS = ("final answer", "answer", "output", "test output")


def render(grid: Grid) -> str:
    """Rows as lines, cells as digits separated by single spaces (the gold form).

    Built with byte operations (row breaks as byte 10, then one join), not per cell.
    """
    flat = bytearray()
    for row in grid:
        flat += bytes(row)
        flat.append(10)
    return " ".join(flat[:-1].translate(DIGIT_BYTES).decode()).replace(" \n ", "\n")


def render_text(rows: Sequence[str]) -> str:
    """A picture whose cells are single characters, rows written without separators."""
    return "\n".join(rows)


ANSWER_FORM = (
    "Give the output grid for the test input: one row per line, the digits separated by single "
    "spaces, exactly in the form of the example outputs, and nothing after it."
)
"""The last line of every ARC question: how the output grid is written."""


def examples_question(intro: str, pairs: Sequence[tuple[Grid, Grid]], test: Grid) -> str:
    """The ARC layout: numbered input/output examples, then the test input and the answer form."""
    parts = [intro, ""]
    for number, (given, result) in enumerate(pairs, 1):
        parts += [f"Example {number}", "Input:", render(given), "Output:", render(result), ""]
    parts += ["Test input:", render(test), "", ANSWER_FORM]
    return "\n".join(parts)


ARC_INTRO = (
    "Each grid below is a picture: each digit is a colour (0 is the background) and each line a row. "
    "Find the common rule that turns every example input into its output, then apply it to the test input."
)


def identifiable(rules: Sequence[Rule], pairs: Sequence[tuple[Grid, Grid]], test: Grid, answer: Grid) -> bool:
    """True when every rule of the family's rule set that fits all examples gives ``answer``.

    The examples then determine the test output within the rule set, whichever rule a
    solver induces. The first example is checked first: most rules fail it at once.
    """
    return not any(all(rule(given) == result for given, result in pairs) and rule(test) != answer for rule in rules)


@functools.lru_cache(maxsize=128)
def _byte_table(count: int, threshold: int) -> bytes:
    """Random byte -> 0 (background) below ``threshold``, else a colour index 1..count."""
    return bytes(0 if byte < threshold else 1 + byte % count for byte in range(256))


def random_grid(rng: random.Random, rows: int, cols: int, colours: Sequence[int], density: float) -> Grid:
    """Background with about ``density`` of cells in random ``colours``.

    One ``randbytes`` call mapped through byte tables: a per-cell ``rng`` call is what made
    generation slow, and the table's rounding only nudges the colour shares.
    """
    indices = bytes.maketrans(bytes(range(len(colours) + 1)), bytes((0, *colours)))
    table = _byte_table(len(colours), round(256 * (1.0 - density))).translate(indices)
    cells = rng.randbytes(rows * cols).translate(table)
    return tuple(tuple(cells[r * cols : (r + 1) * cols]) for r in range(rows))


def plant(rng: random.Random, grid: Grid, colours: Sequence[int]) -> Grid:
    """``grid`` with one cell of each of ``colours`` at distinct random positions."""
    cols = len(grid[0])
    cells = [cell for row in grid for cell in row]
    for position, colour in zip(rng.sample(range(len(cells)), len(colours)), colours, strict=True):
        cells[position] = colour
    return tuple(tuple(cells[r * cols : (r + 1) * cols]) for r in range(len(grid)))


def _row_like(line: str, alphabet: frozenset[str]) -> bool:
    core = line.translate(_ROW_NOISE)
    return bool(core) and all(char in alphabet for char in core)


def _row(line: str, alphabet: frozenset[str]) -> tuple[str, ...] | None:
    """One row's cells: separated by spaces/commas, or written side by side."""
    text = line.translate(_STRIP).strip().strip("`").strip()
    if text.endswith(","):
        text = text[:-1].rstrip()
    if not text:
        return None
    if any(sep in text for sep in " ,\t"):
        cells = text.translate(_SEPARATORS).split()
        if any(len(cell) != 1 for cell in cells):
            return None
    else:
        cells = list(text)
    if not all(cell in alphabet for cell in cells):
        return None
    return tuple(cells)


def _header_rest(line: str) -> str | None:
    """The text after an "Answer:"/"Output:" header, or None when the line is no header."""
    stripped = line.strip().lstrip("*#>_ ")  # markdown decoration in front; '#' may end a row
    lower = stripped.lower()
    for header in _HEADERS:
        if lower.startswith(header):
            rest = stripped[len(header) :].lstrip(" *_")
            if rest[:1] in (":", "="):
                return rest[1:].strip(" *_")
            if not rest:
                return ""
    return None


def _rows(lines: Sequence[str], alphabet: frozenset[str]) -> tuple[tuple[str, ...], ...] | None:
    out = []
    for line in lines:
        for piece in line.replace("],", "]\n").split("\n"):
            if not piece.strip():
                continue
            row = _row(piece, alphabet)
            if row is None:
                return None
            out.append(row)
    return tuple(out) or None


def _tagged(text: str) -> str | None:
    """The last ``<answer>...</answer>`` content, else the last ``\\boxed{...}`` one, or None.

    The same places ``extract_answer`` looks, found with ``rfind`` only; its clean-up is not
    applied, as it drops a trailing period, which in a picture is a cell. A grid holds no
    braces, so a box runs to the last closing brace.
    """
    lowered = text.lower()
    close = lowered.rfind("</answer>")
    if close != -1:
        start = lowered.rfind("<answer>", 0, close)
        if start != -1:
            return text[start + len("<answer>") : close]
    start = max(text.rfind("\\boxed{"), text.rfind("\\fbox{"))
    if start == -1:
        return None
    begin = text.index("{", start) + 1
    close = text.rfind("}")
    return text[begin:close] if close >= begin else None


def parse_answer_grid(
    answer_text: Any, alphabet: frozenset[str], max_rows: int, max_chars: int
) -> tuple[tuple[str, ...], ...] | None:
    """The grid a response ends with, as rows of cell characters, or None.

    A tagged (``<answer>``) or boxed answer is read whole and must be nothing but rows
    (code fences and an "Answer:" header allowed). Otherwise the trailing block of row lines
    is the answer. Only the last ``max_chars`` characters are looked at, and a block of more
    than ``max_rows`` lines is refused unread.
    """
    if not isinstance(answer_text, str):
        return None
    tail = answer_text[-max_chars:]
    content = _tagged(tail)
    if content is not None:
        lines = [line for line in content.splitlines() if line.strip() and not line.strip().startswith("```")]
        if lines and not _row_like(lines[0], alphabet):
            rest = _header_rest(lines[0])
            if rest is None:
                return None
            lines = [rest, *lines[1:]] if rest else lines[1:]
        if not lines or len(lines) > max_rows:
            return None
        return _rows(lines, alphabet)
    lines = tail.splitlines()
    end = len(lines)
    while end and (not lines[end - 1].strip() or lines[end - 1].strip().startswith("```")):
        end -= 1
    start = end
    while start and _row_like(lines[start - 1], alphabet):
        start -= 1
        if end - start > max_rows:
            return None
    block = lines[start:end]
    if start:
        rest = _header_rest(lines[start - 1])
        if rest and _row_like(rest, alphabet):
            block = [rest, *block]
    if not block or len(block) > max_rows:
        return None
    return _rows(block, alphabet)


def score_grid(answer_text: Any, item: Mapping[str, Any], alphabet: frozenset[str] = DIGITS) -> float:
    """1.0 when the response's grid equals the gold grid cell for cell, else 0.0."""
    try:
        gold_text = str(item["answer"])
        gold = _rows(gold_text.splitlines(), alphabet)
        if gold is None:
            return 0.0
        got = parse_answer_grid(answer_text, alphabet, len(gold) + 2, 4 * len(gold_text) + 1024)
        return 1.0 if got == gold else 0.0
    except ANSWER_ERRORS:
        return 0.0
