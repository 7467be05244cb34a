"""``synthenv info`` as a person reads it: short lines, no field a bundle kind lacks, totals not raw JSON."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from pipeline.cli.main import app
from pipeline.package.procedural import build_procedural_bundle


def _info(path: Path, *extra: str) -> str:
    result = CliRunner().invoke(app, ["info", str(path), *extra], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def test_info_reads_at_a_glance_for_both_kinds(store_bundle: Path, tmp_path: Path) -> None:
    procedural = build_procedural_bundle(["gcd_lcm", "maze"], tmp_path, n=6, seed=0)
    for path in (store_bundle, procedural.path):
        text = _info(path)
        lines = text.splitlines()
        assert "None" not in text and all(len(line) <= 160 for line in lines), text
        assert lines[-1].split()[0] == "path" and any(line.split()[0] == "counts" for line in lines)
        assert json.loads(_info(path, "--json"))["counts"]  # every figure stays in --json
    counts = next(line for line in _info(procedural.path).splitlines() if line.split()[0] == "counts")
    assert "6 tasks" in counts and "gcd_lcm " in counts and "maze " in counts, counts
