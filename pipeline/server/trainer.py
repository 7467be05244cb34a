"""The trainer's side of the server: episode control and full verdicts, behind a credential.

An RL policy that could open, reset, pick or close its own episode would swap the task it
was given for one whose answer it knows. So everything that decides *which* episode runs
belongs to the trainer, on routes that need ``Authorization: Bearer <token>``:

========================================  =====================================================
``POST /trainer/sessions``                open a session on a task (``{task_id?, seed?}``), 201
``POST /trainer/sessions/{id}/reset``     start the session's next episode (same body)
``DELETE /trainer/sessions/{id}``         close the session, 204
``POST /trainer/sessions/{id}/verify``    score the current state (``{answer?}``), expected values included
``GET /trainer/sessions/{id}/verdict``    the episode's final verdict (the first answer's), or null
========================================  =====================================================

The token is the one the server was started with (``synthenv serve --trainer-token``, or
``SYNTHENV_TRAINER_TOKEN``; ``serve`` generates and prints one when neither is given, and
:func:`pipeline.server.http.create_app` generates one onto ``app.state.trainer_token``). It
is a credential the agent never holds: the session id alone opens nothing here. A wrong or
missing token is 401, compared in constant time. None of these routes is in the served
OpenAPI document, which is the agent's map; the agent keeps its tool routes, the session's
``step`` route, MCP and ``/health``. :mod:`pipeline.server.client` is a typed client for them.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from jsonschema import Draft202012Validator
from starlette.routing import Route

from pipeline.server.sessions import MAX_SEED, CapacityError, SessionManager

MIN_TOKEN_CHARS = 16
TOKEN_ENV = "SYNTHENV_TRAINER_TOKEN"
_SCALAR = [{"type": "string", "maxLength": 100_000}, {"type": "number"}, {"type": "null"}]
VERIFY_REQUEST: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "answer": {
            "anyOf": [*_SCALAR, {"type": "array", "maxItems": 1000, "items": {"anyOf": _SCALAR}}],
            "description": "the answer to score with the current state (null if the task has none)",
        }
    },
}
EPISODE_REQUEST: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "task_id": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200,
            "description": "task to run (default: drawn with the seed)",
        },
        "seed": {
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_SEED,
            "description": "seed of the task draw (default: drawn by the server, echoed in info)",
        },
    },
}
OPENS_EPISODES = (
    "the trainer opens, resets and closes episodes (POST /trainer/sessions with its token) and gives "
    "the agent the session id, sent as the X-Session-Id header"
)
"""What an agent-facing surface answers when asked for episode control."""


def check_token(token: str) -> str:
    """``token`` if it is long enough to be a credential; ValueError otherwise."""
    if not isinstance(token, str) or len(token.strip()) < MIN_TOKEN_CHARS:
        raise ValueError(f"the trainer token must be at least {MIN_TOKEN_CHARS} characters")
    return token.strip()


def new_token() -> str:
    """A fresh random trainer token (for a server started without one)."""
    return secrets.token_urlsafe(32)


def bearer_ok(headers: Mapping[str, str] | None, token: str | None) -> bool:
    """Whether ``headers`` carry ``Authorization: Bearer <token>`` (constant-time comparison)."""
    if token is None or headers is None:
        return False
    scheme, _, given = str(headers.get("authorization", "")).partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


def authorised(request: Request, token: str) -> bool:
    """Whether the request carries the trainer's bearer token."""
    return bearer_ok(request.headers, token)


def _unauthorised() -> JSONResponse:
    return JSONResponse(
        {"code": "unauthorized", "message": "this route needs the trainer's token (Authorization: Bearer)"},
        status_code=401,
        headers={"WWW-Authenticate": "Bearer"},
    )


def add_trainer_routes(
    app: FastAPI,
    token: str,
    manager: SessionManager,
    environment: Callable[[str], Any],
    read_body: Callable[[Request, Draft202012Validator, str], Awaitable[dict[str, Any]]],
    not_found: Callable[[str], Exception],
) -> None:
    """Mount the trainer's routes. ``environment`` maps a session id to its Environment (raising
    the server's not-found error), ``read_body`` parses and checks a JSON body against a schema
    (the name is for messages), ``not_found`` makes the server's 404 error from a message."""
    verify_body = Draft202012Validator(VERIFY_REQUEST)
    episode_body = Draft202012Validator(EPISODE_REQUEST)

    def guard(handler: Callable[[Request, str], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
        async def checked(request: Request) -> Response:
            if not authorised(request, token):
                return _unauthorised()
            return await handler(request, str(request.path_params.get("session_id", "")))

        return checked

    async def open_session(request: Request, _: str) -> Response:
        args = await read_body(request, episode_body, "SessionCreate")
        try:
            sid, obs, info = manager.create(task_id=args.get("task_id"), seed=args.get("seed"))
        except CapacityError as exc:
            message = {"code": "unavailable", "message": str(exc)}
            return JSONResponse(message, status_code=503, headers={"Retry-After": str(manager.retry_after)})
        except ValueError as exc:
            raise not_found(str(exc)) from None
        return JSONResponse({"session_id": sid, "observation": obs, "info": info}, status_code=201)

    async def reset(request: Request, session_id: str) -> Response:
        args = await read_body(request, episode_body, "SessionReset")
        environment(session_id)
        try:
            obs, info = manager.reset(session_id, task_id=args.get("task_id"), seed=args.get("seed"))
        except ValueError as exc:
            raise not_found(str(exc)) from None
        return JSONResponse({"observation": obs, "info": info})

    async def close(request: Request, session_id: str) -> Response:
        if not manager.close(session_id):
            raise not_found(f"no open session {session_id[:80]!r} (already closed, reaped or never made)")
        return Response(status_code=204)

    async def verify(request: Request, session_id: str) -> Response:
        args = await read_body(request, verify_body, "VerifyRequest")
        env = environment(session_id)
        return JSONResponse({"episode_done": env.done, **env.verify(args.get("answer"))})

    async def verdict(request: Request, session_id: str) -> Response:
        env = environment(session_id)
        final = env.verdict
        return JSONResponse(
            {
                "session_id": session_id,
                "episode_done": env.done,
                "assigned_task_id": env.assigned_task_id,
                "verdict": final.full() if final is not None else None,
            }
        )

    # Plain Starlette routes (as the tool route): never part of the generated schema either.
    app.router.routes.extend(
        [
            Route("/trainer/sessions", guard(open_session), methods=["POST"]),
            Route("/trainer/sessions/{session_id}/reset", guard(reset), methods=["POST"]),
            Route("/trainer/sessions/{session_id}", guard(close), methods=["DELETE"]),
            Route("/trainer/sessions/{session_id}/verify", guard(verify), methods=["POST"]),
            Route("/trainer/sessions/{session_id}/verdict", guard(verdict), methods=["GET"]),
        ]
    )
