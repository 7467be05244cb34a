"""The curriculum for tool-use bundles: an evaluation run in, more of the frontier out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.bundle.format import load_bundle
from pipeline.cli.main import app
from pipeline.jobs import curriculum as loop
from pipeline.jobs import task_mix
from pipeline.jobs.evaluate import Target, evaluate
from pipeline.tasks.families import FAMILIES


def test_next_mix_grows_the_frontier_halves_the_easy_and_keeps_the_rest() -> None:
    mix = {"lookup": {0: 2, 1: 2, 2: 2, 3: 1}, "count": {0: 1, 1: 1}}
    stats = {
        ("lookup", 0): task_mix.CellStats(8, 1.0),  # easy: halved
        ("lookup", 1): task_mix.CellStats(8, 0.625),  # frontier: doubled
        ("lookup", 2): task_mix.CellStats(8, 0.125),  # hard: kept
        ("lookup", 3): task_mix.CellStats(8, 0.875),  # easy, but the family's top level: at least one
        ("count", 0): task_mix.CellStats(2, 0.5),  # too few scores: kept
        ("count", 1): task_mix.CellStats(4, 1.0),  # easy top level: stays at one
    }
    after, verdicts = task_mix.next_mix(mix, stats, (0.5, 0.8), min_samples=4)
    assert after == {"lookup": {0: 1, 1: 4, 2: 2, 3: 1}, "count": {0: 1, 1: 1}}
    assert verdicts["lookup"] == {"0": "easy", "1": "frontier", "2": "hard", "3": "easy"}
    assert verdicts["count"] == {"0": "few", "1": "easy"}
    capped, _ = task_mix.next_mix({"x": {0: 20}}, {("x", 0): task_mix.CellStats(9, 0.6)}, (0.5, 0.8), 4)
    assert capped == {"x": {0: task_mix.MAX_PER_CELL}}


def test_a_default_bundle_has_its_tasks_per_family_spread_over_levels(store_bundle: Path) -> None:
    mix = task_mix.current_mix(load_bundle(store_bundle))
    # Six slots over five levels: level 0 gets the sixth (levels 0-4 are the ramp; 5 is judgment only).
    assert mix["lookup"] == {0: 2, 1: 1, 2: 1, 3: 1, 4: 1}
    assert mix["case"] == {5: 6}
    assert len(mix) == len(FAMILIES)


def test_an_evaluation_run_feeds_the_tool_use_curriculum_and_the_next_version_has_the_new_mix(
    store_bundle: Path, tmp_path: Path
) -> None:
    run = evaluate(Target(str(store_bundle)), policy="reference", trials=4, tasks="lookup", out=tmp_path / "run")
    # An errored episode in the rows never counts.
    rows = (Path(run["out"]) / "episodes.jsonl").read_text().splitlines()
    broken = {**json.loads(rows[0]), "status": "error", "reward": 0.0, "trial": 99}
    with (Path(run["out"]) / "episodes.jsonl").open("a") as fh:
        fh.write(json.dumps(broken) + "\n")
    assert len(loop.read_results(run["out"])) == 24

    registry, state = str(tmp_path / "registry"), tmp_path / "state.json"
    report = loop.update(run["out"], state, registry, tmp_path / "work")
    assert report.kind == "tool_use" and report.changed
    # All easy: halved (level 0 held two), the top level kept.
    assert report.mix_after["lookup"] == {"0": 1, "1": 0, "2": 0, "3": 0, "4": 1}
    assert report.mix_after["count"] == report.mix_before["count"]  # no scores: unchanged
    assert report.cells["lookup"]["2"] == {"n": 4, "rate": 1.0, "verdict": "easy"}
    child = load_bundle(registry_path(registry, report.next))
    parent = load_bundle(store_bundle)
    assert child.manifest.lineage.parent == parent.ref and child.version == "1.1.0"
    assert (child.manifest.as_tool_use().knobs.task_mix or {})["lookup"]["4"] == 1
    levels = {(t["family"], t["level"]) for t in child.read_jsonl("tasks.jsonl")}
    assert {lvl for f, lvl in levels if f == "lookup"} == {0, 4}
    assert {lvl for f, lvl in levels if f == "count"} == set(range(5))
    same = {t["id"]: t["instruction"] for t in parent.read_jsonl("tasks.jsonl")}
    assert all(same[t["id"]] == t["instruction"] for t in child.read_jsonl("tasks.jsonl"))  # the same tasks, fewer
    assert "nothing moved" not in loop.report_markdown(report.as_dict())
    again = loop.update(run["out"], state, registry, tmp_path / "work")
    assert again.already_applied and again.next == report.next
    args = ["curriculum", "update", "--results", run["out"], "--state", str(state), "--registry", registry]
    shown = CliRunner().invoke(app, [*args, "--work", str(tmp_path / "work"), "--no-prefect"])
    assert shown.exit_code == 0, shown.output
    assert "results already applied" in shown.output and "L2 1.00 easy 1->0" in shown.output


def registry_path(registry: str, ref: str) -> Path:
    from pipeline.registry.registry import Registry

    return Registry(registry).pull(ref, to=Path(registry).parent / "pulled")


def test_a_results_directory_must_be_an_evaluation_run(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"no episodes\.jsonl"):
        loop.read_results(tmp_path)
