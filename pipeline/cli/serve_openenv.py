"""``synthenv serve BUNDLE --protocol openenv``: the bundle behind OpenEnv's own server."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import typer

from pipeline.cli.common import err, fail


def serve_openenv(
    bundle: Path,
    host: str,
    port: int,
    max_sessions: int,
    session_ttl: float,
    log_level: str,
    trajectories: Path | None,
    header_timeout: float = 10.0,
    trainer_token: str | None = None,
    allowed_hosts: list[str] | None = None,
    max_body: int = 1 << 20,
    max_writes: int | None = None,
    max_rows: int | None = None,
    max_sessions_per_client: int | None = None,
    forwarded_allow_ips: list[str] | None = None,
) -> None:
    """Run OpenEnv's FastAPI app (HTTP, WebSocket /ws, MCP /mcp) for BUNDLE under uvicorn, with the
    same per-request header deadline and connection cap as synthenv's own server.

    Starting an episode is the trainer's: ``reset`` needs the trainer token. Without one given
    (``--trainer-token`` or ``SYNTHENV_TRAINER_TOKEN``) a fresh one is generated and printed, so an
    agent that reaches the port can never reset or pick its own task.

    ``forwarded_allow_ips``: the proxies whose ``X-Forwarded-For`` names the client, the address each
    client's share of sessions is counted by (None: uvicorn's default, see :mod:`pipeline.server.proxies`).
    """
    from pipeline.bundle.format import BundleError

    try:
        from pipeline.integrations.openenv import create_openenv_app
        from pipeline.server.runner import make_server
    except ImportError as exc:
        fail(
            f"the OpenEnv protocol needs the openenv extra ({exc.name} is missing): pip install 'synthenv[openenv]'",
            "unavailable",
        )
    from pipeline.integrations.openenv_guard import DEFAULT_MAX_SESSIONS_PER_CLIENT
    from pipeline.server.trainer import TOKEN_ENV

    token = trainer_token or os.environ.get(TOKEN_ENV)
    generated = not token
    token = token or secrets.token_urlsafe(24)
    try:
        app = create_openenv_app(
            bundle,
            max_sessions=max_sessions,
            session_ttl=session_ttl,
            trajectories=trajectories,
            trainer_token=token,
            allowed_hosts=allowed_hosts,
            max_body_bytes=max_body,
            body_timeout=header_timeout,
            **({"max_writes": max_writes} if max_writes is not None else {}),
            **({"max_rows": max_rows} if max_rows is not None else {}),
            **({"max_sessions_per_client": max_sessions_per_client} if max_sessions_per_client is not None else {}),
        )
    except (BundleError, ValueError) as exc:
        err.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(2) from None
    b = app.state.bundle
    err.print(
        f"serving {b.ref} ({b.digest[:19]}…) as an OpenEnv environment on http://{host}:{port} — "
        "episodes over WebSocket /ws (reset needs the trainer token), MCP tools at /mcp, "
        f"/health /schema /metadata /state; up to {max_sessions} sessions, "
        f"{min(max_sessions, max_sessions_per_client or DEFAULT_MAX_SESSIONS_PER_CLIENT)} per client address"
        + (f"; trajectories -> {trajectories}" if trajectories else "")
    )
    if generated:
        err.print(f"trainer token (reset(..., trainer_token=...)): {token}", markup=False)
    make_server(
        app, host, port, header_timeout=header_timeout, log_level=log_level, forwarded_allow_ips=forwarded_allow_ips
    ).run()
