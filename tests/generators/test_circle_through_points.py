"""circle_through_points: the gold centre is equidistant from the three points (checked
here), the squared radius matches it, forms score 1 and exploits 0."""

from __future__ import annotations

import time
from fractions import Fraction

from generators.dataset import create_dataset, score
from generators.families._geom import parse_point


def _point(text: str) -> tuple[Fraction, ...]:
    point = parse_point(text)
    assert point is not None, text
    return point


def test_gold_centre_is_equidistant_and_radius_matches() -> None:
    asks = set()
    for level in range(6):
        for item in create_dataset("circle_through_points", level=level, seed=4, size=16):
            meta = item["metadata"]
            asks.add(meta["ask"])
            pts = meta["points"]
            if meta["ask"] == "center":
                cx, cy = _point(item["answer"])
                dists = {(cx - x) ** 2 + (cy - y) ** 2 for x, y in pts}
                assert len(dists) == 1
            else:
                assert Fraction(item["answer"]) > 0
            assert score("circle_through_points", item["answer"], item) == 1.0
    assert asks == {"center", "radius_squared"}


def _item(ask: str) -> dict:
    return next(
        i for i in create_dataset("circle_through_points", level=3, seed=2, size=40) if i["metadata"]["ask"] == ask
    )


def test_forms_and_exploits_for_the_centre() -> None:
    item = _item("center")
    x, y = _point(item["answer"])
    for form in (f"{x}, {y}", f"x = {x}, y = {y}", f"Answer: ({x}, {y})"):
        assert score("circle_through_points", form, item) == 1.0, form
    pts = item["metadata"]["points"]
    centroid = (Fraction(sum(p[0] for p in pts), 3), Fraction(sum(p[1] for p in pts), 3))
    for wrong in (
        f"({y}, {x})" if x != y else f"({x + 1}, {y})",
        f"({centroid[0]}, {centroid[1]})",
        f"({x}, {y}), ({x + 1}, {y})",
    ):
        assert score("circle_through_points", wrong, item) == 0.0, wrong


def test_forms_and_exploits_for_the_radius() -> None:
    item = _item("radius_squared")
    value = Fraction(item["answer"])
    assert score("circle_through_points", f"{value.numerator}/{value.denominator}", item) == 1.0
    for wrong in (
        str(value + 1),
        f"{float(value) ** 0.5:.4f}",
        f"{item['answer']} or {value + 1}",
        f"({item['answer']}, 0)",
    ):
        assert score("circle_through_points", wrong, item) == 0.0, wrong


def test_huge_answers_score_zero() -> None:
    item = _item("center")
    started = time.perf_counter()
    assert score("circle_through_points", "(" * 1_048_576, item) == 0.0
    assert score("circle_through_points", item["answer"] * 100_000, item) == 0.0
    assert time.perf_counter() - started < 1.0
