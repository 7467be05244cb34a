"""The request guard in front of every route (REST and MCP alike).

A server on a developer's machine is reachable from any web page the developer opens:
the page cannot read the answers, but it can send requests, and with DNS rebinding it
can make them look same-origin. So, before any route runs:

* ``Host`` must name one of the allowed hosts (loopback names by default: ``localhost``,
  ``127.0.0.1``, ``::1``; configurable, ``*`` allows any): otherwise 421;
* an ``Origin`` header, when a browser sends one, must name an allowed host too: 403;
* a body is accepted only as ``application/json`` (a page can send ``text/plain`` or a
  form without asking, but not JSON): otherwise 415;
* the body is read whole, within ``max_body`` bytes (413) and ``body_timeout`` seconds
  (408, so a client trickling its body cannot hold the connection), then handed on.

Errors are the server's usual ``{"code", "message"}`` JSON. A WebSocket handshake (OpenEnv's
``/ws``) is held to the same ``Host`` and ``Origin`` rules, since a web page can open one too: a
refused handshake is closed before it is accepted (policy violation, 1008), which the client sees
as HTTP 403. Every server the project starts (``synthenv serve`` and its OpenEnv protocol) runs
behind this one guard.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
ALLOWED_HOSTS_ENV = "SYNTHENV_ALLOWED_HOSTS"
DEFAULT_BODY_TIMEOUT = 10.0
_BODY_METHODS = {"POST", "PUT", "PATCH"}


def allowed_hosts_from_env(default: Sequence[str] = LOOPBACK_HOSTS) -> list[str]:
    """``$SYNTHENV_ALLOWED_HOSTS`` (comma-separated) or ``default``."""
    configured = os.environ.get(ALLOWED_HOSTS_ENV, "")
    hosts = [h.strip() for h in configured.split(",") if h.strip()]
    return hosts or list(default)


def host_name(value: str) -> str | None:
    """The host part of a ``Host`` header (``name``, ``name:port``, ``[v6]:port``), lowercased; None if malformed."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        host, rest = value[1:end], value[end + 1 :]
        if end < 0 or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        return host or None
    host, sep, port = value.partition(":")
    if sep and not port.isdigit():
        return None
    return host or None


class HostRule:
    """Exact names, ``*.suffix`` patterns, or ``*`` for any host."""

    def __init__(self, hosts: Iterable[str]) -> None:
        names = [h.strip().lower().strip("[]") for h in hosts if h.strip()]
        self.any = "*" in names
        self.exact = {n for n in names if not n.startswith("*")}
        self.suffixes = tuple(n[1:] for n in names if n.startswith("*.") and len(n) > 2)

    def allows(self, host: str | None) -> bool:
        if host is None:
            return False
        return self.any or host in self.exact or host.endswith(self.suffixes)

    def allows_origin(self, origin: str) -> bool:
        try:
            parts = urlsplit(origin)
        except ValueError:
            return False
        return parts.scheme in ("http", "https") and self.allows(parts.hostname)


def _media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


class RequestGuard:
    """ASGI middleware applying the rules in the module docstring to every HTTP request."""

    def __init__(
        self,
        app: ASGIApp,
        allowed_hosts: Iterable[str] = LOOPBACK_HOSTS,
        max_body: int = 1 << 20,
        body_timeout: float = DEFAULT_BODY_TIMEOUT,
    ) -> None:
        self.app = app
        self.hosts = HostRule(allowed_hosts)
        self.max_body = max_body
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            headers = Headers(scope=scope)
            if self._refusal(headers, "GET") is not None:
                await send({"type": "websocket.close", "code": 1008, "reason": "host or origin not allowed"})
                return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self._refusal(headers, scope["method"])
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        if scope["method"] not in _BODY_METHODS:
            await self.app(scope, receive, send)
            return
        body, refusal = await self._read_body(receive, headers)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)

    def _refusal(self, headers: Headers, method: str) -> JSONResponse | None:
        host = headers.get("host", "")
        if not self.hosts.allows(host_name(host)):
            return _error(421, "misdirected_request", f"this server does not answer for host {host[:100]!r}")
        origin = headers.get("origin")
        if origin is not None and not self.hosts.allows_origin(origin):
            return _error(403, "forbidden_origin", f"requests from origin {origin[:100]!r} are not accepted")
        content_type = headers.get("content-type")
        if method in _BODY_METHODS and content_type is not None and _media_type(content_type) != "application/json":
            return _unsupported(content_type)
        return None

    async def _read_body(self, receive: Receive, headers: Headers) -> tuple[bytes, JSONResponse | None]:
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body:
            return b"", _error(413, "payload_too_large", f"the body is {declared} bytes; the limit is {self.max_body}")
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.body_timeout):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        break
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > self.max_body:
                        return b"", _error(413, "payload_too_large", f"the body is over the limit of {self.max_body}")
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            return b"", _error(
                408, "request_timeout", f"the body did not arrive within {self.body_timeout:g} s", close=True
            )
        body = b"".join(chunks)
        if body and headers.get("content-type") is None:
            return b"", _unsupported(None)
        return body, None


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the app the already-read body, then the real channel (disconnects)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _unsupported(content_type: str | None) -> JSONResponse:
    given = f"{content_type[:100]!r}" if content_type is not None else "none"
    return _error(415, "unsupported_media_type", f"send the body as application/json (Content-Type was {given})")


def _error(status: int, code: str, message: str, close: bool = False) -> JSONResponse:
    headers = {"connection": "close"} if close else None
    return JSONResponse({"code": code, "message": message}, status_code=status, headers=headers)
