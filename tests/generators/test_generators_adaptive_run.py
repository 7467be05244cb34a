"""The adaptive curriculum over real items: generated at the window's difficulties, answered by
a scripted policy of fixed skill, scored by each family's own scorer, converges into the band."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from generators import registry
from generators.adaptive import AdaptiveCurriculum
from generators.adaptive_run import JUNK_ANSWER, ScriptedPolicy, open_curriculum, play_round, report_markdown, run

TARGET = (0.5, 0.8)
# One family per category, at skills spread over the difficulty scale.
SPREAD = {
    "gcd_lcm": 3.3,
    "linear_equation": 1.4,
    "sudoku": 2.7,
    "grid_rotate_flip": 4.1,
    "caesar_cipher": 0.9,
    "figure_pattern": 2.2,
    "polygon_area": 4.4,
    "program_output": 2.4,
    "syllogism": 3.7,
    "graph_coloring": 1.8,
    "list_functions": 2.9,
    "knights_knaves": 0.6,
}


def _check(report_families: dict, rounds: int, settle_by: int) -> None:  # type: ignore[type-arg]
    low, high = TARGET
    for c in report_families.values():
        assert c.rounds_to_band is not None and c.rounds_to_band <= settle_by, c
        assert low <= c.final_expected <= high, c
        assert low - 0.06 <= c.final_observed <= high + 0.06, c
        assert c.skill - 1.0 <= c.final_centre <= c.skill + 0.1, c


def test_the_spread_exists() -> None:
    known = set(registry.list_families())
    assert set(SPREAD) <= known
    every = {registry.category_of(name) for name in known}
    assert {registry.category_of(name) for name in SPREAD} == every


def test_real_items_converge_into_the_band_for_a_family_of_each_category(tmp_path: Path) -> None:
    state = tmp_path / "adaptive.json"
    curriculum = open_curriculum(sorted(SPREAD), state, TARGET)
    report = run(curriculum, ScriptedPolicy(SPREAD), rounds=70, batch=32, seed=0, state=state)
    _check(report.families, 70, 50)
    assert sorted(report.in_band) == sorted(SPREAD)
    # the state saved after the last round is the curriculum's, and it resumes
    assert json.loads(state.read_text()) == curriculum.to_json()
    assert open_curriculum(sorted(SPREAD), state).to_json() == curriculum.to_json()
    table = report_markdown(report.as_dict())
    assert f"{len(SPREAD)} of {len(SPREAD)} families in band" in table


def test_scores_come_from_the_scorer_and_match_the_policy() -> None:
    curriculum = AdaptiveCurriculum(["gcd_lcm", "maze"], start=2.0)
    policy = ScriptedPolicy({"gcd_lcm": 2.0, "maze": 2.0})
    results = play_round(curriculum, policy, 0, 200, seed=3)
    assert len(results) == 400
    for name in ("gcd_lcm", "maze"):
        low, high = curriculum.bounds(name)
        rows = [r for r in results if r[0] == name]
        assert all(low <= d <= high for _, d, _ in rows)
        assert {s for _, _, s in rows} == {0.0, 1.0}
        rate = sum(s for _, _, s in rows) / len(rows)
        assert abs(rate - 0.5) < 0.12, (name, rate)  # skill == centre: success about one half


def test_the_junk_answer_scores_zero_and_gold_one_on_drawn_items() -> None:
    from generators.dataset import make_item, score

    family = registry.get_family("syllogism")
    item = make_item(family, family.config_for_difficulty(2.5), None, 0, 1, 2.5)
    assert score(family, JUNK_ANSWER, item) == 0.0
    assert score(family, item["answer"], item) == 1.0
    never = ScriptedPolicy({"syllogism": -50.0})
    always = ScriptedPolicy({"syllogism": 50.0})
    assert never.answer(item) == JUNK_ANSWER and always.answer(item) == item["answer"]


def test_an_unbeatable_policy_drives_the_window_to_the_top_and_stays_out_of_band() -> None:
    curriculum = AdaptiveCurriculum(["gcd_lcm"])
    report = run(curriculum, ScriptedPolicy({"gcd_lcm": 40.0}), rounds=40, batch=32)
    assert curriculum.difficulty("gcd_lcm") == 5.0
    assert report.families["gcd_lcm"].rounds_to_band is None and report.in_band == []


def test_bad_runs_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no skill for maze"):
        run(AdaptiveCurriculum(["gcd_lcm", "maze"]), ScriptedPolicy({"gcd_lcm": 1.0}), rounds=2)
    with pytest.raises(ValueError, match="tail"):
        run(AdaptiveCurriculum(["gcd_lcm"]), ScriptedPolicy({"gcd_lcm": 1.0}), rounds=2, tail=0)
    state = tmp_path / "s.json"
    AdaptiveCurriculum(["gcd_lcm"]).save(state)
    with pytest.raises(ValueError, match="tracks gcd_lcm"):
        open_curriculum(["maze"], state)


@pytest.mark.slow
def test_every_family_converges_over_real_items() -> None:
    names = registry.list_families()
    rng = random.Random(7)
    skills = {name: round(rng.uniform(0.5, 4.6), 2) for name in names}
    report = run(AdaptiveCurriculum(names, target=TARGET), ScriptedPolicy(skills), rounds=80, batch=32)
    _check(report.families, 80, 60)
    assert len(report.in_band) == len(names)
