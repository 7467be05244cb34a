"""The FastAPI app: one route per tool, a session's step route, /health, MCP at /mcp, trainer routes.

The agent-facing surface (tool routes with ``X-Session-Id``, ``POST /sessions/{id}/step``,
MCP, ``/health``) acts inside an episode and never chooses one: opening, resetting and
closing sessions are the trainer's routes (:mod:`pipeline.server.trainer`), behind its token.

Every request first passes the request guard (``pipeline.server.guard``: allowed Host
and Origin, JSON bodies only, size and time limits). Every body is then parsed strictly
(``pipeline.tools.jsonvalues``: no NaN or infinity, no lone surrogates, 64-bit integers,
bounded nesting) and checked against the same JSON Schemas the served OpenAPI document
shows, so a bad request of any shape (not JSON, wrong types, unknown fields, too large,
an unknown session) is a 4xx ``{"code", "message"}`` and never reaches the environment.
``POST /tools/{name}`` is answered by :class:`pipeline.server.toolroute.ToolRoute`, just inside
the guard, with the same checks and error bytes as the other routes. Handlers are ``async`` and
do their (sub-millisecond, in-memory SQLite) work on the event loop: one thread owns every
session, so sessions need no locks.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

try:
    import orjson
except ImportError:  # plain json responses
    orjson = None  # type: ignore[assignment]
from jsonschema import Draft202012Validator
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware import Middleware
from starlette.routing import Route

from pipeline.server.guard import DEFAULT_BODY_TIMEOUT, RequestGuard, allowed_hosts_from_env
from pipeline.server.limits import DEFAULT_MAX_ROWS, DEFAULT_MAX_WRITES
from pipeline.server.openapi import BODIES, SHAPES, served_openapi
from pipeline.server.sessions import SessionManager, UnknownSession
from pipeline.server.toolroute import ToolRoute
from pipeline.server.trainer import OPENS_EPISODES, add_trainer_routes, check_token, new_token
from pipeline.server.workers import Sticky, session_prefix
from pipeline.tools.jsonvalues import parse_json
from pipeline.tools.openapi import SESSION_HEADER
from pipeline.tools.specs import ERROR_STATUS

log = logging.getLogger("synthenv.server")
DEFAULT_MAX_BODY = 1 << 20
_STATUS = {
    **ERROR_STATUS,
    "invalid_action": 400,
    "invalid_state": 409,
    "episode_over": 409,
    "payload_too_large": 413,
    "unavailable": 503,
    "limit_exceeded": 429,
}
MCP_SESSIONS_PER_SLOT = 4
"""MCP transport sessions allowed per environment session slot: an agent's MCP session holds no
environment session (it names the trainer's), so several clients may come and go per episode."""


def _moved(path: str) -> bool:
    """Whether ``path`` was an episode-control route of older versions (its 404 points to the trainer's)."""
    parts = path.rstrip("/").split("/")
    return parts[:2] == ["", "sessions"] and (len(parts) in (2, 3) or (len(parts) == 4 and parts[3] == "reset"))


class ApiError(Exception):
    def __init__(self, code: str, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status or _STATUS.get(code, 400)


class FastJSONResponse(JSONResponse):
    """JSONResponse encoded by orjson (several times faster on tool results); same bytes otherwise."""

    def render(self, content: Any) -> bytes:
        if orjson is None:
            return super().render(content)
        return orjson.dumps(content)


def _ok(payload: Any, status: int = 200) -> JSONResponse:
    return FastJSONResponse(payload, status_code=status)


def _error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"code": code, "message": message}, status_code=status, headers=headers)


async def _json_body(request: Request, limit: int, required: bool) -> Any:
    """The request's JSON body, read up to ``limit`` bytes; ApiError for anything else."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise ApiError("payload_too_large", f"the body is {declared} bytes; the limit is {limit}")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError("payload_too_large", f"the body is over the limit of {limit} bytes")
        chunks.append(chunk)
    return _parse_body(b"".join(chunks), required)


def _parse_body(raw: bytes, required: bool) -> Any:
    """A body already read whole, parsed strictly (``pipeline.tools.jsonvalues``); ApiError if not JSON."""
    if not raw.strip():
        if required:
            raise ApiError("invalid_argument", "a JSON object body is required")
        return {}
    try:
        return parse_json(raw)
    except ValueError as exc:
        raise ApiError("invalid_argument", f"the body is not accepted: {str(exc)[:200]}") from None


_render = JSONResponse(None).render
"""Starlette's JSON encoding, without building a response: the bytes :func:`_error` sends."""
_encode = FastJSONResponse(None).render
"""The bytes :func:`_ok` sends for a tool result."""


def _error_bytes(code: str, message: str) -> bytes:
    return _render({"code": code, "message": message})


