"""The adaptive difficulty curriculum brings every family's success into the target band."""

from __future__ import annotations

import random

import pytest

from generators import registry
from generators.adaptive import AdaptiveCurriculum, simulate, success_probability
from generators.dataset import create_dataset

FAMILY_NAMES = registry.list_families()
TARGET = (0.5, 0.8)
ROUNDS = 120


def _skills(names: list[str]) -> dict[str, float]:
    rng = random.Random(7)
    return {name: round(rng.uniform(0.5, 4.6), 2) for name in names}


def test_every_family_converges_into_the_band() -> None:
    curriculum = AdaptiveCurriculum(FAMILY_NAMES, target=TARGET)
    report = simulate(curriculum, _skills(FAMILY_NAMES), rounds=ROUNDS, seed=1)
    low, high = TARGET
    for result in report.values():
        assert result.rounds_to_band is not None and result.rounds_to_band <= ROUNDS - 30, result
        assert low <= result.final_expected <= high, result
        assert low - 0.04 <= result.final_observed <= high + 0.04, result
        # the window sits near the skill: success 0.5..0.8 means difficulty a little below it
        assert result.skill - 1.0 <= result.final_centre <= result.skill + 0.1, result


def test_steps_are_small_and_continuous() -> None:
    curriculum = AdaptiveCurriculum(["maze"], max_step=0.25)
    simulate(curriculum, {"maze": 3.3}, rounds=60, seed=2)
    moves = curriculum.state("maze").moves
    assert moves, "the window never moved"
    assert all(abs(new - old) <= 0.25 + 1e-9 for _, old, new in moves)
    assert any(not float(new).is_integer() for _, _, new in moves)


def test_a_learner_too_strong_for_the_top_stays_at_the_top() -> None:
    curriculum = AdaptiveCurriculum({"toy": 5.0})
    report = simulate(curriculum, {"toy": 9.0}, rounds=60, seed=3)
    assert report["toy"].final_centre == 5.0
    assert report["toy"].rounds_to_band is None  # the band is out of reach and it is reported


def test_a_window_without_the_controller_leaves_the_band() -> None:
    """The test can fail: a frozen centre (no adaptation) misses the band for most skills."""
    frozen = AdaptiveCurriculum(FAMILY_NAMES, gain=1e-9, max_step=1e-9)
    report = simulate(frozen, _skills(FAMILY_NAMES), rounds=40, seed=1)
    assert sum(r.rounds_to_band is None for r in report.values()) > len(report) / 2


def test_stale_results_are_not_counted_and_bad_batches_change_nothing() -> None:
    curriculum = AdaptiveCurriculum(["maze", "gcd_lcm"], start={"maze": 2.0})
    curriculum.record(
        [("maze", 4.5, 1.0), ("maze", 2.1, 1.0), {"metadata": {"family": "maze", "difficulty": 1.9}, "reward": 0.0}]
    )
    state = curriculum.state("maze")
    assert (state.stale, state.since_change, state.total) == (1, 2, 3)
    for bad in ([("maze", 2.0, 1.5)], [("nope", 1.0)], [("maze", 2.0, 1.0), ("maze", "x", 1.0)], ["junk"]):
        with pytest.raises(ValueError):
            curriculum.record(bad)
    assert state.total == 3


def test_snapshot_round_trips(tmp_path) -> None:  # type: ignore[no-untyped-def]
    curriculum = AdaptiveCurriculum(["maze", "gcd_lcm"])
    simulate(curriculum, {"maze": 2.0, "gcd_lcm": 4.0}, rounds=10, seed=4, tail=5)
    path = tmp_path / "state.json"
    curriculum.save(path)
    again = AdaptiveCurriculum.load(path)
    assert again.to_json() == curriculum.to_json()
    with pytest.raises(ValueError):
        AdaptiveCurriculum.from_json({"format": "other"})


@pytest.mark.parametrize(
    "kwargs",
    [
        {"target": (0.8, 0.5)},
        {"spread": -1.0},
        {"gain": 0.0},
        {"min_samples": 100, "window": 10},
        {"start": 7.0},
        {"start": {"unknown": 1.0}},
        {"hysteresis": 0.2},
    ],
)
def test_bad_settings_are_value_errors(kwargs: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(ValueError):
        AdaptiveCurriculum(["maze"], **kwargs)


def test_sampled_difficulties_make_items() -> None:
    """The window's difficulties are valid inputs to create_dataset for every family."""
    curriculum = AdaptiveCurriculum(FAMILY_NAMES, start=2.4)
    rng = random.Random(5)
    for name in FAMILY_NAMES:
        difficulty = curriculum.sample(name, rng)
        low, high = curriculum.bounds(name)
        assert low <= difficulty <= high
        item = create_dataset(name, difficulty=difficulty, size=1, on_shortfall="truncate")[0]
        assert item["metadata"]["difficulty"] == difficulty


def test_learner_curve() -> None:
    assert success_probability(2.0, 2.0) == 0.5
    assert success_probability(3.0, 1.0) > 0.95 > 0.05 > success_probability(1.0, 3.0)
