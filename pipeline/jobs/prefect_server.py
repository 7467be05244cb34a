"""A warm local Prefect server that every ``synthenv`` run uses while it is up.

Without ``PREFECT_API_URL`` each process that runs a flow starts Prefect's temporary
server (13-18 s on a 2-core machine) and stops it on exit. ``start`` launches
``prefect server start`` once, in the background, on a loopback port and records it in
``$PREFECT_HOME/synthenv-server.json``; while it answers, :func:`use_running_server`
points the process at it (``PREFECT_API_URL``), so a run pays only its own work. The
Prefect UI is at the recorded address. ``stop`` ends it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PORT = 4200
STATE_FILE = "synthenv-server.json"


@dataclass(frozen=True)
class ServerInfo:
    pid: int
    url: str
    """The UI address, e.g. ``http://127.0.0.1:4200``; the API is ``{url}/api``."""
    log: str

    @property
    def api_url(self) -> str:
        return f"{self.url}/api"


_STARTED: dict[int, subprocess.Popen[bytes]] = {}
"""Servers this process started, by pid (a detached server outlives a command-line run; within one
process, as in tests, its handle must not be collected while it runs)."""


def prefect_home() -> Path:
    return Path(os.environ.get("PREFECT_HOME") or "~/.prefect").expanduser()


def state_path() -> Path:
    return prefect_home() / STATE_FILE


def healthy(url: str, timeout: float = 1.0) -> bool:
    """Whether a Prefect server answers ``/api/health`` at ``url``."""
    try:
        with urllib.request.urlopen(f"{url}/api/health", timeout=timeout) as resp:
            return resp.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists (one of another user counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def recorded() -> ServerInfo | None:
    """The server ``start`` recorded, if its process is still alive (stale records are removed)."""
    path = state_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        info = ServerInfo(pid=int(data["pid"]), url=str(data["url"]), log=str(data.get("log", "")))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not alive(info.pid):
        path.unlink(missing_ok=True)
        return None
    return info


def running(timeout: float = 1.0) -> ServerInfo | None:
    """The recorded server if it also answers its health check."""
    info = recorded()
    return info if info is not None and healthy(info.url, timeout) else None


def start(host: str = "127.0.0.1", port: int = DEFAULT_PORT, wait: float = 180.0) -> tuple[ServerInfo, bool]:
    """Start the server in the background (or find it running); returns it and whether it was started now.

    Raises RuntimeError when it does not answer within ``wait`` seconds (it is stopped again)."""
    current = running()
    if current is not None:
        return current, False
    url = f"http://{host}:{port}"
    if healthy(url):
        raise RuntimeError(f"something else already answers at {url}; choose another --port")
    home = prefect_home()
    home.mkdir(parents=True, exist_ok=True)
    log = home / "synthenv-server.log"
    env = {
        **os.environ,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_LOGGING_LEVEL": os.environ.get("PREFECT_SERVER_LOGGING_LEVEL", "WARNING"),
    }
    env.pop("PREFECT_API_URL", None)
    command = [sys.executable, "-m", "prefect", "server", "start", "--host", host, "--port", str(port)]
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, start_new_session=True
        )
    _STARTED[proc.pid] = proc  # held, not dropped while running, so ``stop`` can reap it by its handle
    info = ServerInfo(pid=proc.pid, url=url, log=str(log))
    state_path().write_text(json.dumps({"pid": info.pid, "url": url, "log": str(log)}), encoding="utf-8")
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            state_path().unlink(missing_ok=True)
            raise RuntimeError(f"prefect server exited with {proc.returncode}; see {log}")
        if healthy(url):
            return info, True
        time.sleep(0.5)
    stop()
    raise RuntimeError(f"prefect server did not answer at {url} within {wait:g} s; see {log}")


def stop(wait: float = 30.0) -> ServerInfo | None:
    """Stop the recorded server (its whole process group); returns what was stopped, or None."""
    info = recorded()
    if info is None:
        return None
    terminate(info.pid, _STARTED.pop(info.pid, None), wait)
    state_path().unlink(missing_ok=True)
    return info


def terminate(pid: int, started: subprocess.Popen[bytes] | None, wait: float) -> None:
    """End the process group ``pid`` leads: SIGTERM, then SIGKILL if it is still there after ``wait``
    seconds. ``started``: its handle when this process started it, so it learns the exit status and
    leaves no zombie. The warm server and the warm flow runner both end this way."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait
    while alive(pid) and time.monotonic() < deadline:
        _reap(pid)
        time.sleep(0.2)
    if alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
    if started is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            started.wait(timeout=wait)
        _reap(pid)


def _reap(pid: int) -> None:
    """Collect the exit status when the server is this process's child (started here)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def use_running_server() -> ServerInfo | None:
    """Point this process at the warm server (``PREFECT_API_URL``) when one is up and none is set."""
    if os.environ.get("PREFECT_API_URL"):
        return None
    info = running(timeout=0.5)
    if info is not None:
        os.environ["PREFECT_API_URL"] = info.api_url
    return info
