"""Commands backed by Prefect, tried as a new user would: the temporary server Prefect starts for
one command is kept from printing its shutdown tracebacks on the user's terminal."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pipeline.cli.common import TEMPORARY_SERVER_LOG_LEVEL, quiet_prefect


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
