"""ARC-style on one row: induce a hidden rule (shift, mirror, slide to a wall, recolour, fill
between two marks, stretch to an edge) from example rows and apply it to a test row.

This is the one-dimensional corner of ARC: few cells, but the same induction. Each item
draws one rule and its parameter; every rule of the whole set (all shifts up to four,
both walls and edges, every recolouring, the mirror, the fill and the identity) is tried
on the examples, and the item is redrawn unless all that fit agree on the test row.
Harder levels use longer rows, longer blocks, larger shifts and a second block that
every rule must carry along.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._grids import ANSWER_FORM, ARC_INTRO, DIGIT_BYTES, score_grid

NAME = "arc_1d"

Row = tuple[int, ...]
RULES = ("shift", "mirror", "slide", "recolour", "fill", "stretch")


def shifted(row: Row, k: int) -> Row | None:
    """Everything moved ``k`` cells right (left if negative); None if a cell would leave."""
    if k > 0:
        return None if any(row[-k:]) else (0,) * k + row[:-k]
    return None if any(row[:-k]) else row[-k:] + (0,) * -k


def slid(row: Row, right: bool) -> Row:
    cells = tuple([cell for cell in row if cell])
    pad = (0,) * (len(row) - len(cells))
    return pad + cells if right else cells + pad


def recoloured(row: Row, colour: int) -> Row:
    return tuple([colour if cell else 0 for cell in row])


def _ends(row: Row) -> tuple[int, int] | None:
    """The first and last coloured cell's index, or None for an all-0 row.

    Read from the row as bytes (``lstrip`` / ``rstrip`` of the 0s, in C) rather than a list
    of every coloured index; a cell outside 0..255 (never a colour) takes the list."""
    try:
        cells = bytes(row)
    except ValueError:
        marks = [i for i, cell in enumerate(row) if cell]
        return (marks[0], marks[-1]) if marks else None
    end = len(cells.rstrip(b"\0"))
    if not end:
        return None
    return len(row) - len(cells.lstrip(b"\0")), end - 1


def filled(row: Row) -> Row | None:
    """The gap between the first and last coloured cell filled, when both share a colour."""
    ends = _ends(row)
    if ends is None:
        return None
    first, last = ends
    if row[first] != row[last]:
        return None
    return row[:first] + (row[first],) * (last - first + 1) + row[last + 1 :]


def stretched(row: Row, right: bool) -> Row | None:
    """The run from the first (last) coloured cell extended to the right (left) edge."""
    ends = _ends(row)
    if ends is None:
        return None
    if right:
        first = ends[0]
        return row[:first] + (row[first],) * (len(row) - first)
    last = ends[1]
    return (row[last],) * (last + 1) + row[last + 1 :]


def _shift_by(k: int) -> Callable[[Row], Row | None]:
    return lambda row: shifted(row, k)


def _slide_to(right: bool) -> Callable[[Row], Row | None]:
    return lambda row: slid(row, right)


def _stretch_to(right: bool) -> Callable[[Row], Row | None]:
    return lambda row: stretched(row, right)


def _recolour_to(colour: int) -> Callable[[Row], Row | None]:
    return lambda row: recoloured(row, colour)


def _identity(row: Row) -> Row | None:
    return row


def _mirror(row: Row) -> Row | None:
    return row[::-1]


def candidates(max_shift: int) -> list[Callable[[Row], Row | None]]:
    """Every rule of the set with every parameter: the rivals an item must rule out."""
    out: list[Callable[[Row], Row | None]] = [_identity, _mirror, filled]
    out += [_shift_by(k) for k in range(-max_shift, max_shift + 1) if k]
    out += [_slide_to(right) for right in (True, False)]
    out += [_stretch_to(right) for right in (True, False)]
    out += [_recolour_to(colour) for colour in range(1, 10)]
    return out


@dataclass(frozen=True)
class Config(Knobs):
    min_length: int = 8
    max_length: int = 10
    max_block: int = 3
    max_shift: int = 1
    blocks: int = 1
    """Coloured blocks in a row (rules that need one block still draw one)."""
    examples: int = 3

    RANGES: ClassVar = {
        "min_length": (6, 40),
        "max_length": (6, 40),
        "max_block": (1, 10),
        "max_shift": (1, 4),
        "blocks": (1, 3),
        "examples": (2, 5),
    }

    def check(self) -> None:
        if self.min_length > self.max_length:
            raise ValueError("arc_1d: min_length must be <= max_length")
        if self.blocks * (self.max_block + 1) + 2 * self.max_shift > self.min_length:
            raise ValueError("arc_1d: rows are too short for the blocks and shifts")


LEVELS = (
    {"min_length": 8, "max_length": 10, "max_block": 3, "max_shift": 1, "blocks": 1},
    {"min_length": 10, "max_length": 14, "max_block": 4, "max_shift": 2, "blocks": 1},
    {"min_length": 12, "max_length": 18, "max_block": 5, "max_shift": 3, "blocks": 1},
    {"min_length": 18, "max_length": 22, "max_block": 5, "max_shift": 3, "blocks": 2},
    {"min_length": 22, "max_length": 26, "max_block": 6, "max_shift": 4, "blocks": 2},
    {"min_length": 24, "max_length": 32, "max_block": 7, "max_shift": 4, "blocks": 2},
)

_ATTEMPTS = 60


def _row(rng: random.Random, length: int, blocks: int, max_block: int, margin: int, colour: int | None) -> Row:
    """``blocks`` runs of one colour each, at least one cell apart, ``margin`` cells from the ends."""
    # Each ``rng.randint`` with its draws inline (the same getrandbits calls).
    getrandbits = rng.getrandbits
    if blocks == 1:  # the same draws in the same order, the row built in one expression
        bits = max_block.bit_length()
        r = getrandbits(bits)
        while r >= max_block:
            r = getrandbits(bits)
        size = 1 + r
        span = length - 2 * margin - size + 1
        if span <= 0:
            raise ValueError("arc_1d: no room for the blocks")
        bits = span.bit_length()
        r = getrandbits(bits)
        while r >= span:
            r = getrandbits(bits)
        if colour is None:
            colour = getrandbits(4)
            while colour >= 9:
                colour = getrandbits(4)
            colour += 1
        start = margin + r
        return (0,) * start + (colour,) * size + (0,) * (length - start - size)
    cells = [0] * length
    bits = max_block.bit_length()
    sizes = []
    for _ in range(blocks):  # rng.randint(1, max_block)
        r = getrandbits(bits)
        while r >= max_block:
            r = getrandbits(bits)
        sizes.append(1 + r)
    free = length - 2 * margin - sum(sizes) - (blocks - 1)
    span = free + 1
    if span <= 0:  # as rng.randint(0, free) would (Config.check keeps free >= 1)
        raise ValueError("arc_1d: no room for the blocks")
    bits = span.bit_length()
    gaps = []
    for _ in range(blocks):  # rng.randint(0, free)
        r = getrandbits(bits)
        while r >= span:
            r = getrandbits(bits)
        gaps.append(r)
    gaps.sort()
    position = margin
    previous = 0
    for size, gap in zip(sizes, gaps, strict=True):
        position += gap - previous
        previous = gap
        if colour is None:  # rng.randint(1, 9)
            r = getrandbits(4)
            while r >= 9:
                r = getrandbits(4)
            paint = 1 + r
        else:
            paint = colour
        cells[position : position + size] = [paint] * size
        position += size + 1
    return tuple(cells)


def _pair_row(rng: random.Random, length: int, max_block: int) -> Row:
    """Two marks of one colour with a gap between them (the fill rule's input)."""
    span = rng.randint(3, min(length, 2 * max_block + 3))
    start = rng.randint(0, length - span)
    cells = [0] * length
    cells[start] = cells[start + span - 1] = rng.randint(1, 9)
    return tuple(cells)


def _draw(rng: random.Random, config: Config, rule: str, parameter: int) -> Row:
    # Each ``rng.randint`` with its draws inline (the same getrandbits calls).
    getrandbits = rng.getrandbits
    span = config.max_length - config.min_length + 1
    bits = span.bit_length()
    r = getrandbits(bits)
    while r >= span:
        r = getrandbits(bits)
    length = config.min_length + r
    if rule == "fill":
        return _pair_row(rng, length, config.max_block)
    if rule == "stretch":
        blocks = 1
    else:  # rng.randint(1, config.blocks)
        span = config.blocks
        bits = span.bit_length()
        r = getrandbits(bits)
        while r >= span:
            r = getrandbits(bits)
        blocks = 1 + r
    margin = abs(parameter) if rule == "shift" else 0
    colour: int | None = None
    if rule not in ("mirror", "slide", "shift"):  # rng.randint(1, 9)
        r = getrandbits(4)
        while r >= 9:
            r = getrandbits(4)
        colour = 1 + r
    return _row(rng, length, blocks, config.max_block, margin, colour)


def _apply(rule: str, parameter: int, row: Row) -> Row | None:
    if rule == "shift":
        return shifted(row, parameter)
    if rule == "mirror":
        return row[::-1]
    if rule == "slide":
        return slid(row, parameter > 0)
    if rule == "recolour":
        return recoloured(row, parameter)
    if rule == "fill":
        return filled(row)
    return stretched(row, parameter > 0)


@cache
def _rivals(max_shift: int) -> tuple[Callable[[Row], Row | None], ...]:
    """:func:`candidates` without the nine recolourings, built once per ``max_shift``
    (:func:`_identifiable` tries the one recolouring that can fit itself)."""
    return tuple(candidates(max_shift)[:-9])  # candidates lists the nine recolourings last


def _identifiable(
    rivals: tuple[Callable[[Row], Row | None], ...], rows: list[Row], outputs: list[Row], test: Row, answer: Row
) -> bool:
    """``_grids.identifiable`` on one-row grids over every candidate, read on the rows
    themselves: a rival fits when it maps every example row to its output, and must then
    give ``answer`` on ``test``.

    ``rivals`` are the candidates but the recolourings. Recolouring to ``c`` leaves only
    ``c`` and 0 in a row, so when the first example's output has a coloured cell only its
    colour can fit and the other eight are not tried (an all-0 output: all nine are); the
    verdict is the same as trying every candidate (a test checks this), for a ninth of
    the recolouring calls.
    """
    for rival in rivals:
        for row, out in zip(rows, outputs):
            if rival(row) != out:
                break
        else:
            if rival(test) != answer:
                return False
    first = outputs[0]
    colours = range(1, 10)
    for cell in first:
        if cell:
            colours = range(cell, cell + 1) if 0 < cell < 10 else range(0)
            break
    for colour in colours:
        for row, out in zip(rows, outputs):
            if recoloured(row, colour) != out:
                break
        else:
            if recoloured(test, colour) != answer:
                return False
    return True


def _render_row(row: Row) -> str:
    """``_grids.render((row,))`` for one row of colours 0..9: the digits, single spaces between."""
    return " ".join(bytes(row).translate(DIGIT_BYTES).decode())


def _question(rows: list[Row], outputs: list[Row], test: Row) -> str:
    """``examples_question(ARC_INTRO, pairs, (test,))`` for one-row grids, each row rendered by
    :func:`_render_row` without wrapping it in a grid (a test compares the two)."""
    parts = [ARC_INTRO, ""]
    for number, (given, result) in enumerate(zip(rows, outputs), 1):
        parts += [f"Example {number}", "Input:", _render_row(given), "Output:", _render_row(result), ""]
    parts += ["Test input:", _render_row(test), "", ANSWER_FORM]
    return "\n".join(parts)


def generate(config: Config, rng: random.Random) -> Problem:
    rivals = _rivals(config.max_shift)
    for _ in range(_ATTEMPTS):
        rule = rng.choice(RULES)
        parameter = rng.choice((-1, 1))
        if rule == "shift":
            parameter *= rng.randint(1, config.max_shift)
        elif rule == "recolour":
            parameter = rng.randint(1, 9)
        rows = [_draw(rng, config, rule, parameter) for _ in range(config.examples + 1)]
        outputs = [_apply(rule, parameter, row) for row in rows]
        done = [out for out, row in zip(outputs, rows, strict=True) if out is not None and out != row]
        if len(done) < len(rows):
            continue
        test, answer = rows[-1], done[-1]
        if _identifiable(rivals, rows[:-1], done[:-1], test, answer):
            extra = {"rule": rule, "parameter": parameter}
            return Problem(_question(rows[:-1], done[:-1], test), _render_row(answer), extra)
    raise ValueError("arc_1d: no identifiable example set drawn")


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """The exact output row; digits may be spaced, comma separated or run together."""
    return score_grid(answer_text, item)


FAMILY = Family(
    name=NAME,
    description="ARC-style on one row: shift, mirror, slide, recolour, fill or stretch induced from examples.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:arc_1d",
)
