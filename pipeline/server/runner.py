"""Running the app under uvicorn with limits a hostile client cannot sit out.

uvicorn's HTTP/1.1 protocol times out idle keep-alive connections, but not a client that
opens a connection and sends its request headers slowly (or never finishes them): each
such socket stays open for as long as the client likes, and a few hundred exhaust the
server. :class:`HeaderTimeoutProtocol` gives every request ``header_timeout`` seconds
from the connection (or the previous response) to the end of its headers, then answers
408 and closes. Slow bodies are the request guard's job (``pipeline.server.guard``);
``limit_concurrency`` caps connections and requests in flight (503 with ``Retry-After`` beyond).

The HTTP parser is httptools (C) when installed (``synthenv[serve]`` brings it with uvloop),
h11 otherwise; both get the same header deadline. :func:`serve_workers` runs several
worker processes on one listening socket (see :mod:`pipeline.server.workers`). A request's
client address is the connection's, or the ``X-Forwarded-For`` one when the connection comes
from a trusted proxy (``forwarded_allow_ips``, :mod:`pipeline.server.proxies`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from pipeline.server.proxies import trusted_proxies
from pipeline.server.transport import CoalescingTransport

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # httptools not installed: h11 only
    HttpToolsProtocol = None  # type: ignore[assignment,misc]

RETRY_AFTER = b"1"
"""Seconds a client refused for lack of connections waits (connections free up as responses complete)."""


async def _service_unavailable(scope: Any, receive: Any, send: Any) -> None:
    """uvicorn's over-``limit_concurrency`` answer, plus ``Retry-After``: capacity is a 503 a client can act on."""
    body = b"Service Unavailable"
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", RETRY_AFTER),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _answer_capacity_with_retry_after() -> None:
    """uvicorn's protocols name their 503 app as a module global; point it at :func:`_service_unavailable`."""
    from uvicorn.protocols.http import h11_impl

    h11_impl.service_unavailable = _service_unavailable  # type: ignore[assignment]
    if HttpToolsProtocol is not None:
        from uvicorn.protocols.http import httptools_impl

        httptools_impl.service_unavailable = _service_unavailable  # type: ignore[assignment]


DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_KEEP_ALIVE = 5
DEFAULT_MAX_CONNECTIONS = 1000
_TIMEOUT_RESPONSE = b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


class HeaderTimeoutProtocol(H11Protocol):
    """uvicorn's h11 protocol plus a deadline on each request's headers."""

    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(CoalescingTransport(transport, self.loop))
        self._arm()

    def handle_events(self) -> None:
        scope = self.scope
        super().handle_events()
        if self.scope is not scope:  # a request's headers arrived complete
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request on this connection gets its own deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timer()
        super().connection_lost(exc)

    # One timer per connection, moved lazily: a keep-alive connection answering thousands of requests a
    # second would otherwise create and cancel a timer for each (about 4 % of the server's CPU under 64
    # clients). _arm sets the deadline and starts the timer only when none is pending; _disarm clears the
    # deadline; a timer that fires early for the current deadline waits again until it.
    _header_deadline: float | None = None

    def _arm(self) -> None:
        self._header_deadline = self.loop.time() + self.header_timeout
        if self._header_timer is None:
            self._header_timer = self.loop.call_at(self._header_deadline, self._headers_too_slow)

    def _disarm(self) -> None:
        self._header_deadline = None

    def _stop_timer(self) -> None:
        self._header_deadline = None
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        deadline = self._header_deadline
        if deadline is None:  # the headers came in time; the next request's _arm starts the timer again
            return
        if self.loop.time() < deadline:  # the deadline moved on since the timer was started
            self._header_timer = self.loop.call_at(deadline, self._headers_too_slow)
            return
        if self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete:
            self.transport.write(_TIMEOUT_RESPONSE)
        self.transport.close()


