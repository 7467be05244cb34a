"""knights_knaves: puzzles are uniquely solvable and the gold names exactly the knights."""

from __future__ import annotations

import itertools
import random

import pytest

from generators.families.logic import knights_knaves as fam


def _truth(statement: list, knights: tuple[bool, ...]) -> bool:
    """Independent reading of the stored statement forms."""
    form = statement[0]
    if form == "is":
        return knights[statement[1]] is statement[2]
    if form in ("and", "or", "imp"):
        p = knights[statement[1]] is statement[2]
        q = knights[statement[3]] is statement[4]
        return {"and": p and q, "or": p or q, "imp": q if p else True}[form]
    if form in ("same", "diff"):
        equal = knights[statement[1]] is knights[statement[2]]
        return equal if form == "same" else not equal
    count = sum(1 for k in knights if k)
    return (count == statement[1]) if form == "count" else (count != statement[1])


@pytest.mark.parametrize("level", range(6))
def test_unique_solution_matches_gold(level: int) -> None:
    config = fam.FAMILY.config_for_level(level)
    for index in range(40):
        problem = fam.generate(config, random.Random(index))
        names = problem.extra["names"]
        statements = problem.extra["statements"]
        consistent = [
            knights
            for knights in itertools.product((True, False), repeat=len(names))
            if all(_truth(s, knights) is knights[i] for i, said in enumerate(statements) for s in said)
        ]
        assert len(consistent) == 1
        expected = [n for n, k in zip(names, consistent[0]) if k]
        assert problem.answer == (", ".join(expected) if expected else "none")


def test_negation_is_exact() -> None:
    rng = random.Random(3)
    forms = fam._FORMS_BY_COMPLEXITY[3]
    for _ in range(300):
        statement = fam._random_statement(0, 4, forms, rng)
        for knights in itertools.product((True, False), repeat=4):
            assert fam._holds(fam._negate(statement), knights) is not fam._holds(statement, knights)
