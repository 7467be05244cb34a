"""line_intersection: the gold lies on both lines as described in the question text (parsed
back independently), exact forms score 1, swapped, rounded and stuffed points 0."""

from __future__ import annotations

import re
import time
from fractions import Fraction

from generators.dataset import create_dataset, score
from generators.families._geom import parse_point


def _point(text: str) -> tuple[Fraction, ...]:
    point = parse_point(text)
    assert point is not None, text
    return point


def _on_described_line(description: str, x: Fraction, y: Fraction) -> bool:
    through = re.fullmatch(r"the line through \((-?\d+), (-?\d+)\) and \((-?\d+), (-?\d+)\)", description)
    if through:
        x1, y1, x2, y2 = (int(g) for g in through.groups())
        return (x2 - x1) * (y - y1) == (y2 - y1) * (x - x1)
    body = description.removeprefix("the line ")
    left, right = body.split(" = ")

    def value(expr: str, x: Fraction, y: Fraction) -> Fraction:
        expr = expr.replace(" ", "").replace("-", "+-")
        total = Fraction(0)
        for term in filter(None, expr.split("+")):
            var = term[-1] if term[-1] in "xy" else ""
            coef = term[:-1] if var else term
            coef = coef.replace("(", "").replace(")", "")
            k = Fraction(-1 if coef == "-" else 1 if coef == "" else coef)
            total += k * ({"x": x, "y": y}[var] if var else 1)
        return total

    return value(left, x, y) == value(right, x, y)


def test_gold_lies_on_both_described_lines() -> None:
    forms = set()
    for level in range(6):
        for item in create_dataset("line_intersection", level=level, seed=8, size=15):
            first = item["question"].split("\n")[0]
            match = re.fullmatch(
                r"Line 1 is (.+)\. Line 2 is (.+)\. At which point do the two lines intersect\?", first
            )
            assert match, first
            point = _point(item["answer"])
            assert point is not None
            for description in match.groups():
                forms.add(description.split()[2][:2])
                assert _on_described_line(description, *point), (description, item["answer"])
    assert len(forms) >= 3  # through, y =, and ax + by forms all occur


def test_forms_and_exploits() -> None:
    item = next(i for i in create_dataset("line_intersection", level=3, seed=1, size=40) if "/" in i["answer"])
    x, y = _point(item["answer"])
    for form in (item["answer"], f"{x}, {y}", f"[{x}, {y}]", f"x = {x}, y = {y}", f"<answer>({x},{y})</answer>"):
        assert score("line_intersection", form, item) == 1.0, form
    for wrong in (
        f"({y}, {x})" if x != y else f"({x}, {y + 1})",
        f"({float(x):.3f}, {float(y):.3f})" if x.denominator % 2 and x.denominator % 5 else f"({x + 1}, {y})",
        f"({x}, {y}, 0)",
        f"({x}, {y}) or ({x + 1}, {y})",
        f"({x})",
        str(x),
    ):
        assert score("line_intersection", wrong, item) == 0.0, wrong


def test_huge_answers_score_zero() -> None:
    item = create_dataset("line_intersection", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    assert score("line_intersection", "(" + "1, " * 400_000 + "1)", item) == 0.0
    assert score("line_intersection", item["answer"] + " " * 1_048_576 + "x", item) == 0.0
    assert time.perf_counter() - started < 1.0
