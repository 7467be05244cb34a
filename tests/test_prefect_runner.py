"""The warm flow runner: used only for the same code and settings, and guarded over real HTTP.

Runs through it (a real Prefect server, the runner as its own process) are in
``tests/test_prefect_server.py``; here are the parts that need no server."""

from __future__ import annotations

import http.client
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.jobs import prefect_runner
from pipeline.jobs.steps import Inputs


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    return tmp_path


def test_inputs_cross_as_json_unchanged() -> None:
    inputs = Inputs(domain="car_rental", seed=7, rows=120, variant=True, task_mix=(("case", 5, 2), ("count", 1, 3)))
    wire = json.loads(json.dumps(prefect_runner.inputs_to_json(inputs)))
    assert prefect_runner.inputs_from_json(wire) == inputs
    with pytest.raises(ValueError, match="unknown inputs: colour"):
        prefect_runner.inputs_from_json({**wire, "colour": "red"})


def test_the_fingerprint_follows_files_and_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for top in prefect_runner.SOURCE_DIRS:
        (tmp_path / top).mkdir()
    module = tmp_path / "pipeline" / "a.py"
    module.write_text("x = 1\n")
    monkeypatch.delenv("SYNTHENV_IMAGE_LIMIT", raising=False)
    before = prefect_runner.fingerprint(tmp_path)
    assert prefect_runner.fingerprint(tmp_path) == before
    os.utime(module, ns=(1, 2))
    edited = prefect_runner.fingerprint(tmp_path)
    assert edited != before
    monkeypatch.setenv("SYNTHENV_IMAGE_LIMIT", "1024")
    assert prefect_runner.fingerprint(tmp_path) != edited
    (tmp_path / "templates" / "new.yaml").write_text("a: 1\n")
    assert prefect_runner.fingerprint(tmp_path) not in {before, edited}


def test_a_stale_or_foreign_runner_is_not_used(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gone = prefect_runner.RunnerInfo(2**22 + 4321, 9, "t", prefect_runner.fingerprint(), "http://127.0.0.1:9/api")
    prefect_runner.write_record(gone)
    assert (home / prefect_runner.STATE_FILE).stat().st_mode & 0o777 == 0o600
    assert prefect_runner.usable() is None and not (home / prefect_runner.STATE_FILE).exists()
    # alive, but another code version: not used (and not contacted)
    prefect_runner.write_record(prefect_runner.RunnerInfo(os.getpid(), 9, "t", "older", "http://127.0.0.1:9/api"))
    assert prefect_runner.recorded() is not None and prefect_runner.usable() is None
    # alive, same code, but this process reports to another Prefect API
    same = prefect_runner.RunnerInfo(os.getpid(), 9, "t", prefect_runner.fingerprint(), "http://127.0.0.1:9/api")
    prefect_runner.write_record(same)
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:8/api")
    assert prefect_runner.usable() is None
    monkeypatch.delenv("PREFECT_API_URL")
    assert prefect_runner.usable() is None  # port 9 answers nothing: not healthy


@pytest.fixture
def served(home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[prefect_runner.RunnerInfo]:
    """The runner's HTTP server on a loopback port (its runs need a Prefect server: not taken here)."""
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")
    from flows.runner import RunnerServer

    server = RunnerServer("secret-token")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.info
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _post(info: prefect_runner.RunnerInfo, body: bytes, token: str | None) -> tuple[int, dict[str, object]]:
    conn = http.client.HTTPConnection("127.0.0.1", info.port, timeout=10)
    try:
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers[prefect_runner.TOKEN_HEADER] = token
        conn.request("POST", "/generate", body, headers)
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


def test_the_runner_refuses_without_its_token_and_bad_requests(served: prefect_runner.RunnerInfo) -> None:
    assert prefect_runner.healthy(served)
    good = json.dumps({"inputs": {"domain": "online_store"}, "out": "/tmp/x"}).encode()
    assert _post(served, good, None)[0] == 403
    assert _post(served, good, "wrong")[0] == 403
    relative = json.dumps({"inputs": {"domain": "online_store"}, "out": "artifacts"}).encode()
    status, body = _post(served, relative, served.token)
    assert status == 400 and "absolute" in str(body["error"])
    status, body = _post(served, json.dumps({"inputs": {"shell": "rm"}, "out": "/tmp/x"}).encode(), served.token)
    assert status == 400 and "unknown inputs: shell" in str(body["error"])
    assert _post(served, b"{not json", served.token)[0] == 400
    with pytest.raises(prefect_runner.RunnerError, match="refused the run \\(403\\)"):
        prefect_runner.generate(
            prefect_runner.RunnerInfo(served.pid, served.port, "wrong", served.fingerprint, served.api_url),
            Inputs(domain="online_store"),
            Path("/tmp/x"),
        )
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    conn.request("GET", "/elsewhere")
    assert conn.getresponse().status == 404
    conn.close()
