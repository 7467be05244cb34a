"""Area of the largest island in a grid of land (1) and water (0).

An island is a group of land cells connected up, down, left or right (not diagonally).
The grid's land share is drawn per item across the range where islands start to merge,
so the largest one is neither a single cell nor the whole map, and its area varies widely
from item to item (no constant answer pays). Harder levels use larger grids, where islands are long and winding and a
diagonal contact (which does not connect) is easy to miscount.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "largest_island"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"min_size": (3, 30), "max_size": (3, 30), "min_land": (0.05, 0.9), "max_land": (0.05, 0.9)}

    min_size: int = 5
    max_size: int = 6
    min_land: float = 0.35
    max_land: float = 0.55

    def check(self) -> None:
        if self.min_size > self.max_size:
            raise ValueError("Config.min_size must be <= max_size")
        if self.min_land > self.max_land:
            raise ValueError("Config.min_land must be <= max_land")


LEVELS = (
    {"min_size": 6, "max_size": 7, "min_land": 0.3, "max_land": 0.75},
    {"min_size": 6, "max_size": 8, "min_land": 0.3, "max_land": 0.75},
    {"min_size": 7, "max_size": 9, "min_land": 0.35, "max_land": 0.75},
    {"min_size": 8, "max_size": 10, "min_land": 0.35, "max_land": 0.75},
    {"min_size": 10, "max_size": 12, "min_land": 0.4, "max_land": 0.75},
    {"min_size": 12, "max_size": 15, "min_land": 0.4, "max_land": 0.75},
)


def largest_area(grid: list[list[int]]) -> int:
    height, width = len(grid), len(grid[0])
    seen = [[False] * width for _ in range(height)]
    best = 0
    for r in range(height):
        for c in range(width):
            if grid[r][c] != 1 or seen[r][c]:
                continue
            seen[r][c] = True
            stack, area = [(r, c)], 0
            while stack:
                y, x = stack.pop()
                area += 1
                for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                    if 0 <= ny < height and 0 <= nx < width and grid[ny][nx] == 1 and not seen[ny][nx]:
                        seen[ny][nx] = True
                        stack.append((ny, nx))
            best = max(best, area)
    return best


def generate(config: Config, rng: random.Random) -> Problem:
    height = rng.randint(config.min_size, config.max_size)
    width = rng.randint(config.min_size, config.max_size)
    land = rng.uniform(config.min_land, config.max_land)
    grid = [[1 if rng.random() < land else 0 for _ in range(width)] for _ in range(height)]
    if not any(v for row in grid for v in row):
        grid[rng.randrange(height)][rng.randrange(width)] = 1
    drawing = "\n".join(" ".join(str(v) for v in row) for row in grid)
    question = (
        f"In the {height}x{width} grid below, 1 is land and 0 is water. An island is a group of land cells "
        "connected horizontally or vertically (not diagonally). The area of an island is its number of cells.\n\n"
        f"{drawing}\n\n"
        "What is the area of the largest island? Give a single integer."
    )
    return Problem(question, str(largest_area(grid)), {"grid": grid})


FAMILY = Family(
    name=NAME,
    description="Area of the largest 4-connected island in a 0/1 grid.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
    counterpart="reasoning_gym:largest_island",
)
