"""Sessions a hostile or careless client cannot exhaust.

* the official MCP client with default settings (the stateless 2026 protocol) held one
  environment session per call: 40 calls pinned 16 of 16 and REST answered 503; now a
  connection holds at most one (``synthenv_reset`` opens it), 1,000 calls included;
* clients that never say goodbye (no DELETE) are reaped at ``--session-ttl``, and
  ``/health`` counts both environment and MCP sessions;
* capacity is a prompt 503 with ``Retry-After`` (REST and the MCP handshake), never a hang;
* an episode's writes and created rows are capped (``--max-writes``, ``--max-rows``): a
  clear ``limit_exceeded`` error (429, an MCP tool error), reads still work, a reset
  starts again;
* ``--workers 2`` keeps an MCP session with its worker: a client whose every request
  comes on a new connection lost 28 of 50 calls (404), now none.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("mcp")

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from pipeline.server.http import create_app
from pipeline.server.mcp import RESET, SESSION_META, build_mcp_server

pytestmark = pytest.mark.anyio
TOKEN = "attack-sessions-trainer-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
BASE = "http://127.0.0.1:8000"
CLIENT_INFO = {"name": "attack", "version": "1"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serve(bundle: Path, *options: str) -> Iterator[str]:
    """``synthenv serve`` in its own process on a free loopback port, stopped on exit."""
    port = _free_port()
    command = [sys.executable, "-m", "pipeline.cli.main", "serve", str(bundle), "--port", str(port), *options]
    env = {**os.environ, "SYNTHENV_TRAINER_TOKEN": TOKEN}
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert proc.poll() is None, "serve exited"
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def health(base: str) -> dict[str, Any]:
    return dict(httpx.get(f"{base}/health", timeout=10).json())


async def wait_until_empty(base: str, seconds: float) -> float:
    """Seconds until /health counts no session of either kind (or ``seconds``, then the assert fails)."""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        h = health(base)
        if h["sessions"] == 0 and h["mcp_sessions"] == 0:
            return time.monotonic() - start
        await anyio.sleep(0.25)
    raise AssertionError(f"sessions still open after {seconds} s: {health(base)}")


@contextlib.asynccontextmanager
async def official(base: str, headers: dict[str, str], **options: Any) -> AsyncIterator[Client]:
    """The official client on streamable HTTP; ``options`` go to the transport (e.g. ``terminate_on_close``)."""
    mode = options.pop("mode", "auto")
    limits = options.pop("limits", None)
    kwargs = {"limits": limits} if limits is not None else {}
    async with httpx.AsyncClient(headers=headers, timeout=30, **kwargs) as http:
        transport = streamable_http_client(f"{base}/mcp", http_client=http, **options)
        async with Client(transport, mode=mode) as client:
            yield client


def _code(result: Any) -> str:
    return str(json.loads(result.content[0].text)["code"])


# -- in process: budgets, capacity, /health ---------------------------------------------------


@pytest.fixture
def small_app(store_bundle: Path) -> Any:
    return create_app(store_bundle, max_sessions=2, session_ttl=600, trainer_token=TOKEN, max_writes=5, max_rows=3)


def _client(app: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE)


async def test_an_episodes_writes_and_rows_are_capped_with_a_clear_error(small_app: Any) -> None:
    async with _client(small_app) as c:
        sid = (await c.post("/trainer/sessions", json={"seed": 0}, headers=AUTH)).json()["session_id"]
        h = {"X-Session-Id": sid}
        created = [await c.post("/tools/create_category", json={"name": f"Cap {i}"}, headers=h) for i in range(4)]
        assert [r.status_code < 300 for r in created] == [True, True, True, False]
        refused = created[3]
        assert refused.status_code == 429 and refused.json()["code"] == "limit_exceeded"
        assert "--max-rows" in refused.json()["message"]
        updates = [await c.post("/tools/update_product", json={"id": 1, "stock": 7 + i}, headers=h) for i in range(3)]
        assert [r.status_code < 300 for r in updates] == [True, True, False]
        assert updates[2].status_code == 429 and "--max-writes" in updates[2].json()["message"]
        read = await c.post("/tools/get_product", json={"id": 1}, headers=h)
        assert read.status_code == 200 and read.json()["stock"] == 8  # the refused update did not run
        listed = await c.post("/tools/list_categories", json={"name": "Cap 3"}, headers=h)
        assert listed.json()["total"] == 0  # nor the refused create
        await c.post(f"/trainer/sessions/{sid}/reset", json={"seed": 1}, headers=AUTH)
        again = await c.post("/tools/create_category", json={"name": "After Reset"}, headers=h)
        assert again.status_code < 300


async def test_the_budget_is_an_mcp_tool_error_too(small_app: Any) -> None:
    manager = small_app.state.manager
    sid = manager.create(seed=0)[0]
    async with Client(build_mcp_server(manager)) as client:
        results = [
            await client.call_tool("create_category", {"name": f"Mcp Cap {i}"}, meta={SESSION_META: sid})
            for i in range(4)
        ]
    assert [r.is_error for r in results] == [False, False, False, True]
    assert _code(results[3]) == "limit_exceeded"
    manager.close(sid)


async def test_capacity_is_a_prompt_503_with_retry_after(small_app: Any) -> None:
    async with _client(small_app) as c:
        opened = [await c.post("/trainer/sessions", json={}, headers=AUTH) for _ in range(2)]
        start = time.monotonic()
        full = await c.post("/trainer/sessions", json={}, headers=AUTH)
        took = time.monotonic() - start
        h = (await c.get("/health")).json()
    assert [r.status_code for r in opened] == [201, 201]
    assert full.status_code == 503 and int(full.headers["retry-after"]) >= 1 and took < 2
    assert h["sessions"] == 2 and h["mcp_sessions"] == 0


# -- a real server: the official client, abandoned connections, workers ---------------------------


@pytest.mark.slow
async def test_1000_calls_of_the_default_official_client_hold_one_session(store_bundle: Path) -> None:
    with serve(store_bundle, "--max-sessions", "16", "--session-ttl", "4") as base:
        async with official(base, AUTH) as client:
            protocol = client.protocol_version
            unnamed = await client.call_tool("get_product", {"id": 1})
            started = await client.call_tool(RESET, {"seed": 1})
            counts, errors = set(), 0
            for i in range(1000):
                result = await client.call_tool("get_product", {"id": 1 + i % 20})
                errors += bool(result.is_error)
                if i % 100 == 0:
                    counts.add(health(base)["sessions"])
            again = await client.call_tool(RESET, {"seed": 2})  # a new episode replaces the connection's
            counts.add(health(base)["sessions"])
        httpx.delete(f"{base}/trainer/sessions/{again.meta[SESSION_META]}", headers=AUTH)  # the trainer's, done
        rest = httpx.post(f"{base}/trainer/sessions", json={}, headers=AUTH)
        agent_counts = set()
        for mode in ("auto", "legacy"):  # an agent's client naming the trainer's session, both protocols
            async with official(base, {"X-Session-Id": rest.json()["session_id"]}, mode=mode) as agent:
                for i in range(200):
                    assert not (await agent.call_tool("get_product", {"id": 1 + i % 20})).is_error
                h = health(base)
                agent_counts.add((mode, h["sessions"], h["mcp_sessions"]))
        assert agent_counts == {("auto", 1, 0), ("legacy", 1, 1)}
        assert protocol in MODERN_PROTOCOL_VERSIONS  # the default client picks the stateless protocol
        assert (
            unnamed.is_error
            and _code(unnamed) == "no_episode"
            and RESET in json.loads(unnamed.content[0].text)["message"]
        )
        assert not started.is_error and started.meta[SESSION_META] != again.meta[SESSION_META]
        assert errors == 0 and counts == {1}
        assert rest.status_code == 201
        httpx.delete(f"{base}/trainer/sessions/{rest.json()['session_id']}", headers=AUTH)
        assert await wait_until_empty(base, 4 + 10) <= 14


@pytest.mark.slow
async def test_abandoned_connections_are_refused_promptly_at_capacity_and_reaped_at_the_ttl(
    store_bundle: Path,
) -> None:
    ttl = 20.0  # long enough that none idles out while 24 clients connect on a loaded machine
    with serve(store_bundle, "--max-sessions", "4", "--session-ttl", str(ttl)) as base:
        outcomes: list[str] = []
        start = time.monotonic()
        for _ in range(24):  # handshake clients, one call each, never a DELETE
            try:
                async with official(base, AUTH, mode="legacy", terminate_on_close=False) as client:
                    result = await client.call_tool("get_product", {"id": 1})
                    outcomes.append(_code(result) if result.is_error else "ok")
            except Exception as exc:  # the transport refused the handshake
                outcomes.append(type(exc).__name__)
        took = time.monotonic() - start
        held = health(base)
        raw = httpx.post(
            f"{base}/mcp",
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": CLIENT_INFO},
            },
            headers={"Accept": "application/json, text/event-stream"},
        )
        rest = httpx.post(f"{base}/trainer/sessions", json={}, headers=AUTH)
        assert outcomes[:4] == ["ok"] * 4 and set(outcomes[4:16]) == {"unavailable"}, outcomes
        assert len(outcomes) == 24 and took < ttl
        assert held["sessions"] == 4 and held["mcp_sessions"] == 16  # the MCP cap: 4 per environment slot
        assert raw.status_code == 503 and int(raw.headers["retry-after"]) >= 1
        assert rest.status_code == 503 and int(rest.headers["retry-after"]) >= 1
        assert await wait_until_empty(base, ttl + 10) <= ttl + 10


@pytest.mark.slow
async def test_two_workers_keep_an_mcp_session_across_new_connections(store_bundle: Path) -> None:
    fresh = httpx.Limits(max_keepalive_connections=0)  # every request on a new connection
    with serve(store_bundle, "--workers", "2") as base:
        sid = httpx.post(f"{base}/trainer/sessions", json={"seed": 0}, headers=AUTH).json()["session_id"]
        failed = {}
        for label, headers in (("trainer", AUTH), ("agent", {"X-Session-Id": sid})):
            failed[label] = 0
            async with official(base, headers, mode="legacy", limits=fresh) as client:
                for i in range(50):
                    try:
                        result = await client.call_tool("get_product", {"id": 1 + i % 20})
                        failed[label] += bool(result.is_error)
                    except Exception:
                        failed[label] += 1
    assert failed == {"trainer": 0, "agent": 0}


def test_the_connection_cap_is_a_503_with_retry_after(store_bundle: Path) -> None:
    """Past ``limit_concurrency`` uvicorn answers 503 itself; the client is told when to come back."""
    import threading

    from pipeline.server.runner import make_server

    port = _free_port()
    server = make_server(create_app(store_bundle, trainer_token=TOKEN), "127.0.0.1", port, max_connections=2)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    held: list[socket.socket] = []
    try:
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        held = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]  # idle, never a request
        time.sleep(0.3)
        start = time.monotonic()
        refused = httpx.get(f"http://127.0.0.1:{port}/health", timeout=10)
        took = time.monotonic() - start
    finally:
        for s in held:
            s.close()
        server.should_exit = True
        thread.join(timeout=10)
    assert refused.status_code == 503 and refused.headers["retry-after"] == "1" and took < 2
