"""The load test of issue 25: 64 REST clients for 30 s plus 1,000 abandoned connections of the
official MCP client against one ``synthenv serve``, then the session count back to 0 within
``--session-ttl`` (``benchmarks/load_bench.py`` does the driving and reports the figures)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
sys.path.insert(0, str(Path(__file__).absolute().parents[1] / "benchmarks"))

from load_bench import run

pytestmark = [pytest.mark.load, pytest.mark.slow]
TTL = 10.0
MAX_SESSIONS = 256


def test_64_clients_and_1000_abandoned_mcp_connections_leave_no_session(store_bundle: Path) -> None:
    result = asyncio.run(run(store_bundle, 64, 30.0, 1000, TTL, MAX_SESSIONS))
    rest, dropped = result["rest"], result["abandoned_mcp"]
    assert rest["server_errors"] == 0 and rest["steps"] > 0
    # Every abandoned connection was answered: served, or refused for capacity with a clear code; no
    # time-out, no transport error (a hang would show up as one).
    outcomes = dropped["outcomes"]
    assert sum(outcomes.values()) == 1000
    assert set(outcomes) <= {"trainer:ok", "agent:ok", "trainer:unavailable"}, outcomes
    over_time = result["sessions_over_time"]
    assert over_time and max(s["sessions"] for s in over_time) <= MAX_SESSIONS
    # Nobody said goodbye; the idle ones are all reaped at the TTL (plus a second of sampling).
    zero_after = result["seconds_to_zero_after_load"]
    assert zero_after is not None and result["within_ttl"], zero_after
