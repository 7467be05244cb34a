"""The tool route's fast path and the coalescing transport, over real HTTP on 127.0.0.1.

``ToolRoute`` answers ``POST /tools/{name}`` inside the request guard, and uvicorn's transport
is wrapped so a response leaves in one write: the answers, their bytes and headers, the guard's
refusals and everything the route does not take must be what they were.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from loopback import free_port, running

from pipeline.server.http import create_app
from pipeline.server.runner import make_server
from pipeline.server.transport import CoalescingTransport

TOKEN = "toolroute-trainer-token-0123456789"


@pytest.fixture(scope="module", params=["httptools", "h11"])
def base(request: pytest.FixtureRequest, store_bundle: Path) -> Iterator[str]:
    """A real uvicorn server (each parser) in a thread of this process."""
    app = create_app(store_bundle, max_sessions=8, trainer_token=TOKEN, max_body_bytes=4096)
    server = make_server(app, "127.0.0.1", free_port(), parser=request.param)
    with running(server) as url:
        yield url


@pytest.fixture
def client(base: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base, timeout=10) as c:
        yield c


def _session(c: httpx.Client) -> str:
    r = c.post("/trainer/sessions", json={"seed": 1}, headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 201, r.text
    return str(r.json()["session_id"])


def test_tool_answers_match_the_step_route(client: httpx.Client) -> None:
    sid = _session(client)
    h = {"X-Session-Id": sid}
    r = client.post("/tools/get_order", json={"id": 1}, headers=h)
    step = client.post("/sessions/" + sid + "/step", json={"action": {"tool": "get_order", "arguments": {"id": 1}}})
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    assert int(r.headers["content-length"]) == len(r.content)
    assert r.json() == step.json()["observation"]["result"]
    many = [client.post("/tools/list_orders", json={"limit": 2, "offset": i}, headers=h) for i in range(20)]
    assert all(x.status_code == 200 and len(x.json()["items"]) == 2 for x in many)


def test_errors_keep_their_status_and_shape(client: httpx.Client) -> None:
    sid = _session(client)
    cases: list[tuple[int, str, dict[str, Any]]] = [
        (400, "invalid_argument", {"path": "/tools/get_order", "json": {"id": 1}}),
        (404, "not_found", {"path": "/tools/get_order", "json": {"id": 1}, "headers": {"X-Session-Id": "nope"}}),
        (404, "not_found", {"path": "/tools/no_such_tool", "json": {}, "headers": {"X-Session-Id": sid}}),
        (400, "invalid_argument", {"path": "/tools/get_order", "content": b"{", "sid": sid}),
        (400, "invalid_argument", {"path": "/tools/get_order", "content": b"", "sid": sid}),
        (404, "not_found", {"path": "/tools/get_order", "json": {"id": 10**9}, "headers": {"X-Session-Id": sid}}),
        (413, "payload_too_large", {"path": "/tools/get_order", "content": b" " * 5000, "sid": sid}),
    ]
    for status, code, case in cases:
        headers = dict(case.get("headers", {}))
        if "sid" in case:
            headers.update({"X-Session-Id": case["sid"], "Content-Type": "application/json"})
        if "json" in case:
            r = client.post(case["path"], json=case["json"], headers=headers)
        else:
            r = client.post(case["path"], content=case["content"], headers=headers)
        assert r.status_code == status, (case, r.text)
        assert set(r.json()) == {"code", "message"} and r.json()["code"] == code, (case, r.text)
        assert r.content == json.dumps(r.json(), ensure_ascii=False, separators=(",", ":")).encode()


def test_the_guard_still_runs_first(client: httpx.Client) -> None:
    sid = _session(client)
    h = {"X-Session-Id": sid}
    assert client.post("/tools/get_order", json={"id": 1}, headers={**h, "Host": "evil.example"}).status_code == 421
    assert (
        client.post("/tools/get_order", json={"id": 1}, headers={**h, "Origin": "http://evil.example"}).status_code
        == 403
    )
    plain = client.post("/tools/get_order", content=b'{"id": 1}', headers={**h, "Content-Type": "text/plain"})
    assert plain.status_code == 415


def test_what_the_fast_path_does_not_take_goes_to_the_router(client: httpx.Client) -> None:
    sid = _session(client)
    h = {"X-Session-Id": sid}
    assert client.get("/tools/get_order", headers=h).status_code == 405
    assert client.post("/tools/", json={}, headers=h).status_code == 404
    assert client.post("/tools/get_order/x", json={}, headers=h).status_code == 404
    assert client.get("/health").json()["status"] == "ok"


def test_connection_close_still_delivers_the_answer(base: str, client: httpx.Client) -> None:
    sid = _session(client)
    port = int(base.rsplit(":", 1)[1])
    body = b'{"id": 1}'
    request = (
        f"POST /tools/get_order HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"X-Session-Id: {sid}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request)
        received = b""
        while chunk := s.recv(65536):
            received += chunk
    head, _, payload = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and json.loads(payload)["id"] == 1


class _Recorder(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: Any) -> None:
        self.writes.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed

    def get_write_buffer_size(self) -> int:
        return 0

    def close(self) -> None:
        self.closed = True


def test_writes_of_one_loop_turn_leave_together_and_close_flushes() -> None:
    async def scenario() -> _Recorder:
        real = _Recorder()
        t = CoalescingTransport(real, asyncio.get_running_loop())
        t.write(b"head")
        t.write(b"body")
        assert real.writes == [] and t.get_write_buffer_size() == 8
        await asyncio.sleep(0)
        assert real.writes == [b"headbody"]
        t.write(b"last")
        t.close()
        assert real.writes == [b"headbody", b"last"] and real.closed
        return real

    asyncio.run(scenario())


@pytest.mark.parametrize("parser", ["httptools", "h11"])
def test_the_header_deadline_moves_with_each_request_of_a_keep_alive_connection(
    store_bundle: Path, parser: str
) -> None:
    """Busy past the deadline on one connection is fine; headers that stall after a response are cut."""
    app = create_app(store_bundle, max_sessions=2, trainer_token=TOKEN)
    port = free_port()
    server = make_server(app, "127.0.0.1", port, header_timeout=0.3, parser=parser)
    with running(server):
        health = f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            started = time.monotonic()
            while time.monotonic() - started < 0.8:  # well past one deadline, never idle for one
                s.sendall(health)
                head = b""
                while b"\r\n\r\n" not in head:
                    head += s.recv(65536)
                assert head.startswith(b"HTTP/1.1 200"), head
                length = int(head.split(b"content-length: ", 1)[1].split(b"\r\n", 1)[0])
                body = head.partition(b"\r\n\r\n")[2]
                while len(body) < length:
                    body += s.recv(65536)
            s.sendall(b"GET /health HTTP/1.1\r\n")  # and then nothing
            stalled = time.monotonic()
            received = b""
            while chunk := s.recv(65536):
                received += chunk
            assert received.startswith(b"HTTP/1.1 408") and time.monotonic() - stalled < 2