if HttpToolsProtocol is not None:

    class HttpToolsHeaderTimeoutProtocol(HttpToolsProtocol):
        """uvicorn's httptools protocol plus the same deadline on each request's headers."""

        header_timeout: float = DEFAULT_HEADER_TIMEOUT
        _header_timer: asyncio.TimerHandle | None = None
        # The deadline's helpers are shared with the h11 protocol; they only touch attributes both define.
        _arm: ClassVar[Callable[[Any], None]] = HeaderTimeoutProtocol._arm
        _disarm: ClassVar[Callable[[Any], None]] = HeaderTimeoutProtocol._disarm
        _headers_too_slow: ClassVar[Callable[[Any], None]] = HeaderTimeoutProtocol._headers_too_slow
        _stop_timer: ClassVar[Callable[[Any], None]] = HeaderTimeoutProtocol._stop_timer
        _header_deadline: float | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(CoalescingTransport(transport, self.loop))
            self._arm()

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_timer()
            super().connection_lost(exc)


def make_server(
    app: Any,
    host: str,
    port: int,
    *,
    header_timeout: float = DEFAULT_HEADER_TIMEOUT,
    keep_alive: int = DEFAULT_KEEP_ALIVE,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    log_level: str = "warning",
    parser: str = "auto",
    forwarded_allow_ips: str | Sequence[str] | None = None,
) -> uvicorn.Server:
    """A uvicorn server for ``app`` whose clients must send headers within ``header_timeout`` seconds.

    ``parser``: ``httptools``, ``h11``, or ``auto`` (httptools when installed). ``forwarded_allow_ips``:
    the peers whose ``X-Forwarded-For`` names the client (:func:`pipeline.server.proxies.trusted_proxies`;
    ValueError for an entry that is not an address or network); None is uvicorn's default,
    ``$FORWARDED_ALLOW_IPS`` or else ``127.0.0.1,::1``.
    """
    if header_timeout <= 0:
        raise ValueError(f"header_timeout must be positive, got {header_timeout}")
    if parser not in ("auto", "httptools", "h11"):
        raise ValueError(f"parser must be auto, httptools or h11, got {parser!r}")
    if parser == "httptools" and HttpToolsProtocol is None:
        raise ValueError("parser httptools needs the httptools package: pip install 'synthenv[serve]'")
    trusted = None if forwarded_allow_ips is None else trusted_proxies(forwarded_allow_ips)
    base = HeaderTimeoutProtocol if parser == "h11" or HttpToolsProtocol is None else HttpToolsHeaderTimeoutProtocol
    protocol = type(base.__name__, (base,), {"header_timeout": float(header_timeout)})
    _answer_capacity_with_retry_after()
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        http=protocol,
        timeout_keep_alive=keep_alive,
        limit_concurrency=max_connections,
        log_level=log_level,
        access_log=False,
        lifespan="on",
        proxy_headers=True,
        forwarded_allow_ips=trusted,
    )
    return uvicorn.Server(config)


def serve_workers_cli(
    bundle: Any,
    listen: str,
    port: int,
    workers: int,
    header_timeout: float,
    log_level: str,
    forwarded_allow_ips: str | Sequence[str] | None = None,
    **options: Any,
) -> None:
    """``synthenv serve --workers N``: N processes, each its own app over the bundle (``options`` for
    :func:`pipeline.server.http.create_app`), on one port; see :mod:`pipeline.server.workers`.
    ``forwarded_allow_ips`` as for :func:`make_server`, in every worker."""
    from pipeline.server.http import create_app
    from pipeline.server.workers import serve_workers

    trusted = None if forwarded_allow_ips is None else trusted_proxies(forwarded_allow_ips)  # before the fork

    def build(index: int, paths: list[str]) -> Any:
        return create_app(bundle, worker=index, worker_sockets=paths, **options)

    def run(app: Any, sockets: list[Any]) -> None:
        make_server(
            app, listen, port, header_timeout=header_timeout, log_level=log_level, forwarded_allow_ips=trusted
        ).run(sockets=sockets)

    serve_workers(build, listen, port, workers, run)
