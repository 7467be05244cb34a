"""Curriculum: converges to the level whose success sits in the band, and stays there."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from generators.curriculum import Curriculum

SUCCESS = [0.97, 0.92, 0.68, 0.35, 0.15, 0.05]
"""Simulated learner: success probability per level; only level 2 sits in (0.5, 0.8)."""


def simulate(curriculum: Curriculum, steps: int, seed: int, families: list[str]) -> dict[str, list[int]]:
    rng = random.Random(seed)
    trace: dict[str, list[int]] = {name: [] for name in families}
    for _ in range(steps):
        levels = curriculum.next_levels()
        batch = [(name, 1.0 if rng.random() < SUCCESS[levels[name]] else 0.0) for name in families]
        curriculum.record(batch)
        for name in families:
            trace[name].append(curriculum.level(name))
    return trace


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("start", [0, 5])
def test_converges_to_band_and_does_not_oscillate(seed: int, start: int) -> None:
    curriculum = Curriculum({"a": 6, "b": 6}, target=(0.5, 0.8), start_level=start)
    trace = simulate(curriculum, 3000, seed, ["a", "b"])
    for name in ("a", "b"):
        tail = trace[name][1000:]
        assert trace[name][-1] == 2
        assert tail.count(2) / len(tail) > 0.95
        late_changes = [change for change in curriculum.state(name).changes if change[0] > 1000]
        assert len(late_changes) <= 2, late_changes


def test_record_formats_and_window_clears_on_change() -> None:
    curriculum = Curriculum({"x": 3}, window=8, min_samples=4, check_every=1, hysteresis=0.0)
    curriculum.record([("x", 1.0), {"family": "x", "score": 1.0}, {"family": "x", "reward": 1}])
    assert curriculum.level("x") == 0
    levels = curriculum.record([{"metadata": {"family": "x"}, "score": 1.0}])
    assert levels == {"x": 1}
    assert list(curriculum.state("x").scores) == []
    curriculum.record(("x", 0.9))
    assert curriculum.state("x").since_change == 1


def test_top_and_bottom_levels_are_sticky() -> None:
    curriculum = Curriculum({"x": 2}, window=4, min_samples=4, hysteresis=0.0)
    for _ in range(20):
        curriculum.record([("x", 1.0)])
    assert curriculum.level("x") == 1
    for _ in range(40):
        curriculum.record([("x", 0.0)])
    assert curriculum.level("x") == 0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"target": (0.8, 0.5)},
        {"target": (0.5,)},
        {"target": (-0.1, 0.5)},
        {"window": 0},
        {"min_samples": 10, "window": 5},
        {"start_level": 7},
        {"start_level": {"zz": 1}},
        {"hysteresis": 1.5},
        {"check_every": 0},
    ],
)
def test_invalid_settings_raise_value_error(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        Curriculum({"x": 6}, **kwargs)


def test_invalid_results_raise_and_change_nothing() -> None:
    curriculum = Curriculum({"x": 6})
    for bad in ([("x", 2.0)], [("y", 1.0)], [("x", float("nan"))], [("x",)], [42], [("x", "1")]):
        with pytest.raises(ValueError):
            curriculum.record([("x", 1.0), *bad])
    assert curriculum.state("x").total == 0
    with pytest.raises(ValueError):
        Curriculum([])
    with pytest.raises(ValueError):
        Curriculum("basic_arithmetic")
    with pytest.raises(ValueError):
        Curriculum(["no_such_family"])


def test_registry_names_give_level_counts() -> None:
    curriculum = Curriculum(["gcd_lcm", "basic_arithmetic"])
    assert curriculum.next_levels() == {"basic_arithmetic": 0, "gcd_lcm": 0}


def test_save_load_round_trip(tmp_path: Path) -> None:
    curriculum = Curriculum({"a": 6, "b": 6}, start_level={"b": 3})
    simulate(curriculum, 150, 1, ["a", "b"])
    path = tmp_path / "nested" / "curriculum.json"
    curriculum.save(path)
    restored = Curriculum.load(path)
    assert restored.to_json() == curriculum.to_json()
    assert json.loads(path.read_text())["format"] == "synthenv-curriculum/1"
    rng_a, rng_b = random.Random(3), random.Random(3)
    for _ in range(200):
        for target, rng in ((curriculum, rng_a), (restored, rng_b)):
            levels = target.next_levels()
            target.record([(name, float(rng.random() < SUCCESS[level])) for name, level in levels.items()])
    assert restored.to_json() == curriculum.to_json()
    with pytest.raises(ValueError):
        Curriculum.from_json({"format": "other"})
    with pytest.raises(ValueError):
        Curriculum.from_json({"format": "synthenv-curriculum/1", "families": {"a": {}}})
