"""Tower of Hanoi: write an optimal move sequence, or count the moves an optimal solution needs.

Tests recursive decomposition. Easy levels ask for the full move list of a small standard
tower; peg names, start peg and target peg are drawn per item so even level 0 has thousands
of distinct questions. Harder levels start from an arbitrary legal position (disks spread
over the three pegs), where the textbook recursion no longer applies verbatim, and ask for
either the optimal sequence or the optimal move count for more disks. Sequences are scored
by simulation: any legal sequence that reaches the goal in the optimal number of moves is
accepted.

Counts from a random position pile up on ``2**n - 1`` (every disk, largest first, off its
goal peg: probability (2/3)**n), so a constant count farms a level with few disk numbers.
Level 2 (counts only) therefore spans 4 to 8 disks: enumerating every start position, the
most frequent count, 15, is the gold with probability 0.0596 (0.0960 at 4 to 6 disks);
``tests/generators/test_exact_priors.py`` recomputes it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
from generators.base import Family, Knobs, Problem

NAME = "tower_of_hanoi"

TASKS = ("sequence", "count", "mixed")
PEG_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"


@dataclass(frozen=True)
class Config(Knobs):
    min_disks: int = 2
    max_disks: int = 3
    task: str = "sequence"
    random_start: bool = False
    """Start from a random legal position instead of one full tower."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {"min_disks": (1, 20), "max_disks": (1, 20)}

    def check(self) -> None:
        if self.min_disks > self.max_disks:
            raise ValueError("tower_of_hanoi: min_disks must be <= max_disks")
        if self.task not in TASKS:
            raise ValueError(f"tower_of_hanoi: task must be one of {TASKS}, got {self.task!r}")
        if self.task != "count" and self.max_disks > 8:
            raise ValueError("tower_of_hanoi: move sequences are limited to 8 disks (255 moves)")


LEVELS: tuple[dict[str, object], ...] = (
    {"min_disks": 2, "max_disks": 3, "task": "sequence", "random_start": False},
    {"min_disks": 3, "max_disks": 4, "task": "sequence", "random_start": False},
    {"min_disks": 4, "max_disks": 8, "task": "count", "random_start": True},
    {"min_disks": 3, "max_disks": 4, "task": "sequence", "random_start": True},
    {"min_disks": 4, "max_disks": 5, "task": "mixed", "random_start": True},
    {"min_disks": 5, "max_disks": 7, "task": "mixed", "random_start": True},
)


def optimal_moves(position: list[int], target: int) -> list[tuple[int, int]]:
    """Optimal (from, to) peg moves taking every disk to ``target``.

    ``position[d]`` is the peg (0..2) of disk ``d`` (0 = smallest). The largest disk not yet
    on its goal peg must move exactly once, after the smaller ones are parked on the third
    peg; recursing on that gives the unique optimal solution for a full-tower goal.
    """
    pos = list(position)
    moves: list[tuple[int, int]] = []

    def move_tower(k: int, goal: int) -> None:
        """Move disks 0..k-1 onto ``goal`` from wherever they are."""
        for d in range(k - 1, -1, -1):
            if pos[d] != goal:
                spare = 3 - pos[d] - goal
                move_tower(d, spare)
                moves.append((pos[d], goal))
                pos[d] = goal
                move_tower(d, goal)
                return

    move_tower(len(pos), target)
    return moves


def optimal_count(position: list[int], target: int) -> int:
    """Number of optimal moves in closed form: 2^d for each 'misplaced' largest disk d."""
    total, goal = 0, target
    for d in range(len(position) - 1, -1, -1):
        if position[d] != goal:
            total += 1 << d
            goal = 3 - position[d] - goal
    return total


