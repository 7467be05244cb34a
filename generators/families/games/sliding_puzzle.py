"""Sliding puzzle (8-puzzle, 15-puzzle): moves of the blank that put the tiles in order.

Tests planning in a state space where every move disturbs earlier progress. The board is
scrambled from a random goal arrangement (shown) by a random walk of the blank (never undoing the
previous step); the walk's length is the stated move budget, so a solution within it always
exists. Harder levels scramble longer and, at the top, use the 4x4 board. The scorer
replays the answer from the start: every move must stay on the board, the result must be
solved, and the length must be within the budget; any such sequence is right.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer
from generators.base import Family, Knobs, Problem

NAME = "sliding_puzzle"

MOVES = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
"""Letter -> the direction the blank moves (it swaps with the tile there)."""
_INVERSE = {"U": "D", "D": "U", "L": "R", "R": "L"}
_SEPARATORS = str.maketrans("", "", " \t\n,;-")


@dataclass(frozen=True)
class Config(Knobs):
    size: int = 3
    min_moves: int = 4
    max_moves: int = 6

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "size": (2, 5),
        "min_moves": (1, 200),
        "max_moves": (1, 200),
    }

    def check(self) -> None:
        if self.min_moves > self.max_moves:
            raise ValueError("sliding_puzzle: min_moves must be <= max_moves")


LEVELS: tuple[dict[str, object], ...] = (
    {"size": 3, "min_moves": 4, "max_moves": 6},
    {"size": 3, "min_moves": 7, "max_moves": 10},
    {"size": 3, "min_moves": 11, "max_moves": 14},
    {"size": 3, "min_moves": 15, "max_moves": 20},
    {"size": 4, "min_moves": 16, "max_moves": 22},
    {"size": 4, "min_moves": 22, "max_moves": 30},
)


def replay(tiles: list[int], size: int, moves: str) -> list[int] | None:
    """The tiles after ``moves`` (0 is the blank), or None when a move leaves the board."""
    board = list(tiles)
    blank = board.index(0)
    r, c = divmod(blank, size)
    for letter in moves:
        dr, dc = MOVES[letter]
        nr, nc = r + dr, c + dc
        if not (0 <= nr < size and 0 <= nc < size):
            return None
        board[r * size + c], board[nr * size + nc] = board[nr * size + nc], 0
        r, c = nr, nc
    return board


def generate(config: Config, rng: random.Random) -> Problem:
    size = config.size
    # The goal is a random arrangement (shown in the question), so even short scrambles give
    # many distinct items; the scramble starts from it, so it is always reachable.
    goal = rng.sample(range(size * size), size * size)
    while True:
        length = rng.randint(config.min_moves, config.max_moves)
        walk: list[str] = []
        r, c = divmod(goal.index(0), size)
        while len(walk) < length:
            options = [
                m
                for m, (dr, dc) in MOVES.items()
                if 0 <= r + dr < size and 0 <= c + dc < size and not (walk and _INVERSE[walk[-1]] == m)
            ]
            move = rng.choice(options)
            walk.append(move)
            r, c = r + MOVES[move][0], c + MOVES[move][1]
        start = replay(goal, size, "".join(walk))
        if start is not None and start != goal:
            break
    answer = "".join(_INVERSE[m] for m in reversed(walk))
    width = len(str(size * size - 1))

    def draw(tiles: list[int]) -> str:
        return "\n".join(
            " ".join(str(v).rjust(width) if v else "_".rjust(width) for v in tiles[i * size : (i + 1) * size])
            for i in range(size)
        )

    question = (
        f"A {size}x{size} sliding puzzle; _ is the empty square:\n\n{draw(start)}\n\n"
        "A move slides a tile into the empty square; write it as the direction the empty square moves: "
        "U (it swaps with the tile above it), D (below), L (left) or R (right). Reach this goal:\n\n"
        f"{draw(goal)}\n\n"
        f"Use at most {length} moves; any sequence that reaches the goal within that budget is accepted. "
        "Answer with the move letters only, in order, without spaces (for example ULDR)."
    )
    return Problem(question, answer, {"size": size, "tiles": start, "goal": goal, "budget": length})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 iff the answer's moves, replayed from the start, stay on the board and end on the
    goal within the budget."""
    try:
        meta = item["metadata"]
        size, budget = int(meta["size"]), int(meta["budget"])
        text = extract_answer(answer_text)
        if len(text) > 4 * budget + 16:
            return 0.0
        moves = text.translate(_SEPARATORS).upper()
        if not moves or len(moves) > budget or any(m not in MOVES for m in moves):
            return 0.0
        end = replay([int(v) for v in meta["tiles"]], size, moves)
        return 1.0 if end is not None and end == [int(v) for v in meta["goal"]] else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """The gold one move short, and the gold with its last move undone and redone twice."""
    gold = str(item["answer"])
    return [gold[:-1] or _INVERSE[gold[0]], gold[:-1] + _INVERSE[gold[-1]] if len(gold) > 1 else gold + gold]


FAMILY = Family(
    name=NAME,
    description="8- or 15-puzzle: blank moves (U/D/L/R) that reach the goal within a stated budget (any solution).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="",
)
