"""quantum_lock: the gold reaches the target and no shorter press sequence does (brute
force over every sequence, no range limit); every shortest sequence scores 1; short,
long, stuffed and invalid sequences score 0."""

from __future__ import annotations

import itertools
import time
from typing import Any

from generators.dataset import create_dataset, score

NAME = "quantum_lock"


def _replay(buttons: list[list[Any]], letters: str) -> int:
    value, green = 0, False
    for letter in letters:
        op, amount, condition = buttons["ABCDEFGH".index(letter)]
        if condition == "any" or (condition == "green") == green:
            value = value + amount if op == "add" else value - amount if op == "subtract" else value * amount
        green = not green
    return value


def test_gold_is_shortest_by_brute_force() -> None:
    for level in range(4):
        for item in create_dataset(NAME, level=level, seed=6, size=12):
            meta = item["metadata"]
            gold = item["answer"].replace(" -> ", "")
            assert _replay(meta["buttons"], gold) == meta["target"]
            letters = "ABCDEFGH"[: len(meta["buttons"])]
            shortest = []
            for length in range(1, len(gold) + 1):
                shortest = [
                    "".join(seq)
                    for seq in itertools.product(letters, repeat=length)
                    if _replay(meta["buttons"], "".join(seq)) == meta["target"]
                ]
                if shortest:
                    break
            assert len(shortest[0]) == len(gold)
            for seq in shortest[:30]:
                assert score(NAME, " -> ".join(seq), item) == 1.0, seq


ITEM = {
    "answer": "A -> B -> A",
    "metadata": {"buttons": [["add", 2, "any"], ["multiply", 3, "green"], ["subtract", 1, "red"]], "target": 8},
}
"""0 red -A-> 2 green -B-> 6 red -A-> 8 green: three presses; no two-press sequence reaches 8."""


def test_forms_and_exploits() -> None:
    assert _replay(ITEM["metadata"]["buttons"], "ABA") == 8
    for right in ("A -> B -> A", "A, B, A", "ABA", "a b a", "A → B → A", "<answer>A->B->A</answer>"):
        assert score(NAME, right, ITEM) == 1.0, right
    for wrong in (
        "A -> B",  # stops short
        "A -> B -> A -> C -> A",  # reaches 8? no: longer than the shortest anyway
        "B -> A -> A",  # B under red does nothing: 0 -> 2 -> 4
        "A -> B -> A, A -> A -> A",
        "A -> B -> A or C",
        "8",
        "A -> B -> Z",
        "A -> B -> A then stop",
        "A" * 1_000_000,
    ):
        assert score(NAME, wrong, ITEM) == 0.0, wrong[:60]


def test_huge_answer_is_fast() -> None:
    started = time.process_time()
    for hostile in ("A -> " * 250_000, "<answer>" + "B" * 1_000_000 + "</answer>"):
        assert score(NAME, hostile, ITEM) == 0.0
    assert time.process_time() - started < 1.0
