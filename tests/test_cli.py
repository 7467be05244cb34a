"""The command line: machine-readable output and exit codes other scripts rely on."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from pipeline.cli.common import EXIT_CODES
from pipeline.cli.main import app

runner = CliRunner()

SUMMARY_KEYS = {"path", "digest", "name", "version", "tables", "rows", "tools", "tasks", "dropped"}


def test_domains_json() -> None:
    result = runner.invoke(app, ["domains", "--json"])
    assert result.exit_code == 0, result.output
    names = {d["name"] for d in json.loads(result.stdout)}
    assert {"online_store", "clinic_appointments", "library_loans"} <= names


def test_generate_json_then_info_and_check(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["generate", "--domain", "library_loans", "--seed", "2", "--out", str(tmp_path), "--no-prefect", "--json"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert set(summary) >= SUMMARY_KEYS
    assert summary["tasks"] > 0 and summary["tables"] >= 6

    info = runner.invoke(app, ["info", summary["path"], "--json"])
    assert info.exit_code == 0 and json.loads(info.stdout)["digest"] == summary["digest"]

    check = runner.invoke(app, ["check", summary["path"], "--json"])
    assert check.exit_code == 0, check.output
    report = json.loads(check.stdout)
    assert report["ok"] and report["passed"] == summary["tasks"]


def test_check_fails_and_names_a_broken_task(store_bundle: Path, tmp_path: Path) -> None:
    from pipeline.bundle.format import write_bundle

    copy = tmp_path / "broken"
    shutil.copytree(store_bundle, copy)
    lines = (copy / "tasks.jsonl").read_text().splitlines()
    task = json.loads(lines[0])
    task["verifier"]["answer"]["expected"] = "definitely not the answer"
    task["verifier"]["answer"]["kind"] = "text"
    lines[0] = json.dumps(task)
    (copy / "tasks.jsonl").write_text("\n".join(lines) + "\n")
    manifest = json.loads((copy / "manifest.json").read_text())
    write_bundle(copy, {k: v for k, v in manifest.items() if k not in ("files", "digest", "format")})
    result = runner.invoke(app, ["check", str(copy)])
    assert result.exit_code == 1
    assert task["id"] in result.stdout and "gold_below_1" in result.stdout


def test_bad_inputs_exit_with_a_message(tmp_path: Path) -> None:
    result = runner.invoke(app, ["generate", "--domain", "atlantis", "--out", str(tmp_path), "--no-prefect"])
    assert result.exit_code == 2 and "unknown domain" in result.output
    result = runner.invoke(app, ["info", str(tmp_path)])
    assert result.exit_code == EXIT_CODES["refused"] and "not a bundle" in result.output
    result = runner.invoke(app, ["info", str(tmp_path / "nothing-here")])
    assert result.exit_code == EXIT_CODES["not_found"] and "no such bundle" in result.output
