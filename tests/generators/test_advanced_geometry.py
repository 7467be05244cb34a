"""advanced_geometry: golds checked by other routes (law of cosines, Heron, altitude
perpendicularity), rounding honoured, exploits score 0."""

from __future__ import annotations

import math
import time
from fractions import Fraction

from generators.dataset import create_dataset, score
from generators.families._geom import parse_point


def _point(text: str) -> tuple[Fraction, ...]:
    point = parse_point(text)
    assert point is not None, text
    return point


def test_golds_agree_with_other_formulas() -> None:
    tasks = set()
    for level in range(6):
        for item in create_dataset("advanced_geometry", level=level, seed=7, size=20):
            meta = item["metadata"]
            tasks.add(meta["task"])
            pts = meta["points"]
            places = meta["knobs"]["places"]
            side = [math.dist(pts[(i + 1) % 3], pts[(i + 2) % 3]) for i in range(3)]  # side[i] opposite corner i
            if meta["task"] == "angle":
                k = "ABC".index(meta["vertex"])
                a, b, c = side[k], side[(k + 1) % 3], side[(k + 2) % 3]
                angle = math.degrees(math.acos((b * b + c * c - a * a) / (2 * b * c)))
                assert abs(float(item["answer"]) - angle) <= 0.5 * 10**-places + 1e-7
            elif meta["task"] == "incircle_radius":
                s = sum(side) / 2
                heron = math.sqrt(max(0.0, s * (s - side[0]) * (s - side[1]) * (s - side[2])))
                assert abs(float(item["answer"]) - heron / s) <= 0.5 * 10**-places + 1e-7
            else:
                hx, hy = _point(item["answer"])
                for i in range(3):  # H - A is perpendicular to C - B, for each corner
                    p, q, r = pts[i], pts[(i + 1) % 3], pts[(i + 2) % 3]
                    assert (hx - p[0]) * (r[0] - q[0]) + (hy - p[1]) * (r[1] - q[1]) == 0
            assert score("advanced_geometry", item["answer"], item) == 1.0
    assert tasks == {"angle", "incircle_radius", "orthocenter"}


def _item(task: str) -> dict:
    return next(
        i for i in create_dataset("advanced_geometry", level=4, seed=3, size=60) if i["metadata"]["task"] == task
    )


def test_forms_and_exploits() -> None:
    angle = _item("angle")
    gold = angle["answer"]
    for form in (f"{gold}°", f"{gold} degrees", f"{gold}0"):
        assert score("advanced_geometry", form, angle) == 1.0, form
    radians = math.radians(float(gold))
    for wrong in (f"{radians:.3f}", f"{float(gold) + 0.001:.3f}", f"{gold}, {180 - float(gold):.3f}", gold[:-1]):
        assert score("advanced_geometry", wrong, angle) == 0.0, wrong
    ortho = _item("orthocenter")
    x, y = _point(ortho["answer"])
    assert score("advanced_geometry", f"x = {x}, y = {y}", ortho) == 1.0
    for wrong in (f"({y}, {x})" if x != y else f"({x + 1}, {y})", f"({x + Fraction(1, 1000)}, {y})", str(x)):
        assert score("advanced_geometry", wrong, ortho) == 0.0, wrong


def test_huge_answers_score_zero() -> None:
    item = _item("incircle_radius")
    started = time.perf_counter()
    assert score("advanced_geometry", item["answer"] + "1" * 1_048_576, item) == 0.0
    assert score("advanced_geometry", "(" + "0," * 500_000 + "0)", item) == 0.0
    assert time.perf_counter() - started < 1.0
