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

MCP sessions belong to the ``mcp`` library, which names them itself: with several
workers an MCP client must keep its connection (a reconnecting one gets a new session).
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
    """ASGI middleware: forward a request naming another worker's session to that worker."""

    def __init__(self, app: ASGIApp, worker: int, sockets: list[str]) -> None:
        self.app, self.worker, self.sockets = app, worker, sockets
        self._clients: dict[int, Any] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            sid = _session_of(scope)
            target = owner(sid) if sid else None
            if target is not None and target != self.worker and 0 <= target < len(self.sockets):
                await self._forward(target, scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _client(self, target: int) -> Any:
        import httpx

        client = self._clients.get(target)
        if client is None:
            transport = httpx.AsyncHTTPTransport(uds=self.sockets[target])
            client = httpx.AsyncClient(transport=transport, base_url="http://worker", timeout=60)
            self._clients[target] = client
        return client

    async def _forward(self, target: int, scope: Scope, receive: Receive, send: Send) -> None:
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
        reply = await self._client(target).request(scope["method"], path, headers=headers, content=body)
        out = [(k, v) for k, v in reply.headers.raw if k.lower() not in (b"content-length", b"transfer-encoding")]
        out.append((b"content-length", str(len(reply.content)).encode()))
        await send({"type": "http.response.start", "status": reply.status_code, "headers": out})
        await send({"type": "http.response.body", "body": reply.content})


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