def _check(validator: Draft202012Validator, body: Any, what: str) -> dict[str, Any]:
    error = next(iter(sorted(validator.iter_errors(body), key=lambda e: list(map(str, e.absolute_path)))), None)
    if error is not None:
        where = ".".join(map(str, error.absolute_path))
        shape = f"; the body is {SHAPES[what]}" if what in SHAPES else ""
        raise ApiError("invalid_argument", f"{what}: {where + ': ' if where else ''}{error.message[:300]}{shape}")
    return dict(body)


def create_app(
    bundle_path: str | Path,
    max_sessions: int = 256,
    session_ttl: float = 900.0,
    *,
    max_body_bytes: int = DEFAULT_MAX_BODY,
    host: str | None = None,
    allowed_hosts: Sequence[str] | None = None,
    body_timeout: float = DEFAULT_BODY_TIMEOUT,
    trainer_token: str | None = None,
    trajectories: str | Path | None = None,
    worker: int | None = None,
    worker_sockets: Sequence[str] | None = None,
    max_writes: int = DEFAULT_MAX_WRITES,
    max_rows: int = DEFAULT_MAX_ROWS,
) -> FastAPI:
    """One process serving many isolated sessions of one bundle.

    ``allowed_hosts`` are the names clients may address the server by (Host and Origin
    headers, every route, MCP included): by default ``$SYNTHENV_ALLOWED_HOSTS`` or the
    loopback names; ``["*"]`` allows any. ``host`` (where the server listens) is kept for
    callers that pass it; the guard, not the address, decides.
    ``trainer_token`` guards the trainer's routes (:mod:`pipeline.server.trainer`: open, reset
    and close sessions, verify, read the final verdict); without one a random token is
    generated. Either way it is ``app.state.trainer_token``, for in-process callers (the one
    way to open a session). Nothing an agent can reach opens an episode or holds an expected
    value. ``trajectories`` appends every session's episodes to that JSONL trajectory log.
    ``worker`` and ``worker_sockets``: this app is worker ``worker`` of several
    (:mod:`pipeline.server.workers`): its session ids name it, and requests for another
    worker's sessions are forwarded to that worker's socket.
    """
    token = check_token(trainer_token) if trainer_token is not None else new_token()
    wrap, writer = None, None
    if trajectories is not None:
        from pipeline.integrations.trajectory import RecordTrajectory, TrajectoryWriter

        writer = TrajectoryWriter(trajectories)

        def wrap(env: Any) -> Any:
            return RecordTrajectory(env, writer)

    prefix = session_prefix(worker) if worker is not None else ""
    manager = SessionManager(
        bundle_path,
        max_sessions=max_sessions,
        session_ttl=session_ttl,
        wrap=wrap,
        id_prefix=prefix,
        max_writes=max_writes,
        max_rows=max_rows,
    )
    mcp_server = _mcp_server(manager, token)
    validators = {name: Draft202012Validator(schema) for name, schema in BODIES.items()}
    tools = {t.name for t in manager.template.toolset.tools}

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        reaper = asyncio.create_task(_reap_forever(manager))
        try:
            async with mcp_server.session_manager.run() if mcp_server is not None else contextlib.nullcontext():
                yield
        finally:
            reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reaper
            manager.close_all()
            if writer is not None:
                writer.close()

    app = FastAPI(
        # Only the /docs page shows this title (the OpenAPI document is served as is), as HTML.
        title=html.escape(manager.bundle.manifest.title or manager.bundle.name),
        version=manager.bundle.version,
        lifespan=lifespan,
        docs_url="/docs",
        redoc_url=None,
    )
    if worker is not None and worker_sockets:
        app.add_middleware(Sticky, worker=worker, sockets=list(worker_sockets))  # inside the guard
    app.add_middleware(
        RequestGuard,
        allowed_hosts=list(allowed_hosts) if allowed_hosts is not None else allowed_hosts_from_env(),
        max_body=max_body_bytes,
        body_timeout=body_timeout,
    )
    app.state.manager = manager
    app.state.trainer_token = token
    app.state.mcp = mcp_server
    app.state.probe_sessions = []
    document = served_openapi(manager.bundle.read_json("openapi.json"), manager.bundle.ref)
    app.openapi = lambda: document  # type: ignore[method-assign]

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(400, "invalid_argument", str(exc.errors())[:300])

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "invalid_argument")
        detail = str(exc.detail)
        if exc.status_code in (404, 405) and _moved(request.url.path):
            detail = f"{detail}: {OPENS_EPISODES}"
        return _error(exc.status_code, code, detail, headers=getattr(exc, "headers", None))

    def session(session_id: str) -> Any:
        try:
            return manager.get(session_id)
        except UnknownSession as exc:
            raise ApiError("not_found", exc.message) from None

    async def body(request: Request, name: str, required: bool = False) -> dict[str, Any]:
        return _check(validators[name], await _json_body(request, max_body_bytes, required), name)

    @app.get("/health", include_in_schema=False)
    async def health() -> JSONResponse:
        return _ok(
            {
                "status": "ok",
                "bundle": manager.bundle.ref,
                "digest": manager.bundle.digest,
                "sessions": len(manager),
                "mcp_sessions": mcp_sessions(mcp_server),
            }
        )

    @app.post("/sessions/{session_id}/step", include_in_schema=False)
    async def step(session_id: str, request: Request) -> JSONResponse:
        args = await body(request, "StepRequest", required=True)
        obs, reward, terminated, truncated, info = session(session_id).step(args["action"])
        return _ok(
            {"observation": obs, "reward": reward, "terminated": terminated, "truncated": truncated, "info": info}
        )

    async def checked(request: Request, validator: Draft202012Validator, name: str) -> dict[str, Any]:
        return _check(validator, await _json_body(request, max_body_bytes, False), name)

    add_trainer_routes(app, token, manager, session, checked, lambda message: ApiError("not_found", message))

    def tool_result(tool_name: str, sid: str | None, raw: bytes) -> Any:
        """A tool call's result; ApiError for a missing or unknown session or tool, a bad body, a tool error."""
        if not sid:
            raise ApiError("invalid_argument", f"missing {SESSION_HEADER} header: {OPENS_EPISODES}")
        env = session(sid)
        if tool_name not in tools:
            raise ApiError("not_found", f"unknown tool {tool_name[:80]!r}; GET /openapi.json lists the tools")
        if len(raw) > max_body_bytes:
            raise ApiError("payload_too_large", f"the body is over the limit of {max_body_bytes} bytes")
        arguments = _parse_body(raw, required=True)
        obs, _, _, _, _ = env.step({"tool": tool_name, "arguments": arguments})
        if obs["type"] == "tool_result":
            return obs["result"]
        error = obs["error"]
        raise ApiError(str(error["code"]), str(error["message"]))

    def tool_answer(tool_name: str, sid: str | None, raw: bytes) -> tuple[int, bytes]:
        try:
            return 200, _encode(tool_result(tool_name, sid, raw))
        except ApiError as exc:
            return exc.status, _error_bytes(exc.code, exc.message)

    async def call_tool(request: Request) -> Response:
        # ToolRoute answers every POST here first; the route stays so that other methods get the router's 405.
        tool_name = str(request.path_params["tool_name"])
        status, content = tool_answer(tool_name, request.headers.get(SESSION_HEADER), await request.body())
        return Response(content, status_code=status, media_type="application/json")

    app.router.routes.append(Route("/tools/{tool_name}", call_tool, methods=["POST"]))
    # Innermost of the app's own middleware (appended, not added): the guard and Sticky run first.
    app.user_middleware.append(Middleware(ToolRoute, call=tool_answer, session_header=SESSION_HEADER))
    if mcp_server is not None:
        from mcp.server.transport_security import TransportSecuritySettings

        mcp_app = mcp_server.streamable_http_app(
            streamable_http_path="/mcp",
            json_response=True,
            max_request_body_size=max_body_bytes,
            session_idle_timeout=max(session_ttl, 1.0),
            max_sessions=max_sessions * MCP_SESSIONS_PER_SLOT,
            host=host or "0.0.0.0",
            # The request guard checks Host and Origin for every route, /mcp included, against
            # the configured hosts; a second, fixed loopback-only check here would override them.
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        retry_after = str(manager.retry_after)
        for route in mcp_app.routes:
            route.app = RetryAfter(route.app, retry_after)  # type: ignore[attr-defined]
        app.router.routes.extend(mcp_app.routes)
    return app


def mcp_sessions(mcp_server: Any) -> int:
    """Open MCP transport sessions (the ``mcp`` library's own, one per handshake-era client)."""
    manager = getattr(mcp_server, "_session_manager", None) if mcp_server is not None else None
    return len(getattr(manager, "_server_instances", ()) or ())


class RetryAfter:
    """ASGI wrapper: a 503 (the ``mcp`` library's "too many open sessions") gains a Retry-After header."""

    def __init__(self, app: Any, seconds: str) -> None:
        self.app, self.seconds = app, seconds.encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def send_with_retry(message: Any) -> None:
            if message["type"] == "http.response.start" and message["status"] == 503:
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"retry-after"]
                message = {**message, "headers": [*headers, (b"retry-after", self.seconds)]}
            await send(message)

        await self.app(scope, receive, send_with_retry)


def _mcp_server(manager: SessionManager, token: str | None = None) -> Any:
    """The MCP server, or None (logged) where the ``mcp`` package is not installed: REST still works."""
    try:
        from pipeline.server.mcp import build_mcp_server
    except ImportError as exc:
        log.warning("MCP endpoint disabled: %s (pip install mcp)", exc)
        return None
    return build_mcp_server(manager, token)


async def _reap_forever(manager: SessionManager) -> None:
    interval = manager.reap_interval
    while True:
        await asyncio.sleep(interval)
        reaped = manager.reap()
        if reaped:
            log.info("reaped %d idle session(s)", reaped)
