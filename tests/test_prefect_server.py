"""``synthenv prefect start|status|stop``: a warm server runs use; every test stops what it starts."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli.common import EXIT_CODES, quiet_prefect
from pipeline.cli.main import app
from pipeline.jobs import prefect_server

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
    stopped = json.loads(runner.invoke(app, ["prefect", "stop", "--json"]).stdout)
    assert stopped == {"stopped": True, "pid": info["pid"]}
    assert prefect_server.running() is None and not prefect_server.healthy(info["url"])
