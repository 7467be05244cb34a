"""Serve an ASGI app under uvicorn on a free loopback port for one test (stops by itself)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serve(app: Any, timeout: float = 30.0) -> Iterator[str]:
    """``http://127.0.0.1:PORT`` while the server runs; shut down on exit."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", lifespan="on"))
    with running(server, timeout) as url:
        yield url


@contextlib.contextmanager
def running(server: Any, timeout: float = 30.0) -> Iterator[str]:
    """Run a built ``uvicorn.Server`` (on 127.0.0.1 and a free port) in a thread: ``http://127.0.0.1:PORT``
    while it runs; shut down on exit."""
    port = server.config.port
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    if not server.started:
        raise RuntimeError(f"server did not start within {timeout} s")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
