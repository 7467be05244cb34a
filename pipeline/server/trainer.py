"""The trainer's side of the server: verification with expected values, behind a credential.

Everything an agent session can reach (session routes, tool routes, MCP) returns tool
results and, on the final answer, only the outcome and which checks passed: never an
expected value, and no verification before the episode ends. A trainer that needs more
(what each check expected and observed, or a score of the current state mid-episode)
calls ``POST /trainer/sessions/{id}/verify`` with ``Authorization: Bearer <token>``,
where the token is the one the server was started with (``synthenv serve
--trainer-token``, or ``SYNTHENV_TRAINER_TOKEN``). It is a credential the agent never
holds: the session id alone opens nothing here. Without a configured token the route
does not exist (404); a wrong or missing token is 401, compared in constant time.
The route is left out of the served OpenAPI document, which is the agent's map.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from jsonschema import Draft202012Validator

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


def check_token(token: str) -> str:
    """``token`` if it is long enough to be a credential; ValueError otherwise."""
    if not isinstance(token, str) or len(token.strip()) < MIN_TOKEN_CHARS:
        raise ValueError(f"the trainer token must be at least {MIN_TOKEN_CHARS} characters")
    return token.strip()


def authorised(request: Request, token: str) -> bool:
    """Whether the request carries ``Authorization: Bearer <token>`` (constant-time comparison)."""
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


def add_trainer_routes(
    app: FastAPI,
    token: str,
    environment: Callable[[str], Any],
    read_body: Callable[[Request, Draft202012Validator], Awaitable[dict[str, Any]]],
) -> None:
    """Mount the trainer's verify route; ``environment`` maps a session id to its Environment
    (raising the server's not-found error), ``read_body`` parses and checks a JSON body."""
    validator = Draft202012Validator(VERIFY_REQUEST)

    @app.post("/trainer/sessions/{session_id}/verify", include_in_schema=False)
    async def trainer_verify(session_id: str, request: Request) -> JSONResponse:
        if not authorised(request, token):
            return JSONResponse(
                {"code": "unauthorized", "message": "this route needs the trainer's token (Authorization: Bearer)"},
                status_code=401,
                headers={"WWW-Authenticate": "Bearer"},
            )
        args = await read_body(request, validator)
        env = environment(session_id)
        verdict = env.verify(args.get("answer"))
        return JSONResponse({"episode_done": env.done, **verdict})
