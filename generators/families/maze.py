"""Shortest path length between S and G in a grid maze drawn as text.

Tests spatial search (breadth-first reasoning) over a 2D character grid. Harder levels are
larger mazes with more corridors and, crucially, more loops: a perfect maze has exactly one
route, but every wall knocked out adds alternatives, so the solver must compare routes
instead of just following the only one. Start and goal are drawn far apart. The answer is
computed by breadth-first search and is always finite (the maze is connected).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "maze"

WALL, OPEN = "#", "."


@dataclass(frozen=True)
class Config(Knobs):
    min_cells: int = 3
    max_cells: int = 4
    """The maze has cells x cells rooms, drawn as a (2*cells+1)-square character grid."""
    loop_fraction: float = 0.3
    """Share of the remaining inner walls between rooms that are knocked out to create loops."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "min_cells": (2, 20),
        "max_cells": (2, 20),
        "loop_fraction": (0.0, 1.0),
    }

    def check(self) -> None:
        if self.min_cells > self.max_cells:
            raise ValueError("maze: min_cells must be <= max_cells")


LEVELS: tuple[dict[str, object], ...] = (
    {"min_cells": 3, "max_cells": 3, "loop_fraction": 0.0},
    {"min_cells": 4, "max_cells": 5, "loop_fraction": 0.1},
    {"min_cells": 5, "max_cells": 6, "loop_fraction": 0.15},
    {"min_cells": 6, "max_cells": 8, "loop_fraction": 0.2},
    {"min_cells": 8, "max_cells": 10, "loop_fraction": 0.25},
    {"min_cells": 10, "max_cells": 12, "loop_fraction": 0.3},
)

Pos = tuple[int, int]


def carve(cells: int, loop_fraction: float, rng: random.Random) -> list[list[str]]:
    """A perfect maze by randomised depth-first search, then extra walls removed for loops."""
    size = 2 * cells + 1
    grid = [[WALL] * size for _ in range(size)]
    start = (rng.randrange(cells), rng.randrange(cells))
    visited = {start}
    stack = [start]
    grid[2 * start[0] + 1][2 * start[1] + 1] = OPEN
    while stack:
        r, c = stack[-1]
        options = [
            (r + dr, c + dc)
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < cells and 0 <= c + dc < cells and (r + dr, c + dc) not in visited
        ]
        if not options:
            stack.pop()
            continue
        nr, nc = rng.choice(options)
        grid[r + nr + 1][c + nc + 1] = OPEN  # the wall between (r, c) and (nr, nc)
        grid[2 * nr + 1][2 * nc + 1] = OPEN
        visited.add((nr, nc))
        stack.append((nr, nc))
    inner = [
        (r, c) for r in range(1, size - 1) for c in range(1, size - 1) if grid[r][c] == WALL and (r % 2) != (c % 2)
    ]
    for r, c in rng.sample(inner, round(loop_fraction * len(inner))):
        grid[r][c] = OPEN
    return grid


def bfs_distances(grid: list[list[str]], source: Pos) -> dict[Pos, int]:
    """Moves from ``source`` to every reachable open square (4-neighbourhood)."""
    dist = {source: 0}
    queue = deque([source])
    while queue:
        r, c = queue.popleft()
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if grid[nr][nc] != WALL and (nr, nc) not in dist:
                dist[(nr, nc)] = dist[(r, c)] + 1
                queue.append((nr, nc))
    return dist


def generate(config: Config, rng: random.Random) -> Problem:
    cells = rng.randint(config.min_cells, config.max_cells)
    grid = carve(cells, config.loop_fraction, rng)
    rooms = [(2 * r + 1, 2 * c + 1) for r in range(cells) for c in range(cells)]
    start = rng.choice(rooms)
    dist = bfs_distances(grid, start)
    # Goal among the farthest third of rooms, so the path crosses a good part of the maze.
    ranked = sorted(rooms, key=lambda p: (dist[p], p))
    goal = rng.choice(ranked[2 * len(ranked) // 3 :])
    grid[start[0]][start[1]] = "S"
    grid[goal[0]][goal[1]] = "G"
    drawing = "\n".join("".join(row) for row in grid)
    question = (
        "In the maze below, '#' is a wall, '.' is open floor, S is the start and G is the goal. "
        "You can move one square up, down, left or right per step, never through walls.\n\n"
        f"{drawing}\n\n"
        "What is the minimum number of steps needed to go from S to G? Answer with a single integer."
    )
    return Problem(question=question, answer=str(dist[goal]), extra={"cells": cells})


FAMILY = Family(
    name=NAME,
    description="Shortest path length from S to G in a text grid maze (BFS), with loops at higher levels.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
)
