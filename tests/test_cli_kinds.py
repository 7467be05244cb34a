"""Every command takes every bundle kind or refuses it in one line, with the exit-code table;
under --json an error is one JSON object on stdout; limits are enforced."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli.common import EXIT_CODES
from pipeline.cli.main import app
from pipeline.package.procedural import build_procedural_bundle
from pipeline.runtime.procedural import JUNK_ANSWER, ProceduralEnvironment, check_items

runner = CliRunner()


@pytest.fixture(scope="module")
def procedural(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = build_procedural_bundle(["gcd_lcm", "maze", "sudoku"], tmp_path_factory.mktemp("proc"), n=12, seed=0)
    return Path(getattr(built, "path", built))


def synthenv(*args: str) -> subprocess.CompletedProcess[str]:
    """The installed entry point, as a user runs it (main() maps every outcome to an exit code)."""
    code = "from pipeline.cli.main import main; main()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120)


def test_check_rescores_every_procedural_item(procedural: Path) -> None:
    result = runner.invoke(app, ["check", str(procedural), "--json"])
    report = json.loads(result.stdout)
    assert result.exit_code == 0 and report["passed"] == report["tasks"] == 12 and report["failures"] == {}


def test_check_names_an_item_whose_gold_fails(procedural: Path, tmp_path: Path) -> None:
    from pipeline.bundle.format import load_bundle

    bundle = load_bundle(procedural)
    items = bundle.read_jsonl("tasks.jsonl")
    items[0]["answer"] = JUNK_ANSWER

    class Edited:
        ref, digest = bundle.ref, bundle.digest

        @staticmethod
        def read_jsonl(name: str) -> list[dict]:
            return items

    report = check_items(Edited())  # type: ignore[arg-type]
    assert report["failures"] == {items[0]["id"]: "the gold answer scores 0, not 1.0"} and not report["ok"]


def test_serve_and_export_refuse_a_procedural_bundle_in_one_line(procedural: Path, tmp_path: Path) -> None:
    for args in (["serve", str(procedural)], ["export", str(procedural), "--out", str(tmp_path)]):
        result = runner.invoke(app, args)
        assert result.exit_code == EXIT_CODES["refused"]
        assert "does not take a procedural bundle" in result.output and "Traceback" not in result.output
    info = runner.invoke(app, ["info", str(procedural), "--json"])
    assert info.exit_code == 0 and json.loads(info.stdout)["kind"] == "procedural"


def test_json_errors_are_one_object_on_stdout(tmp_path: Path) -> None:
    missing = synthenv("info", str(tmp_path / "nothing"), "--json")
    assert missing.returncode == EXIT_CODES["not_found"]
    assert json.loads(missing.stdout) == {
        "error": {"code": "not_found", "message": f"{tmp_path / 'nothing'}: no such bundle directory"}
    }
    pulled = synthenv("pull", "nope", "--registry", str(tmp_path), "--json")
    assert pulled.returncode == EXIT_CODES["not_found"] and json.loads(pulled.stdout)["error"]["code"] == "not_found"
    usage = synthenv("info", "--json")
    assert usage.returncode == EXIT_CODES["usage"] and json.loads(usage.stdout)["error"]["code"] == "usage"
    plain = synthenv("info", str(tmp_path / "nothing"))
    assert plain.stdout == "" and plain.stderr.startswith("error:") and len(plain.stderr.splitlines()) == 1


@pytest.mark.parametrize("rows", ["5", "9", "1000001", "2000000"])
def test_rows_outside_10_to_1m_are_refused(rows: str, tmp_path: Path) -> None:
    for command in (["generate", "--no-prefect", "--out", str(tmp_path)], ["batch", "--n", "1", "--no-prefect"]):
        result = runner.invoke(app, [*command, "--rows", rows])
        assert result.exit_code == EXIT_CODES["usage"] and "--rows" in result.output
    assert not any(tmp_path.iterdir())


def test_a_corrupt_bundle_is_refused_not_a_traceback(procedural: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(procedural, copy)
    (copy / "tasks.jsonl").write_text("{}\n")
    for command in ("check", "info", "serve", "export"):
        result = runner.invoke(
            app, [command, str(copy), *(["--out", str(tmp_path / "o")] if command == "export" else [])]
        )
        assert result.exit_code == EXIT_CODES["refused"] and "Traceback" not in result.output, command


def test_procedural_environment_refuses_a_boolean_answer(procedural: Path) -> None:
    env = ProceduralEnvironment.from_bundle(procedural)
    env.reset(seed=0)
    obs, reward, terminated, _, _ = env.step({"answer": True})
    assert obs["type"] == "error" and "boolean" in obs["error"]["message"] and reward == 0.0 and not terminated


def test_populate_reports_progress_per_table(tmp_path: Path) -> None:
    from pipeline.jobs.steps import Inputs, populate_step, schema_step
    from pipeline.progress import listen

    ticks: list[tuple[str, int, int, str]] = []
    previous = listen(lambda *tick: ticks.append(tick))
    try:
        inputs = Inputs(domain="online_store", seed=0, rows=50)
        schema = schema_step(inputs)
        populate_step(inputs, schema, tmp_path)
    finally:
        listen(previous)
    tables = [t.name for t in schema.tables]
    assert [t[0] for t in ticks] == ["populate"] * (len(tables) + 1)
    assert sorted(t[3] for t in ticks[:-1]) == sorted(tables) and ticks[-1][1:3] == (len(tables), len(tables))


def test_tasks_report_progress_per_family_and_level(tmp_path: Path) -> None:
    from pipeline.jobs.steps import Inputs, populate_step, schema_step, tasks_step, tools_step
    from pipeline.progress import listen
    from pipeline.tasks.families import FAMILIES

    inputs = Inputs(domain="online_store", seed=0, rows=50)
    schema = schema_step(inputs)
    state = populate_step(inputs, schema, tmp_path).path
    tools = tools_step(schema, state, inputs.clock)
    ticks: list[tuple[str, int, int, str]] = []
    previous = listen(lambda *tick: ticks.append(tick))
    try:
        tasks_step(inputs, schema, tools, state)
    finally:
        listen(previous)
    assert {t[0] for t in ticks} == {"tasks"}
    total = ticks[-1][2]
    assert total == len(FAMILIES) * inputs.tasks_per_family and ticks[-1][1] == total
    assert [t[1] for t in ticks] == list(range(total + 1))
    assert {t[3].split()[0] for t in ticks[:-1]} == set(FAMILIES)


def test_progress_goes_to_stderr_never_into_json_stdout(tmp_path: Path) -> None:
    from pipeline.cli.common import progress_display
    from pipeline.progress import tick

    with progress_display():
        tick("batch", 0, 2, "env-a")
        tick("batch", 2, 2)
    result = synthenv(
        "generate", "--domain", "online_store", "--rows", "50", "--no-prefect", "--out", str(tmp_path), "--json"
    )
    assert result.returncode == 0 and json.loads(result.stdout)["rows"] > 0
