"""Checks shared by the tests of the grid-answer families (ARC-style and pictures).

``examples_of`` reads an ARC-style question back into its example pairs and test input, so a
test can re-check the rule independently of the generator. ``assert_grid_exploits`` puts
one item through the answer forms the question allows (all 1.0) and the exploits (all 0.0):
a changed cell, a missing row, swapped rows, stuffed and listed candidates, trailing
retractions and a megabyte of rows.
"""

from __future__ import annotations

import time
from typing import Any

from generators.dataset import score

Grid = tuple[tuple[int, ...], ...]


def grid_of(text: str) -> Grid:
    return tuple(tuple(int(cell) for cell in line.split()) for line in text.strip().splitlines())


def examples_of(question: str) -> tuple[list[tuple[Grid, Grid]], Grid]:
    """(example pairs, test input) parsed from the question text."""
    pairs: list[tuple[Grid, Grid]] = []
    blocks = question.split("\n\n")
    test: Grid = ()
    for index, block in enumerate(blocks):
        lines = block.splitlines()
        if lines and lines[0].startswith("Example "):
            out_at = lines.index("Output:")
            pairs.append((grid_of("\n".join(lines[2:out_at])), grid_of("\n".join(lines[out_at + 1 :]))))
        elif lines and lines[0] == "Test input:":
            test = grid_of("\n".join(lines[1:]))
            assert index == len(blocks) - 2
    return pairs, test


def _change_cell(gold: str, cell_chars: str) -> str:
    rows = gold.splitlines()
    last = rows[-1]
    position = len(last) - 1
    replacement = cell_chars[1] if last[position] == cell_chars[0] else cell_chars[0]
    rows[-1] = last[:position] + replacement
    return "\n".join(rows)


def assert_grid_exploits(name: str, item: dict[str, Any], cell_chars: str = "01", spaced: bool = True) -> None:
    """Every allowed form of the gold scores 1.0 and every exploit of it 0.0."""
    gold = item["answer"]
    rows = gold.splitlines()
    sep = " " if spaced else ""
    joined = ["".join(row.split()) for row in rows]
    good = [
        gold,
        f"Some thinking.\n\nAnswer:\n{gold}\n",
        f"<answer>\n{gold}\n</answer>",
        f"```\n{gold}\n```",
        "\n".join(joined),
        "\n".join(", ".join(row) for row in joined),
        "[" + ", ".join("[" + ", ".join(row) + "]" for row in joined) + "]",
        f"Output: {rows[0]}\n" + "\n".join(rows[1:]),
    ]
    for form in good:
        assert score(name, form, item) == 1.0, form
    wrong = _change_cell(gold, cell_chars)
    bad = [
        wrong,
        "\n".join(rows[:-1]) or "x",  # a missing row
        "\n".join(rows[1:] + rows[:1]) if len(set(rows)) > 1 else wrong,  # rows out of order
        f"{gold}\n{wrong}",  # two grids run together
        f"<answer>{gold}\n\n{wrong}</answer>",  # two candidates in one answer
        f"{gold}\n\n{wrong}",  # the last grid written is the answer
        f"{gold}\nNo, that is wrong; I am not sure.",
        f"{gold}, {wrong}",
        f"{gold} or {wrong}",
        "\n".join(row + sep + row[-1] for row in rows),  # an extra column
        gold.replace(" ", " ;") if spaced else gold + ";",
    ]
    for form in bad:
        assert score(name, form, item) == 0.0, form
    started = time.perf_counter()
    for huge in (
        (gold + "\n") * ((1 << 20) // max(1, len(gold))),
        "<answer>" + "1 " * 500_000 + "</answer>",
        "7" * 1_000_000,
    ):
        assert score(name, huge, item) == 0.0
    assert time.perf_counter() - started < 1.0
