"""One table of hostile requests against every server the project starts: ``synthenv serve``'s app
and the OpenEnv protocol's app, each on a real loopback port. Both run behind the same guard
(``pipeline/server/guard.py``): a foreign Host or Origin, a non-JSON body and an oversized body
are refused before any route runs, over HTTP and at the WebSocket handshake alike."""

from __future__ import annotations

import base64
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("openenv")

from loopback import serve

from pipeline.integrations.openenv import create_openenv_app
from pipeline.server.http import create_app

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
