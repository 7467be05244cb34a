"""``synthenv prefect start|status|stop``: a warm server runs use; every test stops what it starts."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli.common import EXIT_CODES, quiet_prefect
from pipeline.cli.main import app
from pipeline.jobs import prefect_runner, prefect_server

runner = CliRunner()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private PREFECT_HOME; whatever server a test started is stopped afterwards."""
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    try:
        yield tmp_path
    finally:
        prefect_runner.stop()
        prefect_server.stop()


def test_status_without_a_server_is_not_found(home: Path) -> None:
    result = runner.invoke(app, ["prefect", "status", "--json"])
    assert result.exit_code == EXIT_CODES["not_found"] and json.loads(result.stdout)["error"]["code"] == "not_found"
    assert runner.invoke(app, ["prefect", "stop"]).exit_code == 0


def test_a_stale_record_is_ignored(home: Path) -> None:
    (home / prefect_server.STATE_FILE).write_text(json.dumps({"pid": 2**22 + 12345, "url": "http://127.0.0.1:9"}))
    assert prefect_server.recorded() is None and not (home / prefect_server.STATE_FILE).exists()
    assert prefect_server.use_running_server() is None and "PREFECT_API_URL" not in os.environ


@pytest.mark.slow
@pytest.mark.prefect
def test_start_status_use_stop(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for _ in range(3):  # a free port can be taken by a parallel test's server before ours binds it
        port = _free_port()
        started = runner.invoke(app, ["prefect", "start", "--port", str(port), "--json"])
        log = home / "synthenv-server.log"
        if started.exit_code == 0 or "address already in use" not in (log.read_text() if log.exists() else ""):
            break
    assert started.exit_code == 0, started.output
    info = json.loads(started.stdout)
    assert info["url"] == f"http://127.0.0.1:{port}" and info["started"]
    again = json.loads(runner.invoke(app, ["prefect", "start", "--port", str(port), "--json"]).stdout)
    assert again["pid"] == info["pid"] and not again["started"]
    status = json.loads(runner.invoke(app, ["prefect", "status", "--json"]).stdout)
    assert status["api_url"] == f"http://127.0.0.1:{port}/api"
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    quiet_prefect()  # what every Prefect-backed command does first
    assert os.environ["PREFECT_API_URL"] == status["api_url"]
    monkeypatch.delenv("PREFECT_API_URL")
    warm = prefect_runner.recorded()
    assert warm is not None and info["runner_pid"] == warm.pid == status["runner_pid"] and status["runner_current"]
    assert warm.api_url == status["api_url"] and prefect_runner.usable() == warm

    # A run goes to the warm runner and builds what a run without Prefect builds.
    def generate(*extra: str, **env: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "pipeline.cli.main", "generate", "--json", *extra]
        env = {**os.environ, "PREFECT_HOME": str(home), **env}
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)

    through = generate("--rows", "40", "--out", str(home / "warm"), PYTHONPROFILEIMPORTTIME="1")
    assert through.returncode == 0, through.stderr
    assert f"in the warm runner (pid {warm.pid})" in through.stderr and "> tasks" in through.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in through.stderr.splitlines() if "import time:" in line}
    assert "pipeline.jobs.prefect_runner" in imported and "prefect" not in imported  # the point of the runner
    plain = generate("--rows", "40", "--out", str(home / "plain"), "--no-prefect")
    assert plain.returncode == 0, plain.stderr
    assert json.loads(through.stdout)["digest"] == json.loads(plain.stdout)["digest"]
    record = json.loads(next((home / "warm").glob("*/1.0.0.run.json")).read_text())
    assert record["flow"] == "generate_environment" and len(record["flow_run_id"]) == 36
    # a version directory that holds something else: refused in the runner, refused by the command
    (home / "warm" / json.loads(through.stdout)["name"] / "9.9.9").mkdir()
    again = generate("--rows", "40", "--version", "9.9.9", "--out", str(home / "warm"))
    assert again.returncode == EXIT_CODES["refused"] and json.loads(again.stdout)["error"]["code"] == "refused"
    assert prefect_runner.healthy(warm)  # a failed run leaves the runner up

    stopped = json.loads(runner.invoke(app, ["prefect", "stop", "--json"]).stdout)
    assert stopped == {"stopped": True, "pid": info["pid"]}
    assert prefect_server.running() is None and not prefect_server.healthy(info["url"])
    assert prefect_runner.recorded() is None and not prefect_runner.healthy(warm)
