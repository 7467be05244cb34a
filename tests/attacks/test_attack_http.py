"""Hostile requests over HTTP: bodies that used to 500, foreign hosts and origins, wrong content
types, slow clients, and seeds that repeated across restarts."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from craft import read_manifest, seal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("fastapi")

from pipeline.server.http import create_app

pytestmark = pytest.mark.anyio
BASE = "http://127.0.0.1:8000"
JSON = {"content-type": "application/json"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def app(store_bundle: Path) -> Any:
    return create_app(store_bundle, max_sessions=64, session_ttl=600, trainer_token=TRAINER_TOKEN)


def _client(app: Any, base: str = BASE) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=base)


async def _session(c: httpx.AsyncClient, app: Any) -> tuple[str, Any]:
    manager = app.state.manager
    task = next(t for t in manager.template.tasks if t.verifier.answer and t.verifier.answer.kind == "number")
    r = await c.post("/trainer/sessions", json={"task_id": task.id, "seed": 0}, headers=AUTH)
    assert r.status_code == 201, r.text
    return r.json()["session_id"], task


def _nested_text(depth: int) -> bytes:
    return ("[" * depth + "1" + "]" * depth).encode()


TRAINER_TOKEN = "attack-suite-trainer-token"
AUTH = {"Authorization": f"Bearer {TRAINER_TOKEN}"}


def _auth(app: Any) -> dict[str, str]:
    return {"Authorization": f"Bearer {app.state.trainer_token}"}


HOSTILE_VALUES = {
    "1e999": b"1e999",
    "-1e999": b"-1e999",
    "NaN": b"NaN",
    "lone-surrogate": b'"\\ud800"',
    "surrogate-pair-half": b'"a\\udfffb"',
    "nested-500": _nested_text(500),
    "int-400-digits": b"1" + b"0" * 399,
}


def _assert_refused(r: httpx.Response) -> None:
    assert 400 <= r.status_code < 500, (r.status_code, r.text)
    body = r.json()
    assert body["code"] and body["message"]


@pytest.mark.parametrize("kind", list(HOSTILE_VALUES))
async def test_a_hostile_answer_is_4xx_and_the_episode_goes_on(app: Any, kind: str) -> None:
    async with _client(app) as c:
        sid, task = await _session(c, app)
        r = await c.post(
            f"/sessions/{sid}/step", content=b'{"action": {"answer": ' + HOSTILE_VALUES[kind] + b"}}", headers=JSON
        )
        _assert_refused(r)
        v = await c.post(
            f"/trainer/sessions/{sid}/verify",
            content=b'{"answer": ' + HOSTILE_VALUES[kind] + b"}",
            headers={**JSON, "Authorization": f"Bearer {TRAINER_TOKEN}"},
        )
        _assert_refused(v)
        assert v.status_code == 400
        for call in task.solution:
            await c.post(f"/sessions/{sid}/step", json={"action": {"tool": call.tool, "arguments": call.arguments}})
        done = await c.post(f"/sessions/{sid}/step", json={"action": {"answer": task.answer}})
        assert done.status_code == 200 and done.json()["reward"] == 1.0, done.text


@pytest.mark.parametrize("kind", list(HOSTILE_VALUES))
async def test_a_hostile_tool_argument_is_4xx_and_the_row_stays_readable(app: Any, kind: str) -> None:
    async with _client(app) as c:
        sid, _ = await _session(c, app)
        headers = {**JSON, "X-Session-Id": sid}
        for field in (b"total", b"order_number", b"customer_id"):
            body = b'{"id": 1, "' + field + b'": ' + HOSTILE_VALUES[kind] + b"}"
            _assert_refused(await c.post("/tools/update_order", content=body, headers=headers))
        again = await c.post("/tools/get_order", json={"id": 1}, headers={"X-Session-Id": sid})
        assert again.status_code == 200, again.text


@pytest.mark.parametrize(
    "headers",
    [
        {"host": "evil.example"},
        {"host": "evil.example:8000"},
        {"host": "127.0.0.1.evil.example"},
        {"host": "127.0.0.1:8000", "origin": "http://evil.example"},
        {"host": "localhost:8000", "origin": "null"},
    ],
    ids=["host", "host-port", "host-suffix", "origin", "origin-null"],
)
async def test_foreign_hosts_and_origins_are_refused(app: Any, headers: dict[str, str]) -> None:
    async with _client(app) as c:
        before = len(app.state.manager)
        r = await c.post("/trainer/sessions", json={}, headers={**headers, **AUTH})
        assert r.status_code in (400, 403, 421), r.text
        assert len(app.state.manager) == before
        r = await c.get("/health", headers=headers)
        assert r.status_code in (400, 403, 421)


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost", "[::1]:8000", "localhost:1234"])
async def test_loopback_hosts_are_served(app: Any, host: str) -> None:
    async with _client(app) as c:
        r = await c.get("/health", headers={"host": host, "origin": f"http://{host}"})
        assert r.status_code == 200, r.text


async def test_an_allowed_host_can_be_configured(store_bundle: Path) -> None:
    app = create_app(store_bundle, allowed_hosts=["env.example.org"])
    async with _client(app, "http://env.example.org") as c:
        assert (await c.get("/health")).status_code == 200
        assert (await c.get("/health", headers={"host": "other.example.org"})).status_code in (400, 421)


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None]
)
async def test_only_json_bodies_are_accepted(app: Any, content_type: str | None) -> None:
    async with _client(app) as c:
        before = len(app.state.manager)
        headers = {"content-type": content_type} if content_type else {}
        r = await c.post("/trainer/sessions", content=b'{"seed": 1}', headers={**headers, **AUTH})
        assert r.status_code == 415, r.text
        assert r.json()["code"] == "unsupported_media_type"
        assert len(app.state.manager) == before
        ok = await c.post(
            "/trainer/sessions",
            content=b'{"seed": 1}',
            headers={"content-type": "application/json; charset=utf-8", **AUTH},
        )
        assert ok.status_code == 201


async def test_server_drawn_seeds_do_not_repeat_across_restarts(store_bundle: Path) -> None:
    seeds = []
    for _ in range(2):
        app = create_app(store_bundle)
        async with _client(app) as c:
            r = await c.post("/trainer/sessions", json={}, headers=_auth(app))
            seeds.append(r.json()["info"]["seed"])
    assert seeds[0] != seeds[1]
    app = create_app(store_bundle)
    async with _client(app) as c:
        assert (await c.post("/trainer/sessions", json={"seed": 5}, headers=_auth(app))).json()["info"]["seed"] == 5


async def test_the_docs_page_escapes_the_title(bundle_copy: Path) -> None:
    seal(bundle_copy, {**read_manifest(bundle_copy), "title": "</title><script>alert(1)</script>"}, rehash=False)
    app = create_app(bundle_copy)
    async with _client(app) as c:
        page = (await c.get("/docs")).text
    assert "<script>alert(1)</script>" not in page


async def test_mcp_refuses_hostile_arguments_without_a_server_error(app: Any) -> None:
    from mcp import Client

    from pipeline.server.mcp import build_mcp_server

    meta = {"synthenv/session": app.state.manager.create(seed=0)[0]}
    async with Client(build_mcp_server(app.state.manager)) as client:
        # (The in-memory client itself cannot serialise 500 levels; 60 is past the server's limit too.)
        for value in (float("inf"), "\ud800", 10**399, json.loads(_nested_text(60))):
            bad = await client.call_tool("update_order", {"id": 1, "total": value}, meta=meta)
            assert bad.is_error and json.loads(bad.content[0].text)["code"] == "invalid_argument"
        good = await client.call_tool("get_order", {"id": 1}, meta=meta)
        assert not good.is_error


def test_mcp_over_http_never_answers_5xx(store_bundle: Path) -> None:
    """Raw JSON-RPC tools/call bodies with each hostile value, through the real app (lifespan running):
    never a 5xx, never a success, and the row stays readable in that session."""
    from starlette.testclient import TestClient

    app = create_app(store_bundle)
    with TestClient(app, base_url=BASE) as client:
        sid = client.post("/trainer/sessions", json={"seed": 0}, headers=_auth(app)).json()["session_id"]
        # An order still open to edits (a delivered or cancelled one refuses any update).
        session = {"X-Session-Id": sid}
        pending = client.post("/tools/list_orders", json={"status": "pending", "limit": 1}, headers=session)
        order = pending.json()["items"][0]
        oid = str(order["id"]).encode()
        # A larger total keeps every rule (its payments never exceed it).
        total = round(order["total"] + 5.5, 2)
        fine = client.post(
            "/mcp",
            content=_mcp_call(sid, b'{"id": ' + oid + b', "total": ' + str(total).encode() + b"}"),
            headers=MCP_HEADERS,
        )
        assert fine.status_code == 200 and "error" not in fine.json() and not fine.json()["result"].get("isError")
        for kind, value in HOSTILE_VALUES.items():
            body = b'{"id": ' + oid + b', "total": ' + value + b"}"
            r = client.post("/mcp", content=_mcp_call(sid, body), headers=MCP_HEADERS)
            assert r.status_code < 500, (kind, r.status_code, r.text[:300])
            reply = r.json()
            assert "error" in reply or reply["result"].get("isError"), (kind, r.text[:300])
            assert "Infinity" not in r.text, kind
            row = client.post("/tools/get_order", json={"id": int(oid)}, headers={"X-Session-Id": sid})
            assert row.status_code == 200 and row.json()["total"] == total, (kind, row.text[:200])


# -- property: arbitrary JSON to every route never gives a 5xx and never spoils the session --------

LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**450), max_value=10**450)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(["\ud800", "x\udfff", "\u0000", "'; DROP TABLE products; --"])
)
ANY_JSON = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=20,
)
ROUTES = [
    "/sessions",
    "/trainer/sessions",
    "/trainer/sessions/{sid}/reset",
    "/sessions/{sid}/reset",
    "/sessions/{sid}/step",
    "/trainer/sessions/{sid}/verify",
    "/tools/get_order",
    "/tools/update_order",
    "/tools/aggregate",
]


def _encode(value: Any, wrap: str | None) -> bytes:
    if wrap == "total":
        value = {"id": 1, "total": value}
    elif wrap is not None:
        value = {wrap: value}
    return json.dumps(value, ensure_ascii=True, allow_nan=True).encode()


@pytest.fixture(scope="module")
def prop_app(store_bundle: Path) -> Any:
    return create_app(store_bundle, max_sessions=8, session_ttl=600, trainer_token=TRAINER_TOKEN)


def _mcp_call(sid: str, arguments: bytes) -> bytes:
    """A JSON-RPC tools/call of update_order in session ``sid`` with ``arguments`` as given."""
    meta = json.dumps(
        {
            "synthenv/session": sid,
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    ).encode()
    return (
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "update_order", "arguments": '
        + arguments
        + b', "_meta": '
        + meta
        + b"}}"
    )


MCP_HEADERS = {
    **JSON,
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "update_order",
}


def test_arbitrary_json_to_every_route_is_never_a_server_error(prop_app: Any) -> None:
    from starlette.testclient import TestClient

    with TestClient(prop_app, base_url=BASE) as client:
        sid = client.post("/trainer/sessions", json={"seed": 0}, headers=AUTH).json()["session_id"]

        @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(
            route=st.sampled_from([*ROUTES, "/mcp"]),
            body=ANY_JSON | st.fixed_dictionaries({"action": ANY_JSON}) | st.fixed_dictionaries({"answer": ANY_JSON}),
            raw=st.none() | st.binary(max_size=40) | st.sampled_from(list(HOSTILE_VALUES.values())),
            wrap=st.sampled_from([None, "action", "answer", "total"]),
        )
        def run(route: str, body: Any, raw: bytes | None, wrap: str | None) -> None:
            path = route.format(sid=sid)
            content = raw if raw is not None else _encode(body, wrap)
            if route == "/mcp":
                content = _mcp_call(sid, content) if raw is None or raw in HOSTILE_VALUES.values() else content
                r = client.post(path, content=content, headers=MCP_HEADERS)
                assert r.status_code < 500, (path, content[:200], r.status_code, r.text[:300])
                assert "Infinity" not in r.text and "NaN" not in r.text
            else:
                r = client.post(path, content=content, headers={**JSON, **AUTH, "X-Session-Id": sid})
                assert r.status_code < 500, (path, content[:200], r.status_code, r.text[:300])
                if r.status_code >= 400:
                    assert set(r.json()) >= {"code", "message"}
                elif r.status_code == 201:  # a session was made: close it, so the cap is never the answer
                    client.delete(f"/trainer/sessions/{r.json()['session_id']}", headers=AUTH)
                elif route.endswith("step") and r.json()["terminated"]:  # an answer ended the episode: fine
                    client.post(f"/trainer/sessions/{sid}/reset", json={"seed": 0}, headers=AUTH)
            ok = client.post("/tools/get_order", json={"id": 1}, headers={"X-Session-Id": sid})
            assert ok.status_code == 200, ok.text

        run()


# -- slow clients ----------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _open_slow(port: int, n: int, partial: bytes) -> list[socket.socket]:
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(partial)
        socks.append(s)
    return socks


def _closed_within(socks: list[socket.socket], seconds: float) -> int:
    """How many sockets the server closed (or answered and closed) within ``seconds``."""
    deadline = time.monotonic() + seconds
    closed = 0
    for s in socks:
        s.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            while s.recv(4096):
                pass
            closed += 1
        except (TimeoutError, OSError):
            pass
        finally:
            s.close()
    return closed


@pytest.fixture
def timed_server(store_bundle: Path) -> Iterator[int]:
    from pipeline.server.runner import make_server

    port = _free_port()
    app = create_app(store_bundle, body_timeout=0.5)
    server = make_server(app, "127.0.0.1", port, header_timeout=0.5, log_level="error")
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield port
    server.should_exit = True
    thread.join(timeout=10)


def test_slow_headers_and_slow_bodies_are_timed_out(timed_server: int) -> None:
    headers = _open_slow(timed_server, 40, b"POST /trainer/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    bodies = _open_slow(
        timed_server,
        10,
        b"POST /trainer/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
    )
    assert _closed_within(headers, 5) == 40
    assert _closed_within(bodies, 5) == 10
    with httpx.Client(base_url=f"http://127.0.0.1:{timed_server}") as c:
        assert c.get("/health").status_code == 200


@pytest.mark.slow
def test_synthenv_serve_times_out_slow_clients_by_default(store_bundle: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli.main", "serve", str(store_bundle), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        socks = _open_slow(port, 50, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        assert _closed_within(socks, 30) == 50
    finally:
        proc.terminate()
        proc.wait(timeout=20)
