"""Continuous difficulty: integer points are the levels, the mapping is monotone between
them, and a level table that makes a level easier than the one before is reported.

Families are discovered through the registry, so a new family is checked here without
touching this file.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from generators_sweep import SEED

from generators import registry
from generators.base import Family, Knobs, Problem
from generators.dataset import create_composite, create_dataset
from generators.difficulty import check_difficulty, interpolate_knobs, knob_directions, level_table_problems

FAMILY_NAMES = registry.list_families()
STEPS = 8
"""Points tried inside each segment between two levels."""


def _full(family: Family, knobs: dict[str, Any]) -> dict[str, Any]:
    return family.config(**knobs).as_dict()


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_level_table_is_a_difficulty_scale(name: str) -> None:
    assert level_table_problems(registry.get_family(name)) == []


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_integer_difficulty_is_the_level(name: str) -> None:
    family = registry.get_family(name)
    for level in range(len(family.levels)):
        assert interpolate_knobs(family, level) == dict(family.levels[level])
        assert family.config_for_difficulty(float(level)) == family.config_for_level(level)


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_knobs_move_monotonically_between_levels(name: str) -> None:
    family = registry.get_family(name)
    for level in range(len(family.levels) - 1):
        points = [level + step / STEPS for step in range(STEPS + 1)]
        configs = [_full(family, interpolate_knobs(family, point)) for point in points]
        low, high = configs[0], configs[-1]
        for knob, start in low.items():
            end = high[knob]
            values = [config[knob] for config in configs]
            if isinstance(start, (int, float)) and not isinstance(start, bool):
                sign = (end > start) - (end < start)
                for before, after in itertools.pairwise(values):
                    assert (after - before) * sign >= 0 and (sign or after == before), (
                        f"{name}.{knob} is not monotone between levels {level} and {level + 1}: {values}"
                    )
            else:  # a non-numeric knob switches once, at the upper level
                assert values[:-1] == [start] * STEPS, f"{name}.{knob}: {values}"


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_half_way_items_generate_and_score(name: str) -> None:
    dataset = create_dataset(name, difficulty=2.5, seed=SEED, size=3, on_shortfall="truncate")
    assert dataset.difficulty == 2.5 and dataset.level is None
    for item in dataset:
        assert item["metadata"]["difficulty"] == 2.5 and item["metadata"]["level"] is None
        assert dataset.score(item["answer"], item) == 1.0


def test_integer_difficulty_gives_the_level_items() -> None:
    by_level = create_dataset("gcd_lcm", level=3, seed=4, size=10)
    by_difficulty = create_dataset("gcd_lcm", difficulty=3, seed=4, size=10)
    assert [i["question"] for i in by_level] == [i["question"] for i in by_difficulty]
    assert all(i["metadata"]["level"] == 3 and i["metadata"]["difficulty"] == 3.0 for i in by_difficulty)
    assert all("difficulty" not in i["metadata"] for i in by_level)


@pytest.mark.parametrize("bad", [-0.01, 5.01, math.nan, math.inf, True, "2", None])
def test_bad_difficulty_is_a_value_error(bad: Any) -> None:
    family = registry.get_family("maze")
    if bad is None:
        return  # None means "no difficulty" in create_dataset; only check_difficulty refuses it
    with pytest.raises(ValueError, match="difficulty"):
        create_dataset(family, difficulty=bad, size=1)
    with pytest.raises(ValueError, match="difficulty"):
        check_difficulty(family, bad)


def test_level_and_difficulty_exclude_each_other() -> None:
    with pytest.raises(ValueError, match="not both"):
        create_dataset("maze", level=1, difficulty=1.5, size=1)
    with pytest.raises(ValueError, match="not both"):
        create_composite({"maze": 1, "gcd_lcm": 1}, level=1, difficulty=1.5, size=4)
    with pytest.raises(ValueError, match="not in specs"):
        create_composite({"maze": 1}, difficulty={"gcd_lcm": 1.5}, size=4)


def test_composite_takes_one_or_per_family_difficulty() -> None:
    mixed = create_composite({"maze": 1, "gcd_lcm": 1}, difficulty={"maze": 4.5, "gcd_lcm": 0.5}, size=12, seed=3)
    seen = {item["metadata"]["family"]: item["metadata"]["difficulty"] for item in mixed}
    assert seen == {"maze": 4.5, "gcd_lcm": 0.5}


def test_harder_difficulty_gives_bigger_problems() -> None:
    family = registry.get_family("maze")
    sizes = [family.config_for_difficulty(d / 4).as_dict() for d in range(21)]
    for knob, direction in knob_directions(family).items():
        values = [config[knob] for config in sizes]
        if direction > 0 and values[0] != values[-1]:
            assert values == sorted(values), (knob, values)


# -- the level-table checker on made-up families ----------------------------------------


@dataclass(frozen=True)
class _Toy(Knobs):
    RANGES: ClassVar = {"size": (1, 100), "share": (0.0, 1.0)}
    size: int = 3
    share: float = 0.1
    mode: str = "easy"

    def check(self) -> None:
        if self.size == 7:
            raise ValueError("size 7 is not allowed")


def _toy(levels: list[dict[str, Any]]) -> Family:
    def generate(config: Any, rng: random.Random) -> Problem:
        return Problem(f"{config.size} {rng.random()}", "1")

    return Family("toy", "a made-up family", _Toy, tuple(levels), generate, answer_kind="int")


def test_a_level_easier_than_the_one_before_is_reported() -> None:
    family = _toy([{"size": 2}, {"size": 10}, {"size": 5}, {"size": 20}])
    problems = level_table_problems(family)
    assert any("level 2 is easier than level 1" in p and "size 10->5" in p for p in problems), problems


def test_a_trade_between_knobs_is_not_reported() -> None:
    family = _toy(
        [{"size": 2}, {"size": 10, "mode": "easy"}, {"size": 5, "mode": "hard"}, {"size": 20, "mode": "hard"}]
    )
    assert level_table_problems(family) == []


@pytest.mark.parametrize(
    ("levels", "message"),
    [
        ([{"size": 2}], "at least two levels"),
        ([{"size": 2}, {"size": 4}, {"size": 4}], "same as level 1"),
        ([{"size": 2}, {"sise": 4}], "unknown knob"),
        ([{"size": 2}, {"size": "big"}], "numeric at some levels"),
        ([{"size": 6}, {"size": 8}], "refused points"),
    ],
)
def test_broken_level_tables_are_reported(levels: list[dict[str, Any]], message: str) -> None:
    if message == "refused points":
        # size 7 lies between 6 and 8 but is refused: the highest valid point below is held
        family = _toy(levels)
        assert [interpolate_knobs(family, t)["size"] for t in (0.2, 0.25, 0.5, 0.74, 0.75, 0.9, 1.0)] == [
            6,
            6,
            6,
            6,
            8,
            8,
            8,
        ]
        assert level_table_problems(family) == []
        return
    assert any(message in p for p in level_table_problems(_toy(levels)))


def test_interpolation_rounds_monotonically_and_keeps_modes() -> None:
    family = _toy([{"size": 2, "share": 0.0, "mode": "easy"}, {"size": 5, "share": 1.0, "mode": "hard"}])
    values = [interpolate_knobs(family, step / 10) for step in range(11)]
    grid = [math.floor(step / 10 * 64) / 64 for step in range(11)]  # resolved to 1/64 of a level
    assert [v["size"] for v in values] == [math.floor(2 + 3 * t + 0.5) for t in grid]
    assert [v["size"] for v in values] == [2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5]
    assert [v["share"] for v in values] == pytest.approx(grid)
    assert [v["mode"] for v in values] == ["easy"] * 10 + ["hard"]
    one_sided = _toy([{"size": 2}, {"share": 0.5}])
    assert interpolate_knobs(one_sided, 0.5) == {"size": 3, "share": pytest.approx(0.3)}  # defaults 3, 0.1
    assert dataclasses.asdict(one_sided.config_for_difficulty(1.0)) == {"size": 3, "share": 0.5, "mode": "easy"}
