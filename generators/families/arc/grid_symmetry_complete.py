"""ARC-style: restore the hidden part of a symmetric picture.

Each grid is mirror-symmetric (left-right, top-bottom, or both ways) except where blocks
of a mask colour hide it; the output is the whole picture with the mask gone. Which
symmetry holds is for the solver to find: the item is redrawn unless every symmetry of
the set (left-right, top-bottom, both, half turn) that restores all the examples restores
the test the same way, and the true one can restore every hidden cell (no hidden cell
whose mirror images are all hidden too). Harder levels allow more symmetry types, larger
grids, more colours and more, larger hidden blocks.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._grids import ARC_INTRO, Grid, examples_question, identifiable, random_grid, render, score_grid

NAME = "grid_symmetry_complete"

_TYPE_SETS = {"lr": ("lr",), "lr_tb": ("lr", "tb"), "all": ("lr", "tb", "both")}
_IMAGES = {"lr": ("lr",), "tb": ("tb",), "both": ("lr", "tb", "half"), "half": ("half",)}
"""The mirror maps each symmetry offers for looking up a hidden cell."""


def _image(kind: str, r: int, c: int, rows: int, cols: int) -> tuple[int, int]:
    if kind == "lr":
        return r, cols - 1 - c
    if kind == "tb":
        return rows - 1 - r, c
    return rows - 1 - r, cols - 1 - c


def restore(grid: Grid, symmetry: str, mask: int) -> Grid | None:
    """Every ``mask`` cell replaced by a visible mirror image, or None if one has none."""
    rows, cols = len(grid), len(grid[0])
    out = list(grid)
    for r, row in enumerate(grid):
        if mask not in row:  # most rows hold no hidden cell: skip them whole
            continue
        line = list(row)
        for c, cell in enumerate(row):
            if cell != mask:
                continue
            for kind in _IMAGES[symmetry]:
                y, x = _image(kind, r, c, rows, cols)
                if grid[y][x] != mask:
                    line[c] = grid[y][x]
                    break
            else:
                return None
        out[r] = tuple(line)
    return tuple(out)


def symmetric(rng: random.Random, rows: int, cols: int, kind: str, colours: list[int]) -> Grid:
    """A random picture with the ``kind`` symmetry (``lr``, ``tb`` or ``both``)."""
    half_rows = (rows + 1) // 2 if kind in ("tb", "both") else rows
    half_cols = (cols + 1) // 2 if kind in ("lr", "both") else cols
    part = random_grid(rng, half_rows, half_cols, colours, 0.6)
    if kind in ("lr", "both"):
        part = tuple(row + row[: cols - half_cols][::-1] for row in part)
    if kind in ("tb", "both"):
        part = part + part[: rows - half_rows][::-1]
    return part


@dataclass(frozen=True)
class Config(Knobs):
    min_size: int = 6
    max_size: int = 6
    colours: int = 2
    blocks: int = 1
    max_block: int = 2
    """Hidden blocks are up to max_block x max_block cells."""
    types: str = "lr"
    """Symmetries drawn from: ``lr``, ``lr_tb`` or ``all`` (adds both ways at once)."""
    examples: int = 3

    RANGES: ClassVar = {
        "min_size": (4, 14),
        "max_size": (4, 14),
        "colours": (1, 8),
        "blocks": (1, 4),
        "max_block": (1, 6),
        "examples": (2, 5),
    }

    def check(self) -> None:
        if self.min_size > self.max_size:
            raise ValueError("grid_symmetry_complete: min_size must be <= max_size")
        if self.types not in _TYPE_SETS:
            raise ValueError(f"grid_symmetry_complete: types must be one of {', '.join(_TYPE_SETS)}")


LEVELS = (
    {"min_size": 6, "max_size": 6, "colours": 2, "blocks": 1, "max_block": 2, "types": "lr"},
    {"min_size": 6, "max_size": 7, "colours": 3, "blocks": 1, "max_block": 2, "types": "lr_tb"},
    {"min_size": 6, "max_size": 8, "colours": 3, "blocks": 1, "max_block": 3, "types": "all"},
    {"min_size": 7, "max_size": 9, "colours": 4, "blocks": 2, "max_block": 3, "types": "all"},
    {"min_size": 8, "max_size": 10, "colours": 5, "blocks": 2, "max_block": 3, "types": "all"},
    {"min_size": 9, "max_size": 11, "colours": 6, "blocks": 3, "max_block": 3, "types": "all"},
)

_ATTEMPTS = 40
_CANDIDATES = ("lr", "tb", "both", "half")


def _masked(rng: random.Random, picture: Grid, config: Config, mask: int, kind: str) -> Grid | None:
    """``picture`` with hidden blocks that its own symmetry can restore, or None."""
    rows, cols = len(picture), len(picture[0])
    for _ in range(_ATTEMPTS):
        cells = [list(row) for row in picture]
        for _ in range(config.blocks):
            h, w = rng.randint(1, config.max_block), rng.randint(1, config.max_block)
            top, left = rng.randint(0, rows - h), rng.randint(0, cols - w)
            for r in range(top, top + h):
                cells[r][left : left + w] = [mask] * w
        hidden = tuple(tuple(row) for row in cells)
        if restore(hidden, kind, mask) == picture:
            return hidden
    return None


def generate(config: Config, rng: random.Random) -> Problem:
    kinds = _TYPE_SETS[config.types]
    mask, *colours = rng.sample(range(1, 10), config.colours + 1)
    rivals = [lambda grid, s=s: restore(grid, s, mask) for s in _CANDIDATES]
    for _ in range(_ATTEMPTS):
        kind = rng.choice(kinds)
        low, high = config.min_size, config.max_size
        pictures = [
            symmetric(rng, rng.randint(low, high), rng.randint(low, high), kind, colours)
            for _ in range(config.examples + 1)
        ]
        drawn = [_masked(rng, picture, config, mask, kind) for picture in pictures]
        hidden = [grid for grid in drawn if grid is not None]
        if len(hidden) < len(pictures):
            continue  # some hidden cell kept no visible mirror image
        pairs = list(zip(hidden[:-1], pictures[:-1], strict=True))
        test, answer = hidden[-1], pictures[-1]
        if identifiable(rivals, pairs, test, answer):
            extra = {"symmetry": kind, "mask": mask}
            return Problem(examples_question(ARC_INTRO, pairs, test), render(answer), extra)
    raise ValueError("grid_symmetry_complete: no identifiable example set drawn")


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """The exact output grid, rows in order; digits may be spaced, comma separated or run together."""
    return score_grid(answer_text, item)


FAMILY = Family(
    name=NAME,
    description="ARC-style: a mirror-symmetric picture with hidden blocks, restored (symmetry induced from examples).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:rearc",
)
