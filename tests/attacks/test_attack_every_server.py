"""One table of hostile requests against every server the project starts: ``synthenv serve``'s app
and the OpenEnv protocol's app, each on a real loopback port. Both run behind the same guard
(``pipeline/server/guard.py``): a foreign Host or Origin, a non-JSON body and an oversized body
are refused before any route runs, over HTTP and at the WebSocket handshake alike. A client that
sends its headers, its body or its WebSocket handshake byte by byte (slowloris) is cut off by the
same time-outs on both, as the CLI starts them (``pipeline.server.runner.make_server``)."""

from __future__ import annotations

import base64
import os
import select
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("openenv")

from loopback import serve

from pipeline.integrations.openenv import create_openenv_app
from pipeline.server.http import create_app
from pipeline.server.runner import make_server

pytestmark = pytest.mark.anyio
TOKEN = "every-server-trainer-token-0123"
MAX_BODY = 64 * 1024


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module", params=["serve", "openenv"])
def server(request: pytest.FixtureRequest, store_bundle: Path) -> Iterator[tuple[str, str]]:
    if request.param == "serve":
        app = create_app(store_bundle, max_sessions=8, session_ttl=60, trainer_token=TOKEN, max_body_bytes=MAX_BODY)
    else:
        app = create_openenv_app(
            store_bundle, max_sessions=8, session_ttl=60, trainer_token=TOKEN, max_body_bytes=MAX_BODY
        )
    with serve(app) as url:
        yield request.param, url


# What a route would accept, so a refusal can only come from the guard.
POSTS = {"serve": "/trainer/sessions", "openenv": "/mcp"}
BODIES = {
    "serve": {"seed": 0},
    "openenv": {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
}

CASES: dict[str, tuple[dict[str, str], bytes | None, int]] = {
    "foreign host": ({"host": "evil.example"}, None, 421),
    "rebinding host": ({"host": "attacker.test:8000"}, None, 421),
    "foreign origin": ({"origin": "https://evil.example"}, None, 403),
    "null origin": ({"origin": "null"}, None, 403),
    "text/plain body": ({"content-type": "text/plain"}, b"{}", 415),
    "form body": ({"content-type": "application/x-www-form-urlencoded"}, b"a=1", 415),
    "oversized body": ({"content-type": "application/json"}, b"[" + b"1," * MAX_BODY + b"1]", 413),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_every_server_refuses_the_same_hostile_request(server: tuple[str, str], case: str) -> None:
    kind, url = server
    headers, body, status = CASES[case]
    headers = {"authorization": f"Bearer {TOKEN}", **headers}
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        if body is None:
            reply = await http.post(POSTS[kind], json=BODIES[kind], headers=headers)
        else:
            reply = await http.post(POSTS[kind], content=body, headers=headers)
    assert reply.status_code == status, (kind, case, reply.status_code, reply.text[:200])
    assert set(reply.json()) >= {"code", "message"}


async def test_the_same_request_from_a_loopback_client_is_served(server: tuple[str, str]) -> None:
    """The control: without the hostile part, the guard lets the request through."""
    kind, url = server
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        reply = await http.post(POSTS[kind], json=BODIES[kind], headers={"authorization": f"Bearer {TOKEN}"})
    assert reply.status_code < 400, (kind, reply.status_code, reply.text[:200])


def _handshake(url: str, host: str, origin: str | None) -> int:
    """A raw WebSocket upgrade request (a client library sets its own Host); returns the status code."""
    port = int(url.rsplit(":", 1)[1])
    lines = [
        "GET /ws HTTP/1.1",
        f"Host: {host}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}",
        "Sec-WebSocket-Version: 13",
        *([f"Origin: {origin}"] if origin else []),
    ]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        return int(sock.recv(4096).split(b" ", 2)[1])


@pytest.mark.parametrize(
    "host, origin, status",
    [
        ("evil.example", None, 403),
        ("127.0.0.1", "https://evil.example", 403),
        ("127.0.0.1", None, 101),
        ("localhost", "http://localhost:3000", 101),
    ],
    ids=["foreign-host", "foreign-origin", "loopback", "loopback-origin"],
)
def test_a_foreign_websocket_handshake_is_refused(
    store_bundle: Path, host: str, origin: str | None, status: int
) -> None:
    """A web page can open a WebSocket to a loopback port; the handshake is refused before accept."""
    app = create_openenv_app(store_bundle, max_sessions=2, session_ttl=60, trainer_token=TOKEN)
    with serve(app) as url:
        assert _handshake(url, host, origin) == status


SLOW = 0.5
"""The header and body time-out of the slow-client servers, in seconds (``synthenv serve --timeout``)."""
DRIP = 0.05
"""Seconds between the slow client's bytes: 40 bytes a second, so ~200 bytes would take 10 s to send."""


@pytest.fixture(scope="module", params=["serve", "openenv"])
def slow_server(request: pytest.FixtureRequest, store_bundle: Path) -> Iterator[int]:
    """Each server as ``synthenv serve [--protocol openenv] --timeout 0.5`` runs it; yields the port."""
    if request.param == "serve":
        app = create_app(store_bundle, max_sessions=8, session_ttl=60, trainer_token=TOKEN, body_timeout=SLOW)
    else:
        app = create_openenv_app(store_bundle, max_sessions=8, session_ttl=60, trainer_token=TOKEN, body_timeout=SLOW)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    server = make_server(app, "127.0.0.1", port, header_timeout=SLOW, log_level="error")
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "server did not start"
    yield port
    server.should_exit = True
    thread.join(timeout=10)


def _ws_key() -> str:
    return base64.b64encode(os.urandom(16)).decode()


# (what is sent at once, what is then sent byte by byte): each would take the client 10 s or more.
SLOW_CASES: dict[str, tuple[bytes, bytes]] = {
    "slow headers": (b"POST /health HTTP/1.1\r\nHost: 127.0.0.1\r\n", b"X-Slow: " + b"a" * 400 + b"\r\n\r\n"),
    "slow body": (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n",
        b"[" + b"1," * 199 + b"]",
    ),
    "slow websocket handshake": (
        b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n",
        f"Sec-WebSocket-Key: {_ws_key()}\r\nSec-WebSocket-Version: 13\r\nX-Slow: {'a' * 400}\r\n\r\n".encode(),
    ),
}


def _drip(port: int, start: bytes, rest: bytes) -> tuple[bytes, float]:
    """Send ``start``, then ``rest`` one byte every DRIP s until the server answers or closes; the reply
    (b"" for a bare close) and the seconds from the first byte to the cut."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        began = time.monotonic()
        sock.sendall(start)
        for byte in rest:
            readable, _, _ = select.select([sock], [], [], DRIP)
            if readable:
                break
            try:
                sock.sendall(bytes([byte]))
            except OSError:  # the server closed first
                break
        else:
            pytest.fail(f"the whole request was sent in {time.monotonic() - began:.1f} s: nothing cut the client off")
        try:
            reply = sock.recv(4096)
        except OSError:
            reply = b""
        return reply, time.monotonic() - began


@pytest.mark.parametrize("case", list(SLOW_CASES))
def test_every_server_cuts_off_a_slow_client(slow_server: int, case: str) -> None:
    """The client is cut off after the time-out (408, or a bare close), long before it would have finished."""
    reply, seconds = _drip(slow_server, *SLOW_CASES[case])
    assert reply == b"" or reply.startswith(b"HTTP/1.1 408"), (case, reply[:200])
    assert SLOW * 0.8 <= seconds < SLOW + 3, (case, seconds)
