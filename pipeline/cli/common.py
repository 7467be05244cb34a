"""What every command shares: the two consoles, JSON output, failing with an exit code, Prefect defaults.

``--json`` output goes to stdout alone; progress, logs and errors go to stderr, except
that under ``--json`` an error is one JSON object on stdout,
``{"error": {"code": NAME, "message": TEXT}}``, so a caller reading stdout always gets JSON.
Every command exits with a code of ``EXIT_CODES`` (the table in README, "Exit codes").
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, cast

if TYPE_CHECKING:
    from rich.console import Console

    from pipeline.bundle.manifest import Manifest


class _LazyConsole:
    """A rich ``Console`` made on first use: importing rich's console costs about a tenth of a
    second, which ``synthenv domains --json`` (and any command that prints no rich text) need
    not pay. Attribute access is passed to the console; :attr:`console` is the console itself
    (for rich APIs that take one, e.g. ``Progress(console=...)``)."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    @property
    def console(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.console, name)


_err = _LazyConsole(stderr=True, soft_wrap=True)
_out = _LazyConsole(soft_wrap=True)
err = cast("Console", _err)
out = cast("Console", _out)


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def plain(value: Any) -> str:
    """Text from a bundle, a registry or a user, made safe to print through rich.

    Rich markup (``[bold]``, ``[link=…]``) is escaped so it prints as written, and control
    characters (terminal escape sequences, carriage returns, bidirectional overrides) are
    shown as ``\\xNN`` instead of acting on the terminal.
    """

    from rich.markup import escape

    def visible(match: re.Match[str]) -> str:
        code = ord(match.group())
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return escape(_CONTROL.sub(visible, str(value)))


def emit_json(value: Any) -> None:
    """One JSON document on stdout (sorted keys; anything unusual as its string)."""
    sys.stdout.write(json.dumps(value, sort_keys=True, default=str) + "\n")


MIN_ROWS, MAX_ROWS = 10, 1_000_000
"""``--rows`` bounds: fewer rows cannot ground the task families, more do not fit a 2-core, few-GB machine."""

EXIT_CODES: dict[str, int] = {
    "ok": 0,
    "failed": 1,  # the work ran and found a failure: a task that does not prove, an environment that failed
    "usage": 2,  # a bad option, argument or input file (also click's own usage errors)
    "not_found": 3,  # no such bundle, file, registry entry or version
    "refused": 4,  # a bundle that is invalid, tampered with, or of a kind this command does not take
    "unavailable": 5,  # an optional extra, engine or server this needs is missing
    "internal": 70,  # a bug: an unexpected exception (one line; SYNTHENV_TRACEBACK=1 shows it)
}
_NAMES = {v: k for k, v in EXIT_CODES.items()}


def json_requested() -> bool:
    """Whether the running command was given ``--json`` (its parameter ``as_json``)."""
    # typer runs its own copy of click; its current context is where the parsed options are.
    from typer._click.globals import get_current_context

    ctx = get_current_context(silent=True)
    if ctx is not None and ctx.params.get("as_json"):
        return True
    return "--json" in sys.argv[1:]


def report_error(message: str, code: str) -> None:
    """The error line on stderr, or under ``--json`` the error object on stdout."""
    if json_requested():
        emit_json({"error": {"code": code, "message": str(message)}})
    else:
        err.print(f"[bold red]error:[/] {plain(message)}", markup=True, highlight=False)


def fail(message: str, code: int | str = "usage") -> NoReturn:
    """Report ``message`` (see :func:`report_error`) and exit with ``code`` (a name or number of ``EXIT_CODES``)."""
    name = code if isinstance(code, str) else _NAMES.get(code, "failed")
    if name not in EXIT_CODES:
        raise ValueError(f"unknown exit code name {name!r}; one of {sorted(EXIT_CODES)}")
    report_error(message, name)
    import typer

    raise typer.Exit(EXIT_CODES[name])


