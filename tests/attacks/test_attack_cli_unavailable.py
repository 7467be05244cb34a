"""A busy port or a missing extra is ``unavailable`` (exit 5) named in one line, before any work:
no "serving …" line for a port that cannot be had, no episodes played without a model client."""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli.common import EXIT_CODES
from pipeline.cli.main import app

runner = CliRunner()
UNAVAILABLE = EXIT_CODES["unavailable"]


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield sock.getsockname()[1]


@pytest.mark.parametrize("protocol", ["synthenv", "openenv"])
def test_serve_on_a_busy_port_names_it(store_bundle: Path, busy_port: int, protocol: str) -> None:
    args = ["serve", str(store_bundle), "--port", str(busy_port), "--protocol", protocol, "--trainer-token", "t" * 24]
    result = runner.invoke(app, args)
    assert result.exit_code == UNAVAILABLE, (result.exit_code, result.output)
    assert str(busy_port) in result.output
    assert "serving" not in result.output


def test_serve_openenv_without_the_extra_names_it(
    store_bundle: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "pipeline.integrations.openenv", None)
    result = runner.invoke(app, ["serve", str(store_bundle), "--protocol", "openenv", "--port", "0"])
    assert result.exit_code == UNAVAILABLE, (result.exit_code, result.output)
    assert "synthenv[openenv]" in result.output


def test_evaluate_llm_without_the_extra_plays_nothing(
    store_bundle: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "litellm", None)
    out = tmp_path / "run"
    args = ["evaluate", str(store_bundle), "--llm", "openai/m", "--no-prefect", "--out", str(out), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == UNAVAILABLE, (result.exit_code, result.output)
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "unavailable" and "synthenv[llm]" in error["message"]
    assert not out.exists()


def test_serve_openenv_refuses_workers_it_would_ignore(store_bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--workers 2 --protocol openenv`` is a usage error before anything is served (it used to serve one
    process and say nothing)."""
    import pipeline.cli.serve_openenv as openenv_cli

    served: list[object] = []
    monkeypatch.setattr(openenv_cli, "serve_openenv", lambda *a, **k: served.append(a))
    args = ["serve", str(store_bundle), "--protocol", "openenv", "--workers", "2", "--port", "0"]
    result = runner.invoke(app, args)
    assert result.exit_code == EXIT_CODES["usage"], (result.exit_code, result.output)
    assert "--workers takes --protocol synthenv only" in result.output and not served
    assert runner.invoke(app, [*args[:4], "--port", "0"]).exit_code == 0 and len(served) == 1  # one worker is served
