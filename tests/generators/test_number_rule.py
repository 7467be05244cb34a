"""number_rule: the shown pairs fix the answer. An independent fit (Gaussian elimination over
the rationals rather than Lagrange interpolation) of every rule shape of the level to the
pairs gives the gold or does not fit; exploits score 0."""

from __future__ import annotations

import re
import time
from fractions import Fraction

from generators.dataset import create_dataset, score
from generators.families.induction import number_rule


def _solve(rows: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction] | None:
    """Exact least-structure solve: the unique solution of an over- or exactly determined
    system, None when it is inconsistent; raises when it is underdetermined."""
    if not rows:
        raise ValueError("underdetermined")
    m = [[*row, b] for row, b in zip(rows, rhs)]
    n = len(rows[0])
    r = 0
    for c in range(n):
        pivot = next((i for i in range(r, len(m)) if m[i][c] != 0), None)
        if pivot is None:
            raise ValueError("underdetermined")
        m[r], m[pivot] = m[pivot], m[r]
        for i in range(len(m)):
            if i != r and m[i][c] != 0:
                factor = m[i][c] / m[r][c]
                m[i] = [a - factor * b for a, b in zip(m[i], m[r])]
        r += 1
    if any(row[-1] != 0 for row in m[r:]):
        return None
    return [m[i][-1] / m[i][i] for i in range(n)]


def _fits(features: list[list[Fraction]], ys: list[int], query: list[Fraction]) -> Fraction | None:
    solution = _solve(features, [Fraction(y) for y in ys])
    return None if solution is None else sum(c * q for c, q in zip(solution, query))


def _predictions(pairs: list[tuple[int, int]], x: int, degree: int, shapes: int) -> set[Fraction]:
    ys = [y for _, y in pairs]
    out: set[Fraction] = set()
    value = _fits(
        [[Fraction(xi) ** p for p in range(degree + 1)] for xi, _ in pairs],
        ys,
        [Fraction(x) ** p for p in range(degree + 1)],
    )
    if value is not None:
        out.add(value)
    if shapes >= 2:
        same = [(xi, yi) for xi, yi in pairs if xi % 2 == x % 2]
        other = [(xi, yi) for xi, yi in pairs if xi % 2 != x % 2]
        try:
            rows = [[Fraction(1), Fraction(xi)] for xi, _ in other]
            theirs_fit = _solve(rows, [Fraction(y) for _, y in other]) is not None
        except ValueError:
            theirs_fit = True  # the other parity's line is free: it fits whatever its pairs are
        if theirs_fit:
            rows = [[Fraction(1), Fraction(xi)] for xi, _ in same]
            mine = _fits(rows, [y for _, y in same], [Fraction(1), Fraction(x)])
            if mine is not None:
                out.add(mine)
    if shapes >= 3:
        for base in (2, 3):
            value = _fits(
                [[Fraction(1), Fraction(base) ** xi] for xi, _ in pairs], ys, [Fraction(1), Fraction(base) ** x]
            )
            if value is not None:
                out.add(value)
    return out


def _parse(item: dict) -> tuple[list[tuple[int, int]], int]:
    pairs = [(int(a), int(b)) for a, b in re.findall(r"f\((-?\d+)\) = (-?\d+)", item["question"])]
    query = int(re.search(r"What is f\((-?\d+)\)\?", item["question"]).group(1))
    return pairs, query


def test_every_fitting_rule_gives_the_gold() -> None:
    shapes = set()
    for level in range(6):
        knobs = number_rule.FAMILY.config_for_level(level)
        for item in create_dataset("number_rule", level=level, seed=3, size=40):
            pairs, query = _parse(item)
            assert query not in [x for x, _ in pairs]
            assert _predictions(pairs, query, knobs.degree, knobs.shapes) == {Fraction(int(item["answer"]))}
            shapes.add(item["metadata"]["shape"])
    assert shapes == {"polynomial", "parity", "exponential"}


def test_answer_forms_and_exploits() -> None:
    for item in create_dataset("number_rule", level=4, seed=6, size=20):
        gold = int(item["answer"])
        pairs, _ = _parse(item)
        for form in (str(gold), f"y = {gold}", f"\\boxed{{{gold}}}", f"{gold}.0"):
            assert score("number_rule", form, item) == 1.0, form
        for wrong in (gold + 1, gold - 1, pairs[-1][1]):
            if wrong != gold:
                assert score("number_rule", str(wrong), item) == 0.0
        assert score("number_rule", f"{gold}, {gold + 1}", item) == 0.0
        assert score("number_rule", f"{gold} or {gold - 1}", item) == 0.0


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("number_rule", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("7" * 1_000_000, "f(1) = 2\n" * 100_000):
        assert score("number_rule", hostile, item) == 0.0
    assert time.perf_counter() - started < 0.5