def require_extra(extra: str, *modules: str) -> None:
    """Exit ``unavailable`` naming ``extra`` when one of ``modules`` is not installed, before any work
    starts (found without importing it: litellm alone takes seconds to import)."""
    from importlib.util import find_spec

    for name in modules:
        try:
            found = find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            fail(f"this needs the {extra} extra ({name} is missing): pip install 'synthenv[{extra}]'", "unavailable")


def require_port(host: str, port: int) -> None:
    """Exit ``unavailable`` naming the port when ``host:port`` cannot be bound, before the server
    announces itself (the server binds the same way, with ``SO_REUSEADDR``, a moment later)."""
    import socket

    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        fail(f"cannot listen on {host}:{port}: {exc}", "unavailable")
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}", "unavailable")


def open_bundle(path: Path, kinds: tuple[str, ...] = ("tool_use", "procedural"), command: str = "") -> Any:
    """The verified bundle at ``path``, or exit: ``not_found`` when nothing is there, ``refused`` when it
    is not a valid bundle or is of a kind ``command`` does not take (naming what to use instead)."""
    from pipeline.bundle.format import BundleError, load_bundle

    if not path.exists():
        fail(f"{path}: no such bundle directory", "not_found")
    try:
        bundle = load_bundle(path)
    except BundleError as exc:
        fail(str(exc), "refused")
    kind = bundle_kind(bundle.manifest)
    if kind not in kinds:
        hint = KIND_HINTS.get((command, kind), "")
        fail(f"{command or 'this command'} does not take a {kind} bundle ({bundle.ref}){hint}", "refused")
    return bundle


def bundle_kind(manifest: Manifest) -> str:
    return manifest.kind


KIND_HINTS = {
    ("serve", "procedural"): ": procedural items are single-turn; load them with ProceduralEnvironment, "
    "the gymnasium wrapper or a trainer integration",
    ("export", "procedural"): ": its items are tasks.jsonl; `synthenv procedural --format parquet` writes them as rows",
}


def quiet_prefect() -> None:
    """Offline defaults: no telemetry, and Prefect's chatter below warnings unless asked; the warm
    server of ``synthenv prefect start`` when one is up (its UI address printed), else a hint."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    # The temporary local server needs 7-20 s on a busy 2-core machine; Prefect waits only 20.
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")
    from pipeline.jobs.prefect_server import use_running_server

    warm = use_running_server()
    if warm is not None:
        err.print(f"[dim]Prefect server {warm.url} (UI); `synthenv prefect stop` ends it[/]")
    elif os.environ.get("PREFECT_API_URL"):
        err.print(f"[dim]Prefect API {plain(os.environ['PREFECT_API_URL'])}[/]")
    else:
        err.print("[dim]starting Prefect's temporary server (10-20 s); `synthenv prefect start` keeps one warm[/]")
        # The temporary server is a subprocess writing to this terminal; when the command ends it
        # is terminated mid-flush and logs CancelledError tracebacks (ERROR) that say nothing about
        # the run. Its own log is nobody's to read, so only CRITICAL gets through.
        os.environ.setdefault("PREFECT_SERVER_LOGGING_LEVEL", TEMPORARY_SERVER_LOG_LEVEL)
    os.environ.setdefault("PREFECT_SERVER_LOGGING_LEVEL", "WARNING")


TEMPORARY_SERVER_LOG_LEVEL = "CRITICAL"
"""Log level of Prefect's temporary server: its shutdown tracebacks are noise (issue 25)."""


@contextlib.contextmanager
def progress_display(enabled: bool = True) -> Iterator[None]:
    """A rich progress display on stderr (never stdout, so ``--json`` output stays clean) fed by
    :func:`pipeline.progress.tick`: one bar per long loop (populate per table, batch per environment)."""
    from pipeline.progress import listen

    if not enabled:
        yield
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bars: dict[str, Any] = {}
    with Progress(
        TextColumn("  {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[item]}"),
        console=_err.console,
        transient=True,
    ) as display:

        def on_tick(what: str, done: int, total: int, item: str) -> None:
            if what not in bars:
                bars[what] = display.add_task(what, total=total, item="")
            display.update(bars[what], completed=done, total=total, item=plain(item))

        previous = listen(on_tick)
        try:
            yield
        finally:
            listen(previous)
