"""A version, once written, is never rewritten: a second build with other content into the same
output directory is refused (exit 4 from the command line) and the first bundle stays byte for byte;
the same content again is a no-op."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.bundle.format import load_bundle
from pipeline.package.build import VersionExists
from pipeline.package.procedural import build_procedural_bundle


def _files(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def test_other_content_under_a_written_version_is_refused(tmp_path: Path) -> None:
    first = build_procedural_bundle(["gcd_lcm"], tmp_path, n=5, seed=0)
    before = _files(tmp_path)
    with pytest.raises(VersionExists, match="never rewritten"):  # another level under this name (a curriculum's)
        build_procedural_bundle(["gcd_lcm"], tmp_path, n=5, seed=0, level={"gcd_lcm": 4}, name=first.name)
    assert _files(tmp_path) == before  # nothing changed, no scratch directory left behind
    again = build_procedural_bundle(["gcd_lcm"], tmp_path, n=5, seed=0)
    assert again.digest == first.digest and _files(tmp_path) == before


KNOBS = [
    {},
    {"level": 2},
    {"level": {"maze": 1}},
    {"difficulty": 2.0},
    {"difficulty": 2.5},
    {"n": 7},
    {"weights": {"gcd_lcm": 2.0, "maze": 1.0}},
    {"weights": {"gcd_lcm": 2.0, "maze": 2.0}},
]


def test_level_size_and_weights_are_in_a_procedural_name(tmp_path: Path) -> None:
    """Builds that differ in level, difficulty, size or weights get different names, so each is
    published as its own 1.0.0 (before, all eight were proc-gcd-lcm.maze-s0 and every build after the
    first was refused); the same knobs again are the same name and bytes."""
    from pipeline.registry.registry import Registry

    registry = Registry(str(tmp_path / "reg"))
    names = []
    for i, knobs in enumerate(KNOBS):
        built = build_procedural_bundle(["gcd_lcm", "maze"], tmp_path / "out", **{"n": 6, "seed": 0, **knobs})
        assert built.version == "1.0.0" and registry.publish(built.path).created, (knobs, built.name)
        names.append(built.name)
        again = build_procedural_bundle(["gcd_lcm", "maze"], tmp_path / f"again{i}", **{"n": 6, "seed": 0, **knobs})
        assert (again.name, again.digest) == (built.name, built.digest)
    assert len(set(names)) == len(KNOBS), names
    assert names[:3] == ["proc-gcd-lcm.maze-lv0-n6-s0", "proc-gcd-lcm.maze-lv2-n6-s0", "proc-gcd-lcm.maze-lv0_1-n6-s0"]


def test_a_directory_that_is_not_a_bundle_is_not_replaced(tmp_path: Path) -> None:
    first = build_procedural_bundle(["gcd_lcm"], tmp_path / "a", n=3, seed=0)
    squatter = tmp_path / "b" / first.name / first.version
    squatter.mkdir(parents=True)
    (squatter / "notes.txt").write_text("mine")
    with pytest.raises(VersionExists, match="not a valid bundle"):
        build_procedural_bundle(["gcd_lcm"], tmp_path / "b", n=3, seed=0)
    assert (squatter / "notes.txt").read_text() == "mine"


@pytest.mark.slow
def test_generate_over_a_version_holding_other_content_exits_4(tmp_path: Path) -> None:
    """Another world squats on the directory ``generate`` writes: refused, the squatter intact."""
    import shutil

    def generate(out: Path, rows: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "pipeline.cli.main", "generate", "--domain", "online_store", "--seed", "0"]
        command += ["--no-prefect", "--out", str(out), "--json", "--rows", rows]
        return subprocess.run(command, capture_output=True, text=True, timeout=600)

    mine = generate(tmp_path / "a", "200")
    other = generate(tmp_path / "b", "300")
    assert mine.returncode == other.returncode == 0, mine.stderr + other.stderr
    target = Path(json.loads(mine.stdout)["path"])
    assert target.name == "1.0.0" and target.parent.name == "online-store-s0-r200"  # the size is in the name
    shutil.rmtree(target)
    shutil.copytree(Path(json.loads(other.stdout)["path"]), target)
    squatter = load_bundle(target).digest
    refused = generate(tmp_path / "a", "200")
    assert refused.returncode == 4, refused.stderr
    assert json.loads(refused.stdout)["error"]["code"] == "refused"
    assert load_bundle(target).digest == squatter


def test_a_second_calibrate_over_a_written_version_exits_4(store_bundle: Path, tmp_path: Path) -> None:
    """Two evaluations that differ calibrate into the same next version: the second is refused like a
    second generate (exit 4, ``refused``; it was 2, ``usage``) and the first calibrated bundle stays."""
    from typer.testing import CliRunner

    from pipeline.cli.main import app

    runner = CliRunner()
    runs = []
    for policy in ("reference", "refuse"):
        run = tmp_path / policy
        args = [
            "evaluate",
            str(store_bundle),
            "--policy",
            policy,
            "--tasks",
            "count",
            "--no-prefect",
            "--out",
            str(run),
        ]
        assert runner.invoke(app, args).exit_code == 0
        runs.append(run)
    out = tmp_path / "out"
    assert runner.invoke(app, ["calibrate", str(store_bundle), str(runs[0]), "--out", str(out)]).exit_code == 0
    before = _files(out)
    second = runner.invoke(app, ["calibrate", str(store_bundle), str(runs[1]), "--out", str(out), "--json"])
    assert second.exit_code == 4, (second.exit_code, second.output)
    error = json.loads(second.stdout)["error"]
    assert error["code"] == "refused" and "never rewritten" in error["message"]
    assert _files(out) == before
