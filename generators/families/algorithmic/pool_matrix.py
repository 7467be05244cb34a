"""Max or average pooling of a matrix with a square kernel and stride equal to its size.

The matrix is cut into non-overlapping k x k blocks (its sides are multiples of k) and
each block is replaced by its maximum or its average. Averages use 2x2 blocks only, so
every value is an exact quarter (``4.25``). Harder levels use larger matrices, 3x3 max
blocks and mixes of both operations.

The answer is the pooled matrix, read like any matrix answer (``_grid``), compared by
exact value (``4.5`` and ``4.50`` agree; ``4.3`` for ``4.25`` does not).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._grid import format_matrix, score_matrix, show_matrix

NAME = "pool_matrix"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"min_blocks": (1, 8), "max_blocks": (1, 8), "max_value": (9, 999), "average_share": (0.0, 1.0)}

    min_blocks: int = 2
    max_blocks: int = 2
    """Blocks along each side of the matrix."""
    max_value: int = 9
    average_share: float = 0.0
    large_kernel: bool = False
    """Whether 3x3 max pooling is drawn as well as 2x2."""

    def check(self) -> None:
        if self.min_blocks > self.max_blocks:
            raise ValueError("Config.min_blocks must be <= max_blocks")
        if not isinstance(self.large_kernel, bool):
            raise ValueError(f"Config.large_kernel must be a bool, got {self.large_kernel!r}")


LEVELS = (
    {"min_blocks": 2, "max_blocks": 2, "max_value": 20, "average_share": 0.0},
    {"min_blocks": 2, "max_blocks": 3, "max_value": 20, "average_share": 0.3},
    {"min_blocks": 2, "max_blocks": 3, "max_value": 50, "average_share": 0.5, "large_kernel": True},
    {"min_blocks": 3, "max_blocks": 4, "max_value": 99, "average_share": 0.5, "large_kernel": True},
    {"min_blocks": 3, "max_blocks": 5, "max_value": 99, "average_share": 0.5, "large_kernel": True},
    {"min_blocks": 4, "max_blocks": 6, "max_value": 999, "average_share": 0.5, "large_kernel": True},
)


def pool(rows: list[list[int]], kernel: int, mode: str) -> list[list[Fraction]]:
    out = []
    for r in range(0, len(rows), kernel):
        row = []
        for c in range(0, len(rows[0]), kernel):
            block = [rows[r + i][c + j] for i in range(kernel) for j in range(kernel)]
            row.append(Fraction(max(block)) if mode == "max" else Fraction(sum(block), len(block)))
        out.append(row)
    return out


def generate(config: Config, rng: random.Random) -> Problem:
    mode = "average" if rng.random() < config.average_share else "max"
    kernel = 3 if mode == "max" and config.large_kernel and rng.random() < 0.5 else 2
    height = kernel * rng.randint(config.min_blocks, config.max_blocks)
    width = kernel * rng.randint(config.min_blocks, config.max_blocks)
    matrix = [[rng.randint(0, config.max_value) for _ in range(width)] for _ in range(height)]
    what = "maximum" if mode == "max" else "average (mean)"
    question = (
        f"Apply {mode} pooling to the {height}x{width} matrix below with a {kernel}x{kernel} kernel and stride "
        f"{kernel}: split it into non-overlapping {kernel}x{kernel} blocks and replace each block by its {what}.\n\n"
        f"{show_matrix(matrix)}\n\n"
        "Give the pooled matrix as a list of rows, for example [[4, 7.5], [2.25, 9]]; write averages exactly "
        "as decimals."
    )
    return Problem(
        question, format_matrix(pool(matrix, kernel, mode)), {"matrix": matrix, "kernel": kernel, "mode": mode}
    )


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the response's matrix equals the pooled one, value for value."""
    return score_matrix(answer_text, item)


FAMILY = Family(
    name=NAME,
    description="Max or average pooling of a matrix in non-overlapping 2x2 or 3x3 blocks (exact values).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:pool_matrix",
)
