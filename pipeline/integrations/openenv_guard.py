"""The OpenEnv server's session slots are the WebSocket clients', not any HTTP caller's.

OpenEnv opens a session for every WebSocket (closed with it) and, over HTTP, for every
``openenv/session/create`` JSON-RPC call to ``POST /mcp``, which holds a slot until it is
closed or idles out. Sixteen such requests filled a 16-slot server and every WebSocket
client was refused. Starting an episode needs the trainer token anyway, so a session
opened over HTTP by anyone else could only ever hold a slot: :class:`SessionCreateNeedsToken`
answers it with a JSON-RPC error (HTTP 403) unless the request carries ``Authorization:
Bearer <trainer token>``. The WebSocket path, one session per live socket, is unchanged.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pipeline.server.trainer import bearer_ok
from pipeline.tools.jsonvalues import parse_json

CREATE = "openenv/session/create"
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
