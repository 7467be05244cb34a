"""sokoban: the gold solves within the budget, a breadth-first shortest solution (found here
by an independent search) also scores 1, and illegal or short sequences score 0."""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from generators.dataset import create_dataset, score

STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


def _shortest(rows: list[str]) -> str:
    cells = {(r, c): ch for r, row in enumerate(rows) for c, ch in enumerate(row)}
    goals = frozenset(p for p, ch in cells.items() if ch in "oGQ")
    start_boxes = frozenset(p for p, ch in cells.items() if ch in "BG")
    player = next(p for p, ch in cells.items() if ch in "PQ")
    start = (player, start_boxes)
    seen: dict[Any, str] = {start: ""}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        (r, c), boxes = state
        if boxes == goals:
            return seen[state]
        for letter, (dr, dc) in STEP.items():
            nxt = (r + dr, c + dc)
            if cells.get(nxt, "#") == "#":
                continue
            new_boxes = boxes
            if nxt in boxes:
                beyond = (nxt[0] + dr, nxt[1] + dc)
                if cells.get(beyond, "#") == "#" or beyond in boxes:
                    continue
                new_boxes = (boxes - {nxt}) | {beyond}
            key = (nxt, new_boxes)
            if key not in seen:
                seen[key] = seen[state] + letter
                queue.append(key)
    raise AssertionError("no solution")


def test_gold_and_shortest_solutions_score_one() -> None:
    for level in range(3):
        for item in create_dataset("sokoban", level=level, seed=5, size=6):
            meta = item["metadata"]
            assert len(item["answer"]) == meta["budget"]
            assert score("sokoban", item["answer"], item) == 1.0
            best = _shortest(meta["grid"])
            assert 0 < len(best) <= meta["budget"]
            assert score("sokoban", best, item) == 1.0


HANDMADE = ["######", "#P_Bo#", "######"]
"""One box one push from its goal: R walks up to the box, the second R pushes it on."""


def test_handmade_rules() -> None:
    item = {"answer": "RR", "metadata": {"grid": HANDMADE, "budget": 4}}
    assert score("sokoban", "RR", item) == 1.0
    assert score("sokoban", "RRR", item) == 0.0  # pushes the box into the wall: illegal
    assert score("sokoban", "R", item) == 0.0  # box not on the goal
    assert score("sokoban", "RRL", item) == 1.0  # walking away afterwards leaves the box on its goal
    assert score("sokoban", "RLRR", item) == 1.0  # any route within the budget
    assert score("sokoban", "RRLRR", item) == 0.0  # over the budget
    assert score("sokoban", "U", item) == 0.0  # into the wall
    two = {"answer": "RR", "metadata": {"grid": ["#######", "#PBB_o#", "#######"], "budget": 9}}
    assert score("sokoban", "R", two) == 0.0  # two boxes in a row cannot be pushed


def test_forms_and_exploits() -> None:
    item = create_dataset("sokoban", level=2, seed=2, size=1)[0]
    gold = item["answer"]
    for form in (gold.lower(), " ".join(gold), f"<answer>{gold}</answer>"):
        assert score("sokoban", form, item) == 1.0
    for wrong in (gold[::-1], f"{gold} or {gold}", gold + "Z", "UDLR" * 3, str(len(gold))):
        if wrong != gold:
            assert score("sokoban", wrong, item) == 0.0, wrong


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("sokoban", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("LR" * 524_288, item["answer"] + "\n" * 1_048_576 + "U"):
        assert score("sokoban", hostile, item) == 0.0
    assert time.perf_counter() - started < 1.0


def test_a_one_move_gold_s_wrong_answer_does_not_solve() -> None:
    """The wrong answer of a one-push puzzle was the gold itself (its one-move prefix)."""
    from generators.families.games.sokoban import wrong_answers

    item = {"answer": "R", "metadata": {"grid": ["#####", "#PBo#", "#####"], "budget": 3}}
    assert score("sokoban", "R", item) == 1.0
    wrong = wrong_answers(item)
    assert wrong and all(score("sokoban", w, item) == 0.0 for w in wrong)
