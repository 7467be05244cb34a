"""Procedural bundles: same format and digest rule as tool-use bundles, exported rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.bundle.format import load_bundle
from pipeline.cli.main import app
from pipeline.package.procedural import build_procedural_bundle, parse_weights
from pipeline.runtime.procedural import ProceduralEnvironment

runner = CliRunner()


def test_families_json_lists_at_least_forty() -> None:
    result = runner.invoke(app, ["families", "--kind", "procedural", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert len(rows) >= 40 and all(r["levels"] == [0, 1, 2, 3, 4, 5] and r["answer_kind"] for r in rows)


def test_families_lists_both_kinds_through_one_contract() -> None:
    from pipeline.families import TaskFamily, families

    result = runner.invoke(app, ["families", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    tool_use = {r["name"]: r["levels"] for r in rows if r["kind"] == "tool_use"}
    assert tool_use["case"] == [5] and tool_use["lookup"] == [0, 1, 2, 3, 4]
    assert {r["kind"] for r in rows} == {"procedural", "tool_use"}
    for kind in ("procedural", "tool_use"):
        for fam in families(kind).values():
            assert isinstance(fam, TaskFamily)
            top = fam.level_numbers()[-1]
            assert isinstance(fam.knobs_at(top), dict)
            with pytest.raises(ValueError):
                fam.knobs_at(top + 1)
    assert runner.invoke(app, ["families", "--kind", "nope"]).exit_code == 2


def test_procedural_cli_writes_a_bundle_and_parquet(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    result = runner.invoke(
        app,
        [
            "procedural",
            "--family",
            "gcd_lcm,maze",
            "--weights",
            "3,1",
            "--level",
            "1",
            "--n",
            "40",
            "--seed",
            "5",
            "--out",
            str(tmp_path),
            "--format",
            "parquet",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    bundle = load_bundle(summary["path"])
    assert bundle.manifest.kind == "procedural" and summary["tasks"] == 40
    assert summary["per_family"]["gcd_lcm"] > summary["per_family"]["maze"]
    rows = duckdb.sql(f"SELECT question, answer, metadata->>'family' AS f FROM '{summary['export']}'").fetchall()
    assert len(rows) == 40 and {r[2] for r in rows} == {"gcd_lcm", "maze"}


def test_same_inputs_same_digest(tmp_path: Path) -> None:
    a = build_procedural_bundle(["sort_numbers", "caesar_cipher"], tmp_path / "a", n=30, seed=2)
    b = build_procedural_bundle(["sort_numbers", "caesar_cipher"], tmp_path / "b", n=30, seed=2)
    c = build_procedural_bundle(["sort_numbers", "caesar_cipher"], tmp_path / "c", n=30, seed=3)
    assert a.digest == b.digest != c.digest


def test_procedural_environment_scores_gold_one_and_junk_zero(tmp_path: Path) -> None:
    bundle = build_procedural_bundle(["knapsack", "calendar_weekday", "n_queens"], tmp_path, n=24, seed=1, level=3)
    env = ProceduralEnvironment.from_bundle(bundle.path)
    for task in env.tasks:
        env.reset(task_id=task["id"])
        _, reward, _, _, info = env.step({"answer": task["answer"]})
        assert reward == 1.0 and info["verification"]["status"] == "passed", task["id"]
        env.reset(task_id=task["id"])
        _, reward, _, _, info = env.step({"answer": "banana"})
        assert reward == 0.0 and info["verification"]["status"] == "failed"
    env.reset(task_id=env.tasks[0]["id"])
    assert env.step({"tool": "x"})[0]["error"]["code"] == "invalid_action"


def test_a_scorer_that_cannot_run_is_an_error_not_a_zero(tmp_path: Path) -> None:
    bundle = build_procedural_bundle(["knapsack"], tmp_path, n=4, seed=1)
    env = ProceduralEnvironment.from_bundle(bundle.path)
    env.reset(task_id=env.tasks[0]["id"])
    env._task = {**env._task, "metadata": {**env._task["metadata"], "family": "no_such_family"}}  # a corrupt item
    _, reward, terminated, _, info = env.step({"answer": env.tasks[0]["answer"]})
    assert (reward, terminated, info["verification"]["status"]) == (0.0, True, "error")


@pytest.mark.parametrize(
    "families, weights, message",
    [
        (["gcd_lcm", "maze"], "1", "one weight per family"),
        (["gcd_lcm"], "x", "comma-separated numbers"),
    ],
)
def test_bad_weights_are_explained(families: list[str], weights: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_weights(families, weights)


def test_unknown_family_exits_with_a_message(tmp_path: Path) -> None:
    result = runner.invoke(app, ["procedural", "--family", "gcd_lcmm", "--n", "5", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "gcd_lcm" in result.output


def test_a_repeated_family_option_keeps_every_family(tmp_path: Path) -> None:
    """``--family a --family b`` means both, as ``--family a,b`` does (a repeated option once kept only the last)."""
    args = ["procedural", "--n", "20", "--seed", "1", "--json"]
    repeated = runner.invoke(app, [*args, "--family", "gcd_lcm", "--family", "maze", "--out", str(tmp_path / "a")])
    joined = runner.invoke(app, [*args, "--family", "gcd_lcm,maze", "--out", str(tmp_path / "b")])
    assert repeated.exit_code == 0 and joined.exit_code == 0, repeated.output + joined.output
    both, one = json.loads(repeated.stdout), json.loads(joined.stdout)
    assert set(both["per_family"]) == {"gcd_lcm", "maze"} and both["digest"] == one["digest"]
