"""Commands backed by Prefect, tried as a new user would: a bad argument is refused before the
orchestrator starts (no 12 s wait, no flow-run traceback), and the temporary server Prefect starts
for one command is kept from printing its shutdown tracebacks on the user's terminal."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

import pipeline.cli.evaluate as cli_evaluate
from pipeline.cli.common import EXIT_CODES, TEMPORARY_SERVER_LOG_LEVEL, quiet_prefect
from pipeline.cli.main import app

runner = CliRunner()


@pytest.fixture(scope="module")
def procedural_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from pipeline.package.procedural import build_procedural_bundle

    return Path(build_procedural_bundle(["gcd_lcm"], tmp_path_factory.mktemp("proc"), n=4, seed=0).path)


@pytest.fixture
def no_orchestrator(monkeypatch: pytest.MonkeyPatch) -> None:
    """Starting Prefect fails the test: every case below must be refused before it."""

    def started() -> None:
        raise AssertionError("Prefect was started before the arguments were checked")

    monkeypatch.setattr(cli_evaluate, "quiet_prefect", started)


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (["--policy", "oracle"], "usage", "unknown --policy 'oracle'"),
        (["--policy", "nosuch", "--baselines"], "usage", "exactly one"),
    ],
)
def test_evaluate_refuses_a_bad_policy_before_prefect(
    store_bundle: Path, no_orchestrator: None, args: list[str], code: str, said: str
) -> None:
    result = runner.invoke(app, ["evaluate", str(store_bundle), *args, "--json"])
    assert result.exit_code == EXIT_CODES[code], (result.exit_code, result.output, result.exception)
    assert said in json.loads(result.stdout)["error"]["message"]


def test_evaluate_names_every_policy_it_takes(store_bundle: Path, no_orchestrator: None) -> None:
    result = runner.invoke(app, ["evaluate", str(store_bundle), "--policy", "oracle", "--json"])
    message = json.loads(result.stdout)["error"]["message"]
    for name in ("random", "refuse", "no_tools", "reference", "literal", "first_candidate", "no_computation"):
        assert name in message


@pytest.mark.parametrize(
    ("bundle", "code"),
    [
        ("{tmp}/nosuch", "not_found"),  # a path that is not there
        ("./nosuch", "not_found"),
        ("Bad Name@1.0.0", "usage"),  # not a registry reference either
        ("online-store-s0@1.x", "usage"),
        ("{tmp}/file", "usage"),  # a file is not a bundle directory
    ],
)
def test_evaluate_refuses_a_bad_bundle_before_prefect(
    tmp_path: Path, no_orchestrator: None, bundle: str, code: str
) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    target = bundle.format(tmp=tmp_path)
    result = runner.invoke(app, ["evaluate", target, "--policy", "reference", "--json"])
    assert result.exit_code == EXIT_CODES[code], (result.exit_code, result.output, result.exception)
    assert "error" in json.loads(result.stdout)


@pytest.mark.parametrize(
    ("selection", "said"),
    [("nosuchfamily", "matches no task"), ("level:x", "a level is N or N-M"), ("lookup-999*", "matches no task")],
)
def test_evaluate_refuses_a_task_selection_that_matches_nothing_before_prefect(
    store_bundle: Path, procedural_bundle: Path, no_orchestrator: None, selection: str, said: str
) -> None:
    for bundle in (store_bundle, procedural_bundle):
        result = runner.invoke(app, ["evaluate", str(bundle), "--policy", "reference", "--tasks", selection, "--json"])
        assert result.exit_code == EXIT_CODES["usage"], (result.exit_code, result.output, result.exception)
        assert said in json.loads(result.stdout)["error"]["message"]


def test_a_selection_that_matches_reaches_the_run(
    store_bundle: Path, procedural_bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reached: list[str] = []

    def one(bundle: str, *args: object) -> dict:
        reached.append(bundle)
        raise ValueError("stop here")

    monkeypatch.setattr(cli_evaluate, "_one", one)
    for bundle, selection in ((store_bundle, "lookup,level:0-1"), (procedural_bundle, "level:0")):
        runner.invoke(app, ["evaluate", str(bundle), "--policy", "reference", "--tasks", selection])
    assert reached == [str(store_bundle), str(procedural_bundle)]


def test_a_registry_reference_is_resolved_before_prefect(
    store_bundle: Path, tmp_path: Path, no_orchestrator: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reference the registry does not hold is ``not_found`` before Prefect starts (it took 15 s, a
    traceback and exit 2); one it holds reaches the run."""
    from pipeline.registry.registry import Registry

    registry = tmp_path / "registry"
    entry = Registry(str(registry)).publish(store_bundle).entry
    for ref in ("nosuch-name@1.0.0", f"{entry.name}@9.9.9"):
        result = runner.invoke(app, ["evaluate", ref, "--policy", "reference", "--registry", str(registry), "--json"])
        assert result.exit_code == EXIT_CODES["not_found"], (ref, result.exit_code, result.output)
    reached: list[str] = []

    def one(bundle: str, *args: object) -> dict:
        reached.append(bundle)
        raise ValueError("stop here")

    monkeypatch.setattr(cli_evaluate, "_one", one)
    args = ["evaluate", entry.ref, "--policy", "reference", "--registry", str(registry), "--json"]
    result = runner.invoke(app, args)
    assert reached == [entry.ref] and result.exit_code == EXIT_CODES["usage"], result.output


def test_temporary_server_keeps_its_shutdown_tracebacks_to_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No warm server and no API URL: Prefect starts a temporary server whose own log level is
    CRITICAL (before, WARNING let through its CancelledError tracebacks at the end of every run)."""
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))  # no warm server recorded here
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    for name in ("PREFECT_SERVER_LOGGING_LEVEL", "PREFECT_LOGGING_LEVEL", "DO_NOT_TRACK"):
        monkeypatch.setenv(name, "")  # recorded, so what quiet_prefect sets is undone afterwards
        monkeypatch.delenv(name)
    quiet_prefect()
    assert os.environ["PREFECT_SERVER_LOGGING_LEVEL"] == TEMPORARY_SERVER_LOG_LEVEL == "CRITICAL"


def test_a_server_the_user_runs_keeps_its_log_level(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:1/api")
    for name in ("PREFECT_SERVER_LOGGING_LEVEL", "PREFECT_LOGGING_LEVEL", "DO_NOT_TRACK"):
        monkeypatch.setenv(name, "")  # recorded, so what quiet_prefect sets is undone afterwards
        monkeypatch.delenv(name)
    quiet_prefect()
    assert os.environ["PREFECT_SERVER_LOGGING_LEVEL"] == "WARNING"
