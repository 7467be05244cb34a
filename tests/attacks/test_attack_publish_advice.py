"""A taken version refused at publish comes with advice that works when followed: for a procedural
bundle (never re-versioned at publish) the ``synthenv procedural`` command that builds it again under
the next free version; for a tool-use bundle ``--bump patch`` / ``--version``."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli.common import EXIT_CODES
from pipeline.cli.main import app

runner = CliRunner()
BUILD = ["procedural", "--family", "gcd_lcm,maze", "--n", "6", "--seed", "3", "--weights", "2,1", "--json"]


def _json(args: list[str]) -> dict:
    result = runner.invoke(app, [*args, "--json"] if "--json" not in args else args)
    assert result.exit_code == 0, (result.exit_code, result.output)
    return json.loads(result.stdout)


def _refused(args: list[str]) -> str:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == EXIT_CODES["refused"], (result.exit_code, result.output)
    return json.loads(result.stdout)["error"]["message"]


@pytest.fixture
def taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A registry holding one procedural bundle at 1.0.0, and a bundle of other content under the same
    name and version (the same knobs after a generator upgrade)."""
    import generators

    monkeypatch.chdir(tmp_path)
    registry = tmp_path / "reg"
    first = _json([*BUILD, "--out", str(tmp_path / "a")])
    _json(["publish", first["path"], "--registry", str(registry)])
    monkeypatch.setattr(generators, "GENERATOR_VERSION", generators.GENERATOR_VERSION + "-next")
    second = _json([*BUILD, "--out", str(tmp_path / "b")])
    assert (second["name"], second["version"]) == (first["name"], "1.0.0") and second["digest"] != first["digest"]
    return registry, Path(second["path"])


@pytest.mark.parametrize("how", [[], ["--bump", "patch"], ["--version", "1.0.1"]])
def test_a_procedural_bundle_is_told_a_command_that_publishes_it(taken: tuple[Path, Path], how: list[str]) -> None:
    registry, bundle = taken
    message = _refused(["publish", str(bundle), "--registry", str(registry), *how])
    command = re.search(r"`(synthenv procedural [^`]+)`", message)
    assert command is not None, message
    args = shlex.split(command.group(1))[1:]
    assert args[args.index("--version") + 1] == "1.0.1" and args[args.index("--weights") + 1] == "2,1"
    built = _json([*args, "--json"])
    published = _json(["publish", built["path"], "--registry", str(registry), "--json"])
    assert published["created"] and published["version"] == "1.0.1" and published["name"] == bundle.parent.name
    rows = _json(["list", "--registry", str(registry), "--json"])
    assert [(r["name"], r["version"]) for r in rows] == [(bundle.parent.name, "1.0.0"), (bundle.parent.name, "1.0.1")]


def test_a_tool_use_bundle_is_told_a_flag_that_publishes_it(store_bundle: Path, tmp_path: Path) -> None:
    """The advice names --bump with its argument; following it publishes the next patch."""
    import shutil

    from craft import read_manifest, seal

    registry = tmp_path / "reg"
    _json(["publish", str(store_bundle), "--registry", str(registry)])
    other = tmp_path / "other"
    shutil.copytree(store_bundle, other)
    seal(other, {**read_manifest(other), "title": "Another store"})  # other content, same name and version
    message = _refused(["publish", str(other), "--registry", str(registry)])
    flag = re.search(r"publish it with --bump (\w+) \(as ([\d.]+)\)", message)
    assert flag is not None, message
    published = _json(["publish", str(other), "--registry", str(registry), "--bump", flag.group(1)])
    assert published["created"] and published["version"] == flag.group(2)
