"""``synthenv curriculum simulate --no-prefect``: the adaptive curriculum from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli.main import app


def test_simulate_converges_saves_state_and_prints_json(tmp_path: Path) -> None:
    state = tmp_path / "adaptive.json"
    args = ["curriculum", "simulate", "--skill", "gcd_lcm=3.3,maze=1.2", "--rounds", "40", "--no-prefect"]
    result = CliRunner().invoke(app, [*args, "--state", str(state), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["in_band"] == 2 and sorted(report["families"]) == ["gcd_lcm", "maze"]
    assert all(0.5 <= c["final_expected"] <= 0.8 for c in report["families"].values())
    assert json.loads(state.read_text())["format"] == "synthenv-adaptive-curriculum/1"
    table = CliRunner().invoke(app, [*args, "--rounds", "1"])  # resumes the saved windows
    assert table.exit_code in (0, 1) and "| gcd_lcm |" in table.stdout


def test_a_policy_the_curriculum_cannot_hold_in_band_exits_1() -> None:
    args = ["curriculum", "simulate", "--skill", "gcd_lcm=40", "--rounds", "5", "--no-prefect", "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["in_band"] == 0


@pytest.mark.parametrize(
    ("skill", "message"),
    [("maze", "FAMILY=SKILL"), ("maze=fast", "FAMILY=SKILL"), ("maze=nan", "FAMILY=SKILL"), ("nope=1", "nope")],
)
def test_bad_skills_are_usage_errors(skill: str, message: str) -> None:
    result = CliRunner().invoke(app, ["curriculum", "simulate", "--skill", skill, "--no-prefect"])
    assert result.exit_code == 2 and message in result.output, result.output
