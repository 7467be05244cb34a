"""``synthenv serve BUNDLE --protocol openenv``: the bundle behind OpenEnv's own server."""

from __future__ import annotations

from pathlib import Path

import typer

from pipeline.cli.common import err


def serve_openenv(
    bundle: Path,
    host: str,
    port: int,
    max_sessions: int,
    session_ttl: float,
    log_level: str,
    trajectories: Path | None,
    header_timeout: float = 10.0,
) -> None:
    """Run OpenEnv's FastAPI app (HTTP, WebSocket /ws, MCP /mcp) for BUNDLE under uvicorn, with the
    same per-request header deadline and connection cap as synthenv's own server."""
    from pipeline.bundle.format import BundleError

    try:
        from pipeline.integrations.openenv import create_openenv_app
        from pipeline.server.runner import make_server
    except ImportError as exc:
        err.print(
            f"[bold red]error:[/] the OpenEnv protocol needs openenv-core ({exc.name} is missing): "
            "pip install 'synthenv[openenv]'"
        )
        raise typer.Exit(2) from None
    try:
        app = create_openenv_app(bundle, max_sessions=max_sessions, session_ttl=session_ttl, trajectories=trajectories)
    except BundleError as exc:
        err.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(2) from None
    b = app.state.bundle
    err.print(
        f"serving {b.ref} ({b.digest[:19]}…) as an OpenEnv environment on http://{host}:{port} — "
        f"/reset /step /state /schema /metadata /health, WebSocket /ws, MCP /mcp; up to {max_sessions} sessions"
        + (f"; trajectories -> {trajectories}" if trajectories else "")
    )
    make_server(app, host, port, header_timeout=header_timeout, log_level=log_level).run()
