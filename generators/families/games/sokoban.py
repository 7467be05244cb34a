"""Sokoban: push every box onto a goal square, answered as the player's moves.

Tests planning with irreversible actions (a box pushed into a corner is lost). Puzzles are
made backwards: boxes start on the goals and the player walks randomly, pulling boxes
behind it; the forward replay of that walk is a solution, and its length is the stated move
budget. Harder levels are larger rooms with more boxes, more inner walls and longer walks.
The scorer replays the answer (a move into a wall, or a push into a wall or another box,
fails it) and accepts any sequence within the budget that ends with every box on a goal.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer
from generators.base import Family, Knobs, Problem

NAME = "sokoban"

MOVES = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
_INVERSE = {"U": "D", "D": "U", "L": "R", "R": "L"}
_SEPARATORS = str.maketrans("", "", " \t\n,;-")
WALL, FLOOR, GOAL, BOX, BOX_ON_GOAL, PLAYER, PLAYER_ON_GOAL = "#", "_", "o", "B", "G", "P", "Q"


@dataclass(frozen=True)
class Config(Knobs):
    size: int = 5
    """Inner room is size x size (plus the outer wall)."""
    boxes: int = 1
    inner_walls: int = 0
    walk: int = 12
    """Length of the backward walk: the move budget."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "size": (3, 12),
        "boxes": (1, 6),
        "inner_walls": (0, 20),
        "walk": (4, 200),
    }

    def check(self) -> None:
        if self.boxes + self.inner_walls + 1 > self.size * self.size // 2:
            raise ValueError("sokoban: too many boxes and walls for the room")


LEVELS: tuple[dict[str, object], ...] = (
    {"size": 5, "boxes": 1, "inner_walls": 0, "walk": 10},
    {"size": 5, "boxes": 1, "inner_walls": 1, "walk": 16},
    {"size": 5, "boxes": 2, "inner_walls": 2, "walk": 24},
    {"size": 6, "boxes": 2, "inner_walls": 3, "walk": 32},
    {"size": 6, "boxes": 3, "inner_walls": 4, "walk": 40},
    {"size": 7, "boxes": 3, "inner_walls": 5, "walk": 50},
)

Pos = tuple[int, int]


def replay(rows: list[str], moves: str) -> bool:
    """Whether ``moves`` are all legal from the drawn position and end with every box on a goal."""
    walls = {(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == WALL}
    goals = {
        (r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in (GOAL, BOX_ON_GOAL, PLAYER_ON_GOAL)
    }
    boxes = {(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in (BOX, BOX_ON_GOAL)}
    player = next((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in (PLAYER, PLAYER_ON_GOAL))
    for letter in moves:
        dr, dc = MOVES[letter]
        step = (player[0] + dr, player[1] + dc)
        if step in walls:
            return False
        if step in boxes:
            beyond = (step[0] + dr, step[1] + dc)
            if beyond in walls or beyond in boxes:
                return False
            boxes.remove(step)
            boxes.add(beyond)
        player = step
    return boxes == goals


def generate(config: Config, rng: random.Random) -> Problem:
    n = config.size
    inner = [(r, c) for r in range(1, n + 1) for c in range(1, n + 1)]
    while True:
        picks = rng.sample(inner, config.inner_walls + config.boxes + 1)
        walls = set(picks[: config.inner_walls])
        goals = picks[config.inner_walls : -1]
        boxes = set(goals)
        player = picks[-1]
        walk: list[str] = []
        pulls = 0
        for _ in range(config.walk * 4):
            if len(walk) == config.walk:
                break
            letter = rng.choice("UDLR")
            dr, dc = MOVES[letter]
            step = (player[0] + dr, player[1] + dc)
            if not (1 <= step[0] <= n and 1 <= step[1] <= n) or step in walls or step in boxes:
                continue
            behind = (player[0] - dr, player[1] - dc)
            if behind in boxes and rng.random() < 0.8:
                boxes.remove(behind)
                boxes.add(player)
                pulls += 1
            player = step
            walk.append(letter)
        if len(walk) == config.walk and pulls and boxes != set(goals):
            break
    grid = [[WALL] * (n + 2) for _ in range(n + 2)]
    for r, c in inner:
        if (r, c) not in walls:
            grid[r][c] = FLOOR
    for r, c in goals:
        grid[r][c] = GOAL
    for r, c in boxes:
        grid[r][c] = BOX_ON_GOAL if grid[r][c] == GOAL else BOX
    grid[player[0]][player[1]] = PLAYER_ON_GOAL if grid[player[0]][player[1]] == GOAL else PLAYER
    rows = ["".join(row) for row in grid]
    answer = "".join(_INVERSE[m] for m in reversed(walk))
    question = (
        "Sokoban. Legend: # wall, _ floor, o goal, B box, G box on a goal, P you, Q you standing on a goal.\n\n"
        + "\n".join(rows)
        + "\n\nMove with U (up), D (down), L (left) and R (right), one square per move. Walking into a box "
        "pushes it one square the same way, which is only possible if the square beyond it is floor or a "
        "goal (never a wall or another box); boxes cannot be pulled. Put every box on a goal using at most "
        f"{config.walk} moves; any sequence that does so within the budget is accepted.\n"
        "Answer with the move letters only, in order, without spaces (for example RRDLU)."
    )
    return Problem(question, answer, {"grid": rows, "budget": config.walk})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 iff the moves, replayed from the drawn position, are legal, within the budget and
    leave every box on a goal."""
    try:
        meta = item["metadata"]
        budget = int(meta["budget"])
        text = extract_answer(answer_text)
        if len(text) > 4 * budget + 16:
            return 0.0
        moves = text.translate(_SEPARATORS).upper()
        if not moves or len(moves) > budget or any(m not in MOVES for m in moves):
            return 0.0
        return 1.0 if replay([str(row) for row in meta["grid"]], moves) else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """The gold without its moves from the last push on (a box stays off its goal); for a one-move
    gold, whose only shorter prefix is nothing, a single move that does not solve it."""
    gold = str(item["answer"])
    rows = [str(row) for row in item["metadata"]["grid"]]
    for cut in range(len(gold) - 1, 0, -1):
        if not replay(rows, gold[:cut]):
            return [gold[:cut]]
    return [move for move in MOVES if not replay(rows, move)][:1]


FAMILY = Family(
    name=NAME,
    description="Sokoban: player moves (U/D/L/R) that push every box onto a goal within a budget (any solution).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:sokoban",
)