def simulate(position: list[int], moves: list[tuple[int, int]]) -> list[int] | None:
    """Final position after ``moves``, or ``None`` at the first illegal move."""
    pegs: list[list[int]] = [[], [], []]
    for d in range(len(position) - 1, -1, -1):
        pegs[position[d]].append(d)
    for src, dst in moves:
        if not pegs[src] or (pegs[dst] and pegs[dst][-1] < pegs[src][-1]):
            return None
        pegs[dst].append(pegs[src].pop())
    final = [0] * len(position)
    for peg, disks in enumerate(pegs):
        for d in disks:
            final[d] = peg
    return final


def _describe(position: list[int], names: list[str]) -> str:
    lines = []
    for peg in range(3):
        disks = [str(d + 1) for d in range(len(position) - 1, -1, -1) if position[d] == peg]
        lines.append(f"Peg {names[peg]} (bottom to top): {', '.join(disks) if disks else 'empty'}")
    return "\n".join(lines)


def generate(config: Config, rng: random.Random) -> Problem:
    n = rng.randint(config.min_disks, config.max_disks)
    names = rng.sample(PEG_LETTERS, 3)
    target = rng.randrange(3)
    if config.random_start:
        for _ in range(100):
            position = [rng.randrange(3) for _ in range(n)]
            if any(p != target for p in position):
                break
    else:
        position = [rng.choice([p for p in range(3) if p != target])] * n
    task = config.task if config.task != "mixed" else rng.choice(("sequence", "count"))
    intro = (
        f"Tower of Hanoi with {n} disks numbered 1 (smallest) to {n} (largest) on three pegs "
        f"{names[0]}, {names[1]} and {names[2]}. A move takes the top disk of one peg and puts it on top of "
        "another peg; a disk may never be placed on a smaller disk.\n\n"
        f"Current position:\n{_describe(position, names)}\n\n"
        f"Goal: all {n} disks on peg {names[target]}."
    )
    moves = optimal_moves(position, target)
    if task == "sequence":
        answer = ", ".join(f"{names[a]}->{names[b]}" for a, b in moves)
        ask = (
            f"Give a shortest sequence of moves reaching the goal. Answer on one line with the moves separated "
            f"by commas, each written as FROM->TO with peg letters (e.g. {names[0]}->{names[2]}, "
            f"{names[0]}->{names[1]})."
        )
    else:
        answer = str(len(moves))
        ask = "What is the minimum number of moves needed to reach the goal? Answer with a single integer."
    return Problem(
        question=f"{intro}\n{ask}",
        answer=answer,
        extra={"task": task, "pegs": names, "position": position, "target": target, "optimal": len(moves)},
    )


_MOVE = re.compile(r"^\s*\(?\s*([A-Za-z])\s*(?:->|→|-|to)\s*([A-Za-z])\s*\)?\s*$")


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """Counts compare as integers; sequences are simulated (legal, reaches goal, optimal length)."""
    try:
        from generators.answers import compare, extract_answer

        meta = item["metadata"]
        extracted = extract_answer(answer_text)
        if meta["task"] == "count":
            return compare("int", extracted, str(meta["optimal"]))
        names = [str(x).upper() for x in meta["pegs"]]
        tokens = [t for t in re.split(r"[,;]", extracted) if t.strip()]
        if len(tokens) != int(meta["optimal"]):
            return 0.0
        moves = []
        for token in tokens:
            match = _MOVE.match(token)
            if not match:
                return 0.0
            src, dst = match.group(1).upper(), match.group(2).upper()
            if src not in names or dst not in names or src == dst:
                return 0.0
            moves.append((names.index(src), names.index(dst)))
        position = [int(p) for p in meta["position"]]
        final = simulate(position, moves)
        target = int(meta["target"])
        return 1.0 if final is not None and all(p == target for p in final) else 0.0
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:tower_of_hanoi",
    description="Tower of Hanoi from a full tower or an arbitrary position: optimal move list or move count.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
    score=score,
    notes="Sequences are verified by simulation (any optimal sequence scores 1); counts compare as integers.",
)
