"""cryptarithm: the printed puzzle's gold is a solution, every solution found by brute force
scores 1, and partial, clashing, leading-zero, stuffed and huge mappings score 0."""

from __future__ import annotations

import itertools
import re

from generators.dataset import create_dataset, score

NAME = "cryptarithm"


def _puzzle(question: str) -> tuple[list[str], str]:
    lines = [line.strip(" +") for line in question.split("\n\n")[1].splitlines() if not set(line) <= {"-"}]
    return lines[:-1], lines[-1]


def _solutions(words: list[str], result: str, cap: int = 40) -> list[dict[str, int]]:
    letters = sorted({ch for w in [*words, result] for ch in w})
    out = []
    for digits in itertools.permutations(range(10), len(letters)):
        mapping = dict(zip(letters, digits))
        if any(mapping[w[0]] == 0 for w in [*words, result] if len(w) > 1):
            continue
        value = lambda w: int("".join(str(mapping[c]) for c in w))  # noqa: E731
        if sum(map(value, words)) == value(result):
            out.append(mapping)
            if len(out) >= cap:
                break
    return out


def test_gold_solves_printed_puzzle_and_every_solution_scores() -> None:
    checked = 0
    for level in range(3):
        for item in create_dataset(NAME, level=level, seed=4, size=4):
            words, result = _puzzle(item["question"])
            assert words == item["metadata"]["addends"] and result == item["metadata"]["result"]
            gold = {k: int(v) for k, v in re.findall(r"([A-Z])=(\d)", item["answer"])}
            assert sum(int("".join(str(gold[c]) for c in w)) for w in words) == int(
                "".join(str(gold[c]) for c in result)
            )
            if len(gold) > 6:  # brute force over 10!/4! assignments is too slow for the suite
                continue
            checked += 1
            for solution in _solutions(words, result):
                assert score(NAME, ", ".join(f"{k}={v}" for k, v in solution.items()), item) == 1.0
    assert checked >= 3


ITEM = {"answer": "A=1, B=2, C=3", "metadata": {"addends": ["A", "B"], "result": "C"}}
TWO = {"answer": "A=1, B=0, C=2", "metadata": {"addends": ["AB", "AB"], "result": "CB"}}


def test_forms_and_exploits() -> None:
    for right in (
        "A=1, B=2, C=3",
        "B=2; A=1; C=3",
        "a = 1, b = 2, c = 3",
        "A=2, B=1, C=3",
        "A=4, B=5, C=9",
        "{A=1, B=2, C=3}",
    ):
        assert score(NAME, right, ITEM) == 1.0, right
    for wrong in (
        "A=1, B=2",  # partial
        "A=1, B=1, C=2",  # two letters on one digit
        "A=1, B=2, C=3, A=4",  # a letter twice
        "A=1, B=2, C=4",  # sum false
        "A=1, B=2, C=3, D=4",  # unknown letter
        "A=1, B=2, C=3 or A=2",
        "123",
        "A=1, " * 200_000,
    ):
        assert score(NAME, wrong, ITEM) == 0.0, wrong[:40]
    assert score(NAME, "A=1, B=0, C=2", TWO) == 1.0
    assert score(NAME, "A=0, B=5, C=1", TWO) == 0.0  # 05 + 05 = 10: leading zero refused
