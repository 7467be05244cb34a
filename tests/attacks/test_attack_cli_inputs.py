"""Malformed input files given to the commands that read them: each is a usage error (exit 2)
naming the file and the line or row at fault, never an internal error (exit 70)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli.common import EXIT_CODES
from pipeline.cli.main import app

runner = CliRunner()
USAGE = EXIT_CODES["usage"]


def _json_error(args: list[str]) -> dict:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == USAGE, (result.exit_code, result.output, result.exception)
    return json.loads(result.stdout)["error"]


# --- synthenv trajectories export ---------------------------------------------------------

TRAJECTORY_ROW = {"episode": "e1", "step": 0, "task_id": "t1", "reward": 0.0, "status": None}


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("", None),  # an empty file has no rows to export
        ("\n\n", None),
        (json.dumps(TRAJECTORY_ROW) + "\n{not json\n", 2),
        (json.dumps(TRAJECTORY_ROW) + "\n[1, 2]\n", 2),
        ('{"a": 1}\n', 1),  # a row without episode / step
        (json.dumps({**TRAJECTORY_ROW, "step": "zero"}) + "\n", 1),
        ("PAR1\x00\x01garbage", 1),  # Parquet (or anything binary) is not a trajectory log
    ],
)
def test_trajectories_export_names_file_and_line(tmp_path: Path, text: str, line: int | None) -> None:
    src = tmp_path / "log.jsonl"
    src.write_text(text, encoding="utf-8")
    error = _json_error(["trajectories", "export", str(src), "--out", str(tmp_path / "o.parquet")])
    assert str(src) in error["message"]
    if line is not None:
        assert f"line {line}" in error["message"], error["message"]
    assert not (tmp_path / "o.parquet").exists()


def test_trajectories_export_refuses_a_directory(tmp_path: Path) -> None:
    (tmp_path / "logs.jsonl").mkdir()
    error = _json_error(["trajectories", "export", str(tmp_path / "logs.jsonl"), "--out", str(tmp_path / "o.parquet")])
    assert "logs.jsonl" in error["message"]


# --- synthenv curriculum update -------------------------------------------------------------


@pytest.mark.parametrize("band", ["0.9,0.1", "nan,inf", "nan,0.5", "0.2,1.5", "-0.1,0.5", "0.5,0.5", "0.5", "a,b"])
def test_curriculum_refuses_a_bad_target_band(tmp_path: Path, band: str) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps({"bundle": "x", "task_id": "t", "reward": 1.0}) + "\n", encoding="utf-8")
    error = _json_error(
        ["curriculum", "update", "--results", str(results), "--target", band, "--no-prefect", "--work", str(tmp_path)]
    )
    assert "--target" in error["message"], error["message"]


def test_curriculum_refuses_a_missing_results_file_before_prefect_starts(tmp_path: Path) -> None:
    """Without --no-prefect: the check comes first, so a typo costs no orchestrator start-up."""
    import time

    began = time.perf_counter()
    error = _json_error(["curriculum", "update", "--results", str(tmp_path / "nosuch.jsonl")])
    assert "no such results file" in error["message"] and time.perf_counter() - began < 5


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("{broken\n", "line 1"),
        ('{"bundle": "x", "task_id": "t", "reward": 1.0}\n[1]\n', "line 2"),
        ('{"bundle": "x", "reward": 1.0}\n', "missing task_id"),
        ('{"bundle": "x", "task_id": "t", "reward": 7}\n', "row 1"),
    ],
)
def test_curriculum_refuses_a_malformed_results_file_before_prefect_starts(
    tmp_path: Path, text: str, where: str
) -> None:
    """Without --no-prefect: the rows are read before the orchestrator starts, so a bad file is one
    line in about a second (it took 18.6 s and printed two Prefect tracebacks)."""
    import time

    results = tmp_path / "results.jsonl"
    results.write_text(text, encoding="utf-8")
    began = time.perf_counter()
    result = runner.invoke(app, ["curriculum", "update", "--results", str(results), "--registry", str(tmp_path)])
    assert result.exit_code == USAGE, (result.exit_code, result.output)
    assert time.perf_counter() - began < 5
    assert str(results) in result.output and where in result.output, result.output
    assert "Traceback" not in result.output and "prefect" not in result.output.lower()


def test_curriculum_results_bad_line_is_named(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    good = json.dumps({"bundle": "x", "task_id": "t", "reward": 1.0})
    results.write_text(f"{good}\n{good}\n{{broken\n", encoding="utf-8")
    error = _json_error(["curriculum", "update", "--results", str(results), "--no-prefect", "--work", str(tmp_path)])
    assert str(results) in error["message"] and "line 3" in error["message"], error["message"]


# --- synthenv calibrate ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "report",
    [
        {"families": 3, "tasks": []},
        {"families": {}, "tasks": {"a": 1}, "bundle": {"digest": "x", "ref": "y"}, "policy": "p"},
        {"families": {}, "tasks": {}, "policy": "p"},
        {"families": {}, "tasks": {"a": {"family": "f"}}, "bundle": {"digest": "x", "ref": "y"}, "policy": "p"},
    ],
)
def test_calibrate_refuses_a_malformed_report(store_bundle: Path, tmp_path: Path, report: dict) -> None:
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    error = _json_error(["calibrate", str(store_bundle), str(path), "--out", str(tmp_path / "out")])
    assert str(path) in error["message"], error["message"]


# --- synthenv evaluate --out (a run directory is resumed, so it is input) --------------------


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("run.json", "[1]", "run.json"),
        ("run.json", "{broken", "run.json"),
        ("episodes.jsonl", '{"task_id": "t"}\n[1]\n', "line 2"),
    ],
)
def test_evaluate_refuses_a_malformed_run_directory(
    store_bundle: Path, tmp_path: Path, name: str, text: str, where: str
) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / name).write_text(text, encoding="utf-8")
    error = _json_error(["evaluate", str(store_bundle), "--policy", "refuse", "--no-prefect", "--out", str(out)])
    assert str(out / name) in error["message"] and where in error["message"], error["message"]


def test_evaluate_refuses_a_file_as_its_run_directory(store_bundle: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.write_text("x", encoding="utf-8")
    error = _json_error(["evaluate", str(store_bundle), "--policy", "refuse", "--no-prefect", "--out", str(out)])
    assert str(out) in error["message"]


@pytest.mark.parametrize(
    ("history", "where"),
    [("{broken\n", "line 1"), ('{"ok": 1}\n[1]\n', "line 2"), ("{digest}\n", "line 1")],
)
def test_curriculum_names_a_bad_history_line(store_bundle: Path, tmp_path: Path, history: str, where: str) -> None:
    """The state's history is read to skip results already applied; a damaged line is named."""
    task = json.loads((store_bundle / "tasks.jsonl").read_text(encoding="utf-8").splitlines()[0])["id"]
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps({"bundle": str(store_bundle), "task_id": task, "reward": 1.0}) + "\n")
    from pipeline.jobs.curriculum import history_path, results_digest

    state = tmp_path / "state.json"
    digest = results_digest(results)
    history = history.replace("{digest}", json.dumps({"results_digest": digest, "surprise": 1}))
    history_path(state).write_text(history, encoding="utf-8")
    args = ["curriculum", "update", "--results", str(results), "--state", str(state), "--no-prefect"]
    error = _json_error([*args, "--work", str(tmp_path / "work"), "--registry", str(tmp_path / "reg")])
    assert str(history_path(state)) in error["message"] and where in error["message"], error["message"]
