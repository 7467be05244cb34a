"""``synthenv prefect start|status|stop``: a warm local Prefect server every run uses while it is up."""

from __future__ import annotations

import typer

from pipeline.cli.common import emit_json, err, fail, out

prefect_app = typer.Typer(
    no_args_is_help=True,
    help="A local Prefect server kept warm: runs use it (and show in its UI) instead of a temporary one each.",
)


@prefect_app.command()
def start(
    port: int = typer.Option(4200, min=1, max=65535, help="loopback port of the server and its UI"),
    wait: float = typer.Option(180.0, min=1.0, help="seconds to wait for it to answer"),
    runner: bool = typer.Option(
        True, "--runner/--no-runner", help="also keep a warm flow runner, so a run does not import Prefect first"
    ),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Start the server in the background (a no-op when it is running) and print its UI address.

    With it, a flow runner that has imported Prefect and the flows: `synthenv generate` hands it the
    run while it runs the same code, instead of paying Prefect's import (about 2 s of CPU) first."""
    from pipeline.jobs import prefect_runner
    from pipeline.jobs.prefect_server import start as start_server

    if not as_json:
        err.print(f"[dim]starting prefect server on 127.0.0.1:{port} (10-20 s the first time)…[/]")
    try:
        info, started = start_server(port=port, wait=wait)
    except RuntimeError as exc:
        fail(str(exc), "unavailable")
    warm: prefect_runner.RunnerInfo | None = None
    problem = ""
    if runner:
        try:
            warm = prefect_runner.start(info.api_url, wait=wait)
        except RuntimeError as exc:  # the server still serves; runs import Prefect themselves
            problem = str(exc)
    summary = {"running": True, "started": started, "url": info.url, "api_url": info.api_url, "pid": info.pid}
    if as_json:
        extra = {"runner_error": problem} if problem else {}
        emit_json({**summary, "runner_pid": warm.pid if warm else None, **extra})
        return
    out.print(f"Prefect UI {info.url} (API {info.api_url}, pid {info.pid}){'' if started else ', already running'}")
    if warm is not None:
        out.print(f"flow runner pid {warm.pid}: runs of this code go to it")
    elif problem:
        err.print(f"[yellow]no warm flow runner[/]: {problem}")
    out.print("synthenv runs use it while it is up; stop it with `synthenv prefect stop`")


@prefect_app.command()
def status(as_json: bool = typer.Option(False, "--json")) -> None:
    """Whether the warm server is up, and its UI address. Exit 3 when none is running."""
    from pipeline.jobs import prefect_runner
    from pipeline.jobs.prefect_server import running

    info = running()
    if info is None:
        fail("no synthenv Prefect server is running (start one with `synthenv prefect start`)", "not_found")
    warm = prefect_runner.recorded()
    current = warm is not None and warm.fingerprint == prefect_runner.fingerprint()
    if as_json:
        emit_json(
            {
                "running": True,
                "url": info.url,
                "api_url": info.api_url,
                "pid": info.pid,
                "log": info.log,
                "runner_pid": warm.pid if warm else None,
                "runner_current": current,
            }
        )
        return
    out.print(f"Prefect UI {info.url} (API {info.api_url}, pid {info.pid}, log {info.log})")
    if warm is not None:
        state = "runs this code" if current else "older code or other settings; `synthenv prefect start` replaces it"
        out.print(f"flow runner pid {warm.pid}: {state}")


@prefect_app.command()
def stop(as_json: bool = typer.Option(False, "--json")) -> None:
    """Stop the warm server (a no-op when none is running)."""
    from pipeline.jobs import prefect_runner
    from pipeline.jobs.prefect_server import stop as stop_server

    prefect_runner.stop()
    info = stop_server()
    if as_json:
        emit_json({"stopped": info is not None, "pid": info.pid if info else None})
        return
    out.print(f"stopped the Prefect server at {info.url} (pid {info.pid})" if info else "no Prefect server was running")


def register(app: typer.Typer) -> None:
    app.add_typer(prefect_app, name="prefect")
