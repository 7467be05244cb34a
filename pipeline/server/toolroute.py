"""``POST /tools/{name}``, the agent's hot path, answered in one ASGI layer.

The tool route was a plain Starlette route at the end of the app's route list. Every call
still went through FastAPI's exception middleware and exit stack, a match against each route
before it, and a ``Request``, a ``JSONResponse`` and two wrapping ``send`` closures built and
thrown away: under 64 clients (py-spy, 2026-11-29) 13-18 % of the server's CPU, about as much as
the tool step itself (18-23 %). :class:`ToolRoute` sits just inside the request guard
(and :class:`pipeline.server.workers.Sticky`, so Host, Origin, media type, size and time limits
and the worker routing all still apply) and answers a ``POST`` whose path is ``/tools/`` and one
segment itself; every other request goes on to the app unchanged (a ``GET /tools/x`` still
gets the router's 405). An exception other than the route's own errors propagates to the
server-error middleware outside, as before.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette._utils import get_route_path
from starlette.types import ASGIApp, Receive, Scope, Send

PREFIX = "/tools/"
_CONTENT_TYPE = (b"content-type", b"application/json")

ToolCall = Callable[[str, "str | None", bytes], "tuple[int, bytes]"]
"""``(tool name, X-Session-Id or None, raw body) -> (status, JSON bytes)``: the answer, errors included."""


class ToolRoute:
    """ASGI middleware: ``POST /tools/{name}`` goes to ``call``, anything else to ``app``."""

    def __init__(self, app: ASGIApp, call: ToolCall, session_header: str) -> None:
        self.app = app
        self.call = call
        self.header = session_header.lower().encode("latin-1")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            path = get_route_path(scope)
            if path.startswith(PREFIX) and len(path) > len(PREFIX) and "/" not in path[len(PREFIX) :]:
                await self._answer(path[len(PREFIX) :], scope, receive, send)
                return
        await self.app(scope, receive, send)

    async def _answer(self, name: str, scope: Scope, receive: Receive, send: Send) -> None:
        chunks = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        session_id = None
        for key, value in scope["headers"]:
            if key == self.header:
                session_id = value.decode("latin-1")
                break
        status, content = self.call(name, session_id, b"".join(chunks))
        headers = [(b"content-length", str(len(content)).encode("latin-1")), _CONTENT_TYPE]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": content, "more_body": False})
