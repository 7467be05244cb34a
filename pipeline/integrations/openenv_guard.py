"""The OpenEnv server's session slots are the WebSocket clients', not any HTTP caller's.

OpenEnv opens a session for every WebSocket (closed with it) and, over HTTP, for every
``openenv/session/create`` JSON-RPC call to ``POST /mcp``, which holds a slot until it is
closed or idles out. Sixteen such requests filled a 16-slot server and every WebSocket
client was refused. Starting an episode needs the trainer token anyway, so a session
opened over HTTP by anyone else could only ever hold a slot: :class:`SessionCreateNeedsToken`
answers it with a JSON-RPC error (HTTP 403) unless the request carries ``Authorization:
Bearer <trainer token>``. The WebSocket path, one session per live socket, is unchanged.

A WebSocket opens a session for anyone who reaches the port, so one client that never says
goodbye could hold every slot: :class:`SessionsPerClient` lets one client address hold at most
``max_sessions_per_client`` live WebSockets (``/ws`` and ``/mcp`` alike) and refuses the next one
before the upgrade, as the server's other capacity refusals: HTTP 503 with ``Retry-After`` and a
``{"code": "unavailable", "message"}`` body naming the flag. The slot frees when the client closes
one of its sockets. The address is the request's client as uvicorn hands it on: behind a reverse
proxy every client has the proxy's address unless the proxy sets ``X-Forwarded-For`` and its address
is trusted (``synthenv serve --forwarded-allow-ips``; by default ``$FORWARDED_ALLOW_IPS``, else
uvicorn's ``127.0.0.1,::1``, a proxy on the same machine), and then each client counts apart (the
last address in the header that is not a trusted proxy). A header from an untrusted peer is ignored.
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from collections import Counter
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pipeline.server.trainer import bearer_ok
from pipeline.tools.jsonvalues import parse_json

CREATE = "openenv/session/create"
DEFAULT_MAX_SESSIONS_PER_CLIENT = 64
"""Live WebSocket sessions one client address may hold: a quarter of the default 256 slots, room for a
trainer running 64 episodes at once from one machine (more: ``--max-sessions-per-client``)."""
RETRY_AFTER = b"1"
"""Seconds a client refused for its own cap waits: a slot is its again as soon as it closes a socket."""
NEEDS_TOKEN = (
    f"{CREATE} over HTTP needs the trainer token (Authorization: Bearer TOKEN); an agent's session is its "
    "WebSocket (/ws), opened with the connection and closed with it"
)


def _creates(body: bytes) -> list[Any] | None:
    """The ids of the session-create calls in a JSON-RPC body (one call or a batch), or None if there are none."""
    try:
        value = parse_json(body)
    except ValueError:
        return None  # OpenEnv answers malformed JSON itself
    calls = value if isinstance(value, list) else [value]
    ids = [c.get("id") for c in calls if isinstance(c, dict) and c.get("method") == CREATE]
    return ids or None


class SessionCreateNeedsToken:
    """ASGI middleware: ``openenv/session/create`` on ``POST /mcp`` only with the trainer's bearer token."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"].rstrip("/") != "/mcp":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if bearer_ok(headers, self.token):
            await self.app(scope, receive, send)
            return
        body, more = b"", True
        while more:  # the request guard in front has capped its size and time
            message = await receive()
            if message["type"] != "http.request":
                return
            body += message.get("body", b"")
            more = bool(message.get("more_body"))
        ids = _creates(body)
        if ids is not None:
            error = {"code": -32001, "message": NEEDS_TOKEN}
            replies = [{"jsonrpc": "2.0", "id": i, "error": error} for i in ids]
            payload = json.dumps(replies[0] if len(replies) == 1 else replies).encode()
            raw = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
            await send({"type": "http.response.start", "status": 403, "headers": raw})
            await send({"type": "http.response.body", "body": payload})
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class _SpuriousHandshakeError(logging.Filter):
    """Drops the error line uvicorn's ``websockets-sansio`` protocol logs after a denial response.

    That protocol writes the 503 but never marks the handshake done, so when the app returns it logs
    "ASGI callable returned without completing handshake." (uvicorn 0.54; uvicorn pull request 3138
    fixes it upstream, and wsproto never logged it). uvicorn logs it in the task that ran the app, as
    the app returns; only the tasks that just sent a refusal have that line dropped, once each: a client
    at its cap cannot fill the server log with errors, and any other such line still shows.
    """

    MESSAGE = "ASGI callable returned without completing handshake."

    def __init__(self) -> None:
        super().__init__()
        self.refused: weakref.WeakSet[asyncio.Task[Any]] = weakref.WeakSet()

    def mark(self) -> None:
        """The current task has sent a denial response."""
        task = asyncio.current_task()
        if task is not None:
            self.refused.add(task)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage() != self.MESSAGE:
            return True
        try:
            task = asyncio.current_task()
        except RuntimeError:  # logged outside an event loop
            return True
        if task is None or task not in self.refused:
            return True
        self.refused.discard(task)
        return False


_DENIALS = _SpuriousHandshakeError()


class SessionsPerClient:
    """ASGI middleware: at most ``limit`` live WebSockets per client address, and at most ``total`` in
    all; the next is a 503 with ``Retry-After`` before the upgrade (OpenEnv's own cap would accept
    the socket, then send an error and close it)."""

    def __init__(self, app: ASGIApp, limit: int, total: int | None = None) -> None:
        if limit < 1:
            raise ValueError(f"max_sessions_per_client must be at least 1, got {limit}")
        if total is not None and total < 1:
            raise ValueError(f"max_sessions must be at least 1, got {total}")
        self.app, self.limit, self.total = app, limit, total
        self.live: Counter[str] = Counter()
        """Open WebSockets by client address (the event loop is the only writer)."""
        uvicorn_log = logging.getLogger("uvicorn.error")
        if _DENIALS not in uvicorn_log.filters:
            uvicorn_log.addFilter(_DENIALS)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        peer = str(client[0]) if client else ""
        if self.live[peer] >= self.limit:
            await self._refuse(scope, receive, send, self._per_client())
            return
        if self.total is not None and sum(self.live.values()) >= self.total:
            await self._refuse(scope, receive, send, self._server_full())
            return
        self.live[peer] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.live[peer] -= 1
            if self.live[peer] <= 0:
                del self.live[peer]

    def _per_client(self) -> str:
        return (
            f"this client already holds {self.limit} WebSocket sessions, the most one address may hold "
            "(synthenv serve --max-sessions-per-client); close one and retry"
        )

    def _server_full(self) -> str:
        return (
            f"the server holds {self.total} WebSocket sessions, its most (synthenv serve --max-sessions); "
            "retry when one closes"
        )

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, message: str) -> None:
        if (await receive())["type"] != "websocket.connect":
            return  # gone before the handshake
        if "websocket.http.response" not in scope.get("extensions", {}):
            await send({"type": "websocket.close", "code": 1013, "reason": message[:120]})  # 1013: try again later
            return
        payload = json.dumps({"code": "unavailable", "message": message}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(payload)).encode()),
            (b"retry-after", RETRY_AFTER),
        ]
        await send({"type": "websocket.http.response.start", "status": 503, "headers": headers})
        await send({"type": "websocket.http.response.body", "body": payload})
        _DENIALS.mark()
