"""A shortest route from S to G in a grid maze drawn as text, given as its moves.

Tests spatial search (breadth-first reasoning) over a 2D character grid. Harder levels are
larger mazes with more corridors and, crucially, more loops: a perfect maze has exactly one
route, but every wall knocked out adds alternatives, so the solver must compare routes
instead of just following the only one. Start and goal are drawn far apart; the maze is
connected, so a route always exists.

The answer is the route itself as U/D/L/R letters, replayed on the grid by the scorer: it
must stay on open floor, end on G and be as short as breadth-first search says. Any
shortest route is right. Asking for the route rather than its length matters because
step counts cluster on a few values that one constant answer would often hit.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
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

MOVES: dict[str, Pos] = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
"""Letter -> (row, column) offset; the order is the one the gold route prefers."""
_SEPARATORS = str.maketrans("", "", " \t\n,;-")


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
            inside = 0 <= nr < len(grid) and 0 <= nc < len(grid[nr])
            if inside and grid[nr][nc] != WALL and (nr, nc) not in dist:
                dist[(nr, nc)] = dist[(r, c)] + 1
                queue.append((nr, nc))
    return dist


def shortest_route(grid: list[list[str]], start: Pos, goal: Pos) -> str:
    """One shortest route as move letters: walk from ``start`` down the distances to ``goal``."""
    to_goal = bfs_distances(grid, goal)
    route, here = [], start
    while here != goal:
        for letter, (dr, dc) in MOVES.items():
            step = (here[0] + dr, here[1] + dc)
            if to_goal.get(step) == to_goal[here] - 1:
                route.append(letter)
                here = step
                break
        else:  # unreachable: bfs_distances covers every square connected to the goal
            raise ValueError("maze: no route from S to G")
    return "".join(route)


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
        "Give a shortest route from S to G, as the sequence of moves written as letters: U (up), D (down), "
        "L (left), R (right), one letter per step, with nothing between them (for example RRDDLU). "
        "If several routes are shortest, any one of them is right. Answer with the letters only."
    )
    route = shortest_route(grid, start, goal)
    if len(route) != dist[goal]:
        raise ValueError("maze: reconstructed route disagrees with the distance")
    return Problem(question=question, answer=route, extra={"cells": cells, "grid": drawing.splitlines()})


def _moves(answer_text: str, most: int) -> str | None:
    """The answer's move letters (case and spaces/commas between them forgiven), or None."""
    from generators.answers import extract_answer

    text = extract_answer(answer_text)
    if len(text) > 4 * most + 16:  # far longer than any route: refuse before any work
        return None
    letters = text.translate(_SEPARATORS).upper()
    if not letters or any(letter not in MOVES for letter in letters):
        return None
    return letters


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 for any shortest route: replayed from S it stays on open floor, ends on G and has
    the breadth-first distance as its length. A length alone or a constant route scores 0."""
    try:
        meta = item.get("metadata") or item.get("extra") or {}
        rows = [str(row) for row in meta["grid"]]
        grid = [list(row) for row in rows]
        start = next((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "S")
        goal = next((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "G")
        moves = _moves(answer_text, len(rows) * len(rows[0]))
        # The gold is a shortest route (generate checks it against the BFS distance), so its
        # length is the distance: no search per scored answer.
        if moves is None or len(moves) != len(str(item["answer"])):
            return 0.0
        r, c = start
        for letter in moves:
            dr, dc = MOVES[letter]
            r, c = r + dr, c + dc
            if not (0 <= r < len(grid) and 0 <= c < len(grid[r])) or grid[r][c] == WALL:
                return 0.0
        return 1.0 if (r, c) == goal else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """The gold route one step short (stops before G) and with a detour (reaches G, too long)."""
    gold = str(item["answer"])
    back = {"U": "D", "D": "U", "L": "R", "R": "L"}[gold[-1]]
    return [gold[:-1] or "U", gold + back + gold[-1]]


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:maze",
    description="A shortest route from S to G in a text grid maze as U/D/L/R moves (any one, replayed).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
)
