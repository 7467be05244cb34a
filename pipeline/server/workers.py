"""Several server processes on one port, each session pinned to the process that holds it.

A session is a SQLite connection in one process's memory, so a process cannot serve
another's session. :func:`serve_workers` binds one listening socket, then forks ``workers``
processes that each build their own app (sharing nothing but the bundle files) and accept
on that socket, so the kernel spreads connections across them. Each worker names its
sessions ``w{index}.{token}`` and also listens on a private Unix socket; a request for a
session of another worker (a client that reconnected, or spreads one session's calls over
several connections) is forwarded to its owner over that socket by :class:`Sticky` and the
answer relayed unchanged. A client that keeps one keep-alive connection per session (the
usual case) is never forwarded.

MCP sessions belong to the ``mcp`` library, which names them itself and keeps them in
one process. :class:`Sticky` names the worker in them too: the ``mcp-session-id`` a worker
answers with gains its ``w{index}.`` prefix (stripped again before the library reads it),
and a request whose ``mcp-session-id`` names another worker is forwarded there, taking
precedence over ``X-Session-Id`` (an MCP session and the episode it names were opened on
one worker: the opening request, which has no ``mcp-session-id``, is routed by its
``X-Session-Id``). Forwarded responses are streamed, so an MCP event stream (GET) works
through another worker and ends when its client leaves. A session named only in a
request's ``_meta`` is not routed (the body is not read): name it in the header.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from pipeline.tools.openapi import SESSION_HEADER

_HEADER = SESSION_HEADER.lower().encode()
_MCP_HEADER = b"mcp-session-id"


def session_prefix(worker: int) -> str:
    return f"w{worker}."


def owner(session_id: str) -> int | None:
    """The worker a session id names, or None for an id without a worker prefix."""
    head, dot, _ = session_id.partition(".")
    if not dot or not head.startswith("w") or not head[1:].isdigit():
        return None
    return int(head[1:])


def _session_of(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == _HEADER:
            return value.decode("latin-1")
    parts = scope["path"].split("/")
    if len(parts) > 2 and parts[1] == "sessions":
        return parts[2]
    if len(parts) > 3 and parts[1] == "trainer" and parts[2] == "sessions":
        return parts[3]
    return None


class Sticky:
    """ASGI middleware: forward a request naming another worker's session (environment or MCP) to that
    worker; name this worker in the MCP session ids it hands out."""

    def __init__(self, app: ASGIApp, worker: int, sockets: list[str]) -> None:
        self.app, self.worker, self.sockets = app, worker, sockets
        self._prefix = session_prefix(worker).encode()
        self._clients: dict[int, Any] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        mcp_id = _header(scope, _MCP_HEADER)
        sid = mcp_id.decode("latin-1") if mcp_id is not None and owner(mcp_id.decode("latin-1")) is not None else None
        sid = sid or _session_of(scope)
        target = owner(sid) if sid else None
        if target is not None and target != self.worker and 0 <= target < len(self.sockets):
            await self._forward(target, scope, receive, send)
            return
        if mcp_id is not None and mcp_id.startswith(self._prefix):
            inner = mcp_id[len(self._prefix) :]
            headers = [(k, inner if k == _MCP_HEADER else v) for k, v in scope["headers"]]
            scope = {**scope, "headers": headers}
        await self.app(scope, receive, self._naming(send))

    def _naming(self, send: Send) -> Send:
        """``send`` with this worker's prefix on the ``mcp-session-id`` of a response."""
        prefix = self._prefix

        async def naming(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = message.get("headers", [])
                if any(k.lower() == _MCP_HEADER for k, _ in headers):
                    named = [(k, prefix + v if k.lower() == _MCP_HEADER else v) for k, v in headers]
                    message = {**message, "headers": named}
            await send(message)

        return naming

    def _client(self, target: int) -> Any:
        import httpx

        client = self._clients.get(target)
        if client is None:
            transport = httpx.AsyncHTTPTransport(uds=self.sockets[target])
            # No read deadline: an MCP event stream may idle; it ends when its client leaves.
            timeout = httpx.Timeout(60.0, read=None)
            client = httpx.AsyncClient(transport=transport, base_url="http://worker", timeout=timeout)
            self._clients[target] = client
        return client

    async def _forward(self, target: int, scope: Scope, receive: Receive, send: Send) -> None:
        import anyio

        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        path = scope["raw_path"].decode("latin-1") if scope.get("raw_path") else scope["path"]
        if scope.get("query_string"):
            path += "?" + scope["query_string"].decode("latin-1")
        headers = [(k, v) for k, v in scope["headers"] if k not in (b"content-length", b"transfer-encoding")]
        client = self._client(target)
        request = client.build_request(scope["method"], path, headers=headers, content=body)
        reply = await client.send(request, stream=True)
        try:
            async with anyio.create_task_group() as group:

                async def until_client_leaves() -> None:
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    group.cancel_scope.cancel()

                group.start_soon(until_client_leaves)
                hop = (b"content-length", b"transfer-encoding")
                out = [(k, v) for k, v in reply.headers.raw if k.lower() not in hop]
                if "content-length" in reply.headers:
                    out.append((b"content-length", reply.headers["content-length"].encode()))
                await send({"type": "http.response.start", "status": reply.status_code, "headers": out})
                async for chunk in reply.aiter_raw():
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                await send({"type": "http.response.body", "body": b""})
                group.cancel_scope.cancel()
        finally:
            await reply.aclose()


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return None


def serve_workers(
    build: Callable[[int, list[str]], Any],
    host: str,
    port: int,
    workers: int,
    run: Callable[[Any, list[socket.socket]], None],
) -> None:
    """Bind ``host:port``, fork ``workers`` processes, each running ``run(build(index, unix_paths), sockets)``.

    ``build`` makes a worker's ASGI app (after the fork, so nothing but the bundle files is
    shared); ``run`` serves it on the given sockets until told to stop. The parent waits for
    the workers and passes SIGINT/SIGTERM on to them.
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(2048)
    listener.set_inheritable(True)
    with tempfile.TemporaryDirectory(prefix="synthenv-workers-") as tmp:
        paths = [str(Path(tmp) / f"w{i}.sock") for i in range(workers)]
        children = []
        for index in range(workers):
            pid = os.fork()
            if pid == 0:  # the worker
                code = 0
                try:
                    private = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    private.bind(paths[index])
                    private.listen(256)
                    run(build(index, paths), [listener, private])
                except BaseException:
                    code = 1
                    raise
                finally:
                    os._exit(code)
            children.append(pid)

        def stop(signum: int, _frame: Any) -> None:
            for child in children:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child, signal.SIGTERM)

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        for child in children:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(child, 0)
    listener.close()
