"""The colours of one face of a Rubik's cube after a sequence of turns from solved.

Tests 3-D state tracking: each turn (Singmaster notation: U, D, F, B, R, L a quarter turn
clockwise seen from that face, ' anticlockwise, 2 a half turn) moves 21 stickers, and the
answer is the asked face's nine stickers as a 3 x 3 block of colour letters, seen from a
stated side so that the reading is unambiguous. Stickers are simulated as coloured
points on the cube rotated in space, one permutation per turn computed once. Harder
levels use longer sequences. The asked face is never a single colour, so a solved-looking
face is never the answer.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._grids import render_text, score_grid

NAME = "rubiks_cube"

Vec = tuple[int, int, int]

FACES = ("U", "D", "F", "B", "R", "L")
COLOURS = {"U": "W", "D": "Y", "F": "G", "B": "B", "R": "R", "L": "O"}
"""Solved cube: white up, yellow down, green front, blue back, red right, orange left."""
COLOUR_NAMES = {"W": "white", "Y": "yellow", "G": "green", "B": "blue", "R": "red", "O": "orange"}
LETTERS = frozenset(COLOURS.values())
NORMALS: dict[str, Vec] = {
    "U": (0, 1, 0),
    "D": (0, -1, 0),
    "F": (0, 0, 1),
    "B": (0, 0, -1),
    "R": (1, 0, 0),
    "L": (-1, 0, 0),
}
"""x points right, y up, z to the front."""
VIEWS = {
    "U": "from above, with the back edge at the top",
    "D": "from below, with the front edge at the top",
    "F": "from the front, with the up face above it",
    "B": "from behind, with the up face above it",
    "R": "from the right, with the up face above it",
    "L": "from the left, with the up face above it",
}


def _cell(face: str, row: int, col: int) -> Vec:
    """The cubie position of the sticker at (row, col) of ``face`` as seen per ``VIEWS``."""
    return {
        "F": (col - 1, 1 - row, 1),
        "B": (1 - col, 1 - row, -1),
        "R": (1, 1 - row, 1 - col),
        "L": (-1, 1 - row, col - 1),
        "U": (col - 1, 1, row - 1),
        "D": (col - 1, -1, 1 - row),
    }[face]


STICKERS: tuple[tuple[Vec, Vec], ...] = tuple(
    (_cell(face, row, col), NORMALS[face]) for face in FACES for row in range(3) for col in range(3)
)
"""(cubie position, outward normal) of each of the 54 stickers, face by face in reading order."""
_INDEX = {sticker: i for i, sticker in enumerate(STICKERS)}


def _quarter(v: Vec, axis: Vec) -> Vec:
    """``v`` turned a quarter turn clockwise as seen looking at the cube from ``axis``."""
    x, y, z = v
    if axis[0]:
        return (x, z, -y) if axis[0] > 0 else (x, -z, y)
    if axis[1]:
        return (-z, y, x) if axis[1] > 0 else (z, y, -x)
    return (y, -x, z) if axis[2] > 0 else (-y, x, z)


def _permutation(face: str) -> tuple[int, ...]:
    """new[target] = old[source] for a clockwise quarter turn of ``face``: the source of each slot."""
    axis = NORMALS[face]
    source = list(range(len(STICKERS)))
    for i, (position, normal) in enumerate(STICKERS):
        if sum(p * a for p, a in zip(position, axis, strict=True)) == 1:  # in the turning layer
            source[_INDEX[(_quarter(position, axis), _quarter(normal, axis))]] = i
    return tuple(source)


_QUARTERS = {face: _permutation(face) for face in FACES}
MOVES = tuple(f"{face}{suffix}" for face in FACES for suffix in ("", "'", "2"))


def apply(state: list[str], move: str) -> list[str]:
    """The state after one move in Singmaster notation (X, X' or X2)."""
    turns = {"": 1, "'": 3, "2": 2}[move[1:]]
    source = _QUARTERS[move[0]]
    for _ in range(turns):
        state = [state[i] for i in source]
    return state


def solved() -> list[str]:
    return [COLOURS[face] for face in FACES for _ in range(9)]


@dataclass(frozen=True)
class Config(Knobs):
    min_moves: int = 2
    max_moves: int = 3

    RANGES: ClassVar = {"min_moves": (1, 40), "max_moves": (1, 40)}

    def check(self) -> None:
        if self.min_moves > self.max_moves:
            raise ValueError("rubiks_cube: min_moves must be <= max_moves")


LEVELS = (
    {"min_moves": 2, "max_moves": 3},
    {"min_moves": 3, "max_moves": 4},
    {"min_moves": 4, "max_moves": 6},
    {"min_moves": 6, "max_moves": 8},
    {"min_moves": 8, "max_moves": 10},
    {"min_moves": 10, "max_moves": 14},
)

_ATTEMPTS = 30


def generate(config: Config, rng: random.Random) -> Problem:
    for _ in range(_ATTEMPTS):
        moves: list[str] = []
        for _ in range(rng.randint(config.min_moves, config.max_moves)):
            # No two turns of the same face in a row: they would merge into one.
            moves.append(rng.choice([m for m in MOVES if not moves or m[0] != moves[-1][0]]))
        state = solved()
        for move in moves:
            state = apply(state, move)
        mixed = [face for k, face in enumerate(FACES) if len(set(state[9 * k : 9 * k + 9])) > 1]
        if mixed:
            face = rng.choice(mixed)
            k = FACES.index(face)
            block = ["".join(state[9 * k + 3 * r : 9 * k + 3 * r + 3]) for r in range(3)]
            legend = ", ".join(f"{letter} {name}" for letter, name in COLOUR_NAMES.items())
            question = (
                "A solved Rubik's cube has a white up (U) face, yellow down (D), green front (F), blue back (B), "
                "red right (R) and orange left (L). It is turned by this sequence (standard notation: a letter is a "
                "quarter turn of that face clockwise as seen looking at that face, ' is anticlockwise, 2 is a half "
                f"turn):\n\n{' '.join(moves)}\n\n"
                f"Give the colours of the {face} face seen {VIEWS[face]}: three rows of three letters "
                f"({legend}), top row first, the letters of a row written together, and nothing after them."
            )
            return Problem(question, render_text(block), {"moves": moves, "face": face})
    raise ValueError("rubiks_cube: every face stayed one colour")


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """The exact 3 x 3 block of colour letters, rows in order (letters may be spaced)."""
    return score_grid(answer_text, item, LETTERS)


FAMILY = Family(
    name=NAME,
    description="The nine colours of one face of a Rubik's cube after a turn sequence from solved.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    notes="Reasoning Gym's rubiks_cube asks for a solving sequence; this family asks for the state after a sequence.",
    counterpart="reasoning_gym:rubiks_cube",
)
