"""countdown: gold expressions verify and targets are out of reach with too few numbers."""

from __future__ import annotations

import itertools
from fractions import Fraction

from generators.dataset import create_dataset, score
from generators.families._arith import check_expression


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


def test_countdown_targets_need_enough_numbers() -> None:
    for level in range(6):
        for item in create_dataset("countdown", level=level, seed=15, size=10):
            meta = item["metadata"]
            assert check_expression(item["answer"], meta["numbers"], meta["target"], all_numbers=False)
            need = meta["knobs"]["min_needed"]
            for size in range(1, need):
                for subset in itertools.combinations(meta["numbers"], size):
                    assert Fraction(meta["target"]) not in _values(tuple(Fraction(n) for n in subset))
            assert score("countdown", item["answer"], item) == 1.0
            assert score("countdown", item["answer"] + " + 0", item) == 0.0  # 0 is not a given number
