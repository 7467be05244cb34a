"""The real Prefect flow, end to end, as a user runs it (temporary local server)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.bundle.format import load_bundle
from pipeline.tasks.check import check_bundle


@pytest.mark.prefect
def test_generate_command_runs_the_flow_and_matches_the_plain_steps(tmp_path: Path) -> None:
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect-home")}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pipeline.cli.main",
            "generate",
            "--domain",
            "online_store",
            "--seed",
            "7",
            "--out",
            str(tmp_path / "out"),
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout)
    for step in ("schema", "populate", "tools", "tasks", "package"):
        assert step in proc.stderr, f"no progress shown for {step}"
        assert summary["seconds"][step] >= 0
    bundle = load_bundle(summary["path"])
    report = check_bundle(bundle.path)
    assert report.ok and report.tasks == summary["tasks"] > 0

    from pipeline.jobs.steps import Inputs, generate

    plain = generate(Inputs(domain="online_store", seed=7), tmp_path / "plain", tmp_path / "work")
    assert plain["digest"] == summary["digest"]
