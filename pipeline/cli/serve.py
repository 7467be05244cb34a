"""``synthenv serve``: one process serving many isolated sessions of a bundle over HTTP and MCP."""

from __future__ import annotations

from pathlib import Path

import typer

from pipeline.cli.common import err, fail, open_bundle, require_port
from pipeline.server.limits import DEFAULT_MAX_ROWS, DEFAULT_MAX_WRITES
from pipeline.server.proxies import FORWARDED_ALLOW_IPS_ENV, UVICORN_DEFAULT, trusted_proxies


def serve(
    bundle: Path = typer.Argument(..., help="bundle directory"),
    host: str = typer.Option("127.0.0.1", help="address to listen on (0.0.0.0 inside a container)"),
    port: int = typer.Option(8000, min=0, max=65535, help="TCP port"),
    max_sessions: int = typer.Option(256, "--max-sessions", min=1, help="open sessions at most; more get 503"),
    max_sessions_per_client: int | None = typer.Option(
        None,
        "--max-sessions-per-client",
        min=1,
        help="--protocol openenv: live WebSocket sessions one client address may hold, more get 503 "
        "(default 64; synthenv's own sessions are opened by the trainer only)",
    ),
    session_ttl: float = typer.Option(
        900.0, "--session-ttl", min=0.001, help="seconds a session may idle before it is closed"
    ),
    max_writes: int = typer.Option(
        DEFAULT_MAX_WRITES, "--max-writes", min=0, help="write calls one episode may make (then a limit_exceeded error)"
    ),
    max_rows: int = typer.Option(
        DEFAULT_MAX_ROWS, "--max-rows", min=0, help="rows one episode may create (then a limit_exceeded error)"
    ),
    max_body: int = typer.Option(1 << 20, "--max-body", min=1024, help="largest request body in bytes (413 above)"),
    allowed_host: list[str] | None = typer.Option(
        None,
        "--allowed-host",
        help="a name clients may reach the server by (Host/Origin headers; repeatable; '*' for any, "
        "'*.example.org' for a domain); default $SYNTHENV_ALLOWED_HOSTS or localhost, 127.0.0.1, ::1",
    ),
    timeout: float = typer.Option(
        10.0, "--timeout", min=0.1, help="seconds a client may take to send a request's headers, then its body (408)"
    ),
    log_level: str = typer.Option("warning", "--log-level", help="uvicorn log level"),
    trainer_token: str | None = typer.Option(
        None,
        "--trainer-token",
        envvar="SYNTHENV_TRAINER_TOKEN",
        help="the token of the trainer's routes (open, reset and close sessions, verify, read verdicts), "
        "at least 16 characters; prefer the environment variable (arguments show in process lists); "
        "without one a random token is generated and printed once on stderr",
    ),
    protocol: str = typer.Option(
        "synthenv", "--protocol", help="synthenv (sessions, tool routes, MCP) or openenv (OpenEnv's server)"
    ),
    trajectories: Path | None = typer.Option(
        None, "--trajectories", help="append every session's episodes to this JSONL trajectory log"
    ),
    workers: int = typer.Option(
        1, "--workers", min=1, help="server processes on the port; each session stays in the one that made it"
    ),
    forwarded_allow_ips: str | None = typer.Option(
        None,
        "--forwarded-allow-ips",
        envvar=FORWARDED_ALLOW_IPS_ENV,
        help="reverse proxies whose X-Forwarded-For names the client (the address --max-sessions-per-client "
        "counts): comma-separated IP addresses and networks (10.0.0.0/8), '*' for any peer, '' for none; "
        f"default ${FORWARDED_ALLOW_IPS_ENV}, else uvicorn's {UVICORN_DEFAULT}",
    ),
) -> None:
    """Serve BUNDLE: one POST /tools/NAME per tool, /sessions/ID/step, /health, /openapi.json, MCP at /mcp,
    and the trainer's /trainer/sessions routes (behind the trainer token)."""
    from pipeline.bundle.format import BundleError

    if protocol not in ("synthenv", "openenv"):
        fail(f"--protocol must be synthenv or openenv, got {protocol!r}", "usage")
    if protocol == "openenv" and workers > 1:
        # OpenEnv's server keeps every WebSocket episode in its one process; saying so beats serving
        # one process while the user believes there are several.
        fail("--workers takes --protocol synthenv only; the OpenEnv server runs one process", "usage")
    if protocol == "synthenv" and max_sessions_per_client is not None:
        # Every synthenv session is the trainer's (token needed): there is no client's share to cap.
        fail("--max-sessions-per-client takes --protocol openenv only; synthenv's sessions are the trainer's", "usage")
    try:
        trusted = None if forwarded_allow_ips is None else trusted_proxies(forwarded_allow_ips)
    except ValueError as exc:
        fail(f"--forwarded-allow-ips (or ${FORWARDED_ALLOW_IPS_ENV}): {exc}", "usage")
    open_bundle(bundle, kinds=("tool_use",), command="serve")
    require_port(host, port)
    if protocol == "openenv":
        from pipeline.cli.serve_openenv import serve_openenv

        serve_openenv(
            bundle,
            host,
            port,
            max_sessions,
            session_ttl,
            log_level,
            trajectories,
            timeout,
            trainer_token,
            allowed_hosts=allowed_host or None,
            max_body=max_body,
            max_writes=max_writes,
            max_rows=max_rows,
            max_sessions_per_client=max_sessions_per_client,
            forwarded_allow_ips=trusted,
        )
        return

    try:
        from pipeline.server.http import create_app
        from pipeline.server.runner import make_server
    except ImportError as exc:
        fail(f"serving needs the web stack ({exc.name} is missing): pip install 'synthenv[serve]'", "unavailable")
    from pipeline.server.trainer import check_token, new_token

    generated = trainer_token is None
    try:
        trainer_token = new_token() if trainer_token is None else check_token(trainer_token)
    except ValueError as exc:
        fail(str(exc), "usage")
    if generated:
        # Printed once, as Jupyter does, so local use works; a trainer elsewhere passes its own.
        err.print(f"trainer token (Authorization: Bearer): {trainer_token}", markup=False)
    if workers > 1:
        if trajectories is not None:
            fail("--trajectories needs a single worker (one process appends to the log)")
        from pipeline.server.runner import serve_workers_cli

        err.print(f"serving {bundle} on http://{host}:{port} with {workers} worker processes", markup=False)
        serve_workers_cli(
            bundle,
            host,
            port,
            workers,
            timeout,
            log_level,
            forwarded_allow_ips=trusted,
            max_sessions=max_sessions,
            session_ttl=session_ttl,
            max_body_bytes=max_body,
            host=host,
            allowed_hosts=allowed_host or None,
            body_timeout=timeout,
            trainer_token=trainer_token,
            max_writes=max_writes,
            max_rows=max_rows,
        )
        return
    try:
        app = create_app(
            bundle,
            max_sessions=max_sessions,
            session_ttl=session_ttl,
            max_body_bytes=max_body,
            host=host,
            allowed_hosts=allowed_host or None,
            body_timeout=timeout,
            trainer_token=trainer_token,
            trajectories=trajectories,
            max_writes=max_writes,
            max_rows=max_rows,
        )
    except BundleError as exc:
        fail(str(exc), "refused")
    except ValueError as exc:
        fail(str(exc), "usage")
    manager = app.state.manager
    err.print(
        f"serving {manager.bundle.ref} ({manager.bundle.digest[:19]}…) on http://{host}:{port} "
        f"— {len(manager.template.toolset.tools)} tools, {len(manager.template.tasks)} tasks, "
        f"up to {max_sessions} sessions, idle TTL {session_ttl:g} s; MCP at /mcp"
        + "; trainer routes at /trainer/sessions",
        markup=False,
    )
    make_server(app, host, port, header_timeout=timeout, log_level=log_level, forwarded_allow_ips=trusted).run()


def register(app: typer.Typer) -> None:
    app.command(name="serve")(serve)
