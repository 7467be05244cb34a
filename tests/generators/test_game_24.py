"""game_24: exhaustive search agrees with brute force; the evaluator is a strict whitelist."""

from __future__ import annotations

import itertools
from fractions import Fraction

from generators.dataset import create_dataset, score
from generators.families._arith import check_expression, integer_targets


def _values(nums: tuple[Fraction, ...]) -> set[Fraction]:
    if len(nums) == 1:
        return {nums[0]}
    out: set[Fraction] = set()
    for i, j in itertools.combinations(range(len(nums)), 2):
        rest = tuple(nums[k] for k in range(len(nums)) if k not in (i, j))
        a, b = nums[i], nums[j]
        for v in {a + b, a - b, b - a, a * b} | ({a / b} if b else set()) | ({b / a} if a else set()):
            out |= _values((*rest, v))
    return out


def test_integer_targets_against_fraction_brute_force() -> None:
    for nums in [(3, 3, 8, 8), (1, 2, 3, 4), (1, 1, 1, 1), (5, 7, 11, 13), (2, 2, 6)]:
        brute = {int(v) for v in _values(tuple(Fraction(n) for n in nums)) if v.denominator == 1}
        assert set(integer_targets(nums)) == brute
    assert integer_targets((3, 3, 8, 8))[24] is False


def test_gold_and_fraction_only_items() -> None:
    for level in range(6):
        for item in create_dataset("game_24", level=level, seed=13, size=15):
            meta = item["metadata"]
            assert check_expression(item["answer"], meta["numbers"], meta["target"], all_numbers=True)
            if level == 3:
                assert integer_targets(tuple(meta["numbers"]))[meta["target"]] is False


def test_evaluator_rejects_bad_expressions() -> None:
    item = create_dataset("game_24", level=0, seed=14, size=1)[0]
    numbers = item["metadata"]["numbers"]
    bad = [
        "24",
        "__import__('os').system('true')",
        "2 ** 4",
        "(1).real",
        "-1 + 25",
        "24.0",
        " + ".join(map(str, numbers)) + " + 0",
        "lambda: 24",
        "[24]",
        "x",
        "1; 2",
    ]
    for text in bad:
        assert score("game_24", text, item) == 0.0, text
    assert score("game_24", item["answer"] + " = 24", item) == 1.0
    assert score("game_24", item["answer"].replace("*", "×"), item) == 1.0
