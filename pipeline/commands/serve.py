"""``synthenv serve``: one process serving many isolated sessions of a bundle over HTTP and MCP."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

err = Console(stderr=True, soft_wrap=True)


def serve(
    bundle: Path = typer.Argument(..., help="bundle directory"),
    host: str = typer.Option("127.0.0.1", help="address to listen on (0.0.0.0 inside a container)"),
    port: int = typer.Option(8000, min=0, max=65535, help="TCP port"),
    max_sessions: int = typer.Option(256, "--max-sessions", min=1, help="open sessions at most; more get 503"),
    session_ttl: float = typer.Option(900.0, "--session-ttl", min=0.001, help="seconds a session may idle before it is closed"),
    max_body: int = typer.Option(1 << 20, "--max-body", min=1024, help="largest request body in bytes (413 above)"),
    log_level: str = typer.Option("warning", "--log-level", help="uvicorn log level"),
) -> None:
    """Serve BUNDLE: /sessions, one POST /tools/NAME per tool, /health, /openapi.json and MCP at /mcp."""
    from pipeline.bundle import BundleError

    try:
        import uvicorn

        from pipeline.server.http import create_app
    except ImportError as exc:
        err.print(f"[bold red]error:[/] serving needs the web stack ({exc.name} is missing): "
                  "pip install 'synthenv[serve]'")
        raise typer.Exit(2) from None
    try:
        app = create_app(bundle, max_sessions=max_sessions, session_ttl=session_ttl, max_body_bytes=max_body, host=host)
    except BundleError as exc:
        err.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(2) from None
    manager = app.state.manager
    err.print(f"serving {manager.bundle.ref} ({manager.bundle.digest[:19]}…) on http://{host}:{port} "
              f"— {len(manager.template.toolset.tools)} tools, {len(manager.template.tasks)} tasks, "
              f"up to {max_sessions} sessions, idle TTL {session_ttl:g} s; MCP at /mcp")
    uvicorn.run(app, host=host, port=port, log_level=log_level, access_log=False)


def register(app: typer.Typer) -> None:
    app.command(name="serve")(serve)
