"""A warm flow runner beside the warm Prefect server: a run costs its own work, not Prefect's import.

``import prefect`` alone takes about 2 s of CPU, so with the server of ``synthenv prefect start``
warm a command-line run still paid that (and the flows' import) before any work, where
``--no-prefect`` pays nothing. ``synthenv prefect start`` therefore also starts ``python -m
flows.runner``: a process that imports Prefect and the flows once, points them at the warm
server, and takes ``generate_environment`` runs over loopback HTTP. ``synthenv generate`` hands
it the run (the same :class:`~pipeline.jobs.steps.Inputs`) without importing Prefect, prints the
progress it streams back, and gets the same summary; the run is an ordinary flow run in the
server's UI.

The runner is used only when it would build what this process would: same interpreter, same
source files (paths, sizes, modification times of ``pipeline/``, ``flows/``, ``generators/`` and
``templates/``) and same ``SYNTHENV_*`` settings (:func:`fingerprint`). Otherwise, or when it
does not answer, the command runs the flow itself as before. Runs are taken one at a time;
a second command waits its turn. Nothing here imports Prefect.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import http.client
import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline import progress
from pipeline.jobs.prefect_server import alive, prefect_home, terminate

STATE_FILE = "synthenv-runner.json"
TOKEN_HEADER = "X-Synthenv-Runner-Token"
SOURCE_DIRS = ("pipeline", "flows", "generators", "templates")


@dataclass(frozen=True)
class RunnerInfo:
    """What ``flows.runner`` records once it has imported the flows and listens."""

    pid: int
    port: int
    token: str
    """A secret the runner requires on every run (the state file is readable by its owner only)."""
    fingerprint: str
    """:func:`fingerprint` of the code and settings it runs."""
    api_url: str
    """The Prefect API its flow runs report to (the warm server's)."""


class RunnerError(RuntimeError):
    """The runner took the run and it failed; ``kind`` is the exception's class name there."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def state_path() -> Path:
    return prefect_home() / STATE_FILE


def source_root() -> Path:
    """The directory holding the packages and ``templates/`` (source checkout or editable install)."""
    return Path(__file__).resolve().parents[2]


def fingerprint(root: Path | None = None) -> str:
    """Identifies what a run would execute: interpreter, every source file's path, size and
    modification time, and the ``SYNTHENV_*`` settings. A runner started before an edit (or under
    other settings) has another fingerprint and is not used."""
    root = root or source_root()
    digest = hashlib.sha256(sys.executable.encode())
    for top in SOURCE_DIRS:
        for directory, dirs, files in os.walk(root / top):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                path = Path(directory) / name
                with contextlib.suppress(OSError):
                    st = path.stat()
                    digest.update(f"{path.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    for key, value in sorted(os.environ.items()):
        if key.startswith("SYNTHENV_"):
            digest.update(f"{key}={value}\n".encode())
    return digest.hexdigest()


def recorded() -> RunnerInfo | None:
    """The runner ``start`` recorded, if its process is alive (a stale record is removed)."""
    path = state_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        info = RunnerInfo(
            int(data["pid"]), int(data["port"]), str(data["token"]), str(data["fingerprint"]), str(data["api_url"])
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not alive(info.pid):
        path.unlink(missing_ok=True)
        return None
    return info


def write_record(info: RunnerInfo) -> None:
    """Record the runner atomically, readable by its owner only (the token lets a process run code there)."""
    path = state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(dataclasses.asdict(info), out)
    os.replace(tmp, path)


def new_token() -> str:
    return secrets.token_urlsafe(24)


def healthy(info: RunnerInfo, timeout: float = 1.0) -> bool:
    """Whether the runner answers ``GET /health`` with its recorded pid."""
    conn = http.client.HTTPConnection("127.0.0.1", info.port, timeout=timeout)
    try:
        conn.request("GET", "/health")
        resp = conn.getresponse()
        return resp.status == 200 and json.loads(resp.read()).get("pid") == info.pid
    except (OSError, ValueError, http.client.HTTPException):
        return False
    finally:
        conn.close()


def usable(timeout: float = 0.5) -> RunnerInfo | None:
    """The recorded runner when it answers, runs this code under these settings and reports to the
    Prefect API this process would use (``PREFECT_API_URL`` unset or the same), else None."""
    info = recorded()
    if info is None or os.environ.get("PREFECT_API_URL", info.api_url) != info.api_url:
        return None
    if info.fingerprint != fingerprint() or not healthy(info, timeout):
        return None
    return info


def start(api_url: str, wait: float = 120.0) -> RunnerInfo:
    """Start ``flows.runner`` in the background against the server at ``api_url`` (or find one
    running this code); returns once it has imported the flows and answers.

    Raises RuntimeError when it exits or does not answer within ``wait`` seconds (it is stopped)."""
    current = recorded()
    if current is not None:
        if current.fingerprint == fingerprint() and current.api_url == api_url and healthy(current):
            return current
        stop()  # older code or other settings: replace it
    home = prefect_home()
    home.mkdir(parents=True, exist_ok=True)
    log = home / "synthenv-runner.log"
    env = {**os.environ, "PREFECT_API_URL": api_url, "PREFECT_HOME": str(home)}
    env.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    env.setdefault("DO_NOT_TRACK", "1")
    env.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "flows.runner"],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=source_root(),
            start_new_session=True,
        )
    _STARTED[proc.pid] = proc
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            _STARTED.pop(proc.pid, None)
            raise RuntimeError(f"the flow runner exited with {proc.returncode}; see {log}")
        info = recorded()
        if info is not None and info.pid == proc.pid and healthy(info):
            return info
        time.sleep(0.2)
    terminate(proc.pid, _STARTED.pop(proc.pid, None), 10.0)
    current = recorded()
    if current is None or current.pid == proc.pid:
        state_path().unlink(missing_ok=True)
    raise RuntimeError(f"the flow runner did not answer within {wait:g} s; see {log}")


_STARTED: dict[int, subprocess.Popen[bytes]] = {}
"""Runners this process started, by pid, so ``stop`` can reap them (as tests start and stop them)."""


def stop(wait: float = 30.0) -> RunnerInfo | None:
    """Stop the recorded runner (its process group); returns what was stopped, or None."""
    info = recorded()
    if info is None:
        return None
    terminate(info.pid, _STARTED.pop(info.pid, None), wait)
    state_path().unlink(missing_ok=True)
    return info


def inputs_to_json(inputs: Any) -> dict[str, Any]:
    """The run's :class:`~pipeline.jobs.steps.Inputs` as JSON (a frozen dataclass of plain values)."""
    return dataclasses.asdict(inputs)


def inputs_from_json(data: dict[str, Any]) -> Any:
    """Back to :class:`~pipeline.jobs.steps.Inputs`; unknown fields are refused (ValueError)."""
    from pipeline.jobs.steps import Inputs

    names = {f.name for f in dataclasses.fields(Inputs)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"unknown inputs: {', '.join(unknown)}")
    if data.get("task_mix") is not None:
        data = {**data, "task_mix": tuple(tuple(entry) for entry in data["task_mix"])}
    return Inputs(**data)


def events(lines: Iterator[bytes]) -> Iterator[dict[str, Any]]:
    """The runner's stream: one JSON object per line."""
    for line in lines:
        if line.strip():
            yield json.loads(line)


def generate(
    info: RunnerInfo, inputs: Any, out_dir: Path, report: Callable[[str, float | None], None] | None = None
) -> dict[str, Any]:
    """Run ``generate_environment`` in the runner; progress goes to ``report`` as the steps run.

    Returns the flow's summary. Raises :class:`RunnerError` when the run failed there, and
    ConnectionError when the runner went away mid-run (its log says why)."""
    body = json.dumps({"inputs": inputs_to_json(inputs), "out": str(Path(out_dir).resolve())}).encode()
    conn = http.client.HTTPConnection("127.0.0.1", info.port, timeout=None)
    try:
        conn.request("POST", "/generate", body, {"Content-Type": "application/json", TOKEN_HEADER: info.token})
        resp = conn.getresponse()
        if resp.status != 200:
            raise RunnerError("refused", f"the flow runner refused the run ({resp.status}): {resp.read()[:300]!r}")
        for event in events(iter(resp.readline, b"")):
            kind = event.get("event")
            if kind == "step" and report is not None:
                report(str(event["step"]), event.get("seconds"))
            elif kind == "tick":
                progress.tick(str(event["what"]), int(event["done"]), int(event["total"]), str(event.get("item", "")))
            elif kind == "done":
                summary: dict[str, Any] = event["summary"]
                return summary
            elif kind == "error":
                raise RunnerError(str(event.get("kind", "Exception")), str(event.get("message", "")))
    except (OSError, http.client.HTTPException) as exc:
        raise ConnectionError(f"the flow runner went away mid-run ({exc}); see {state_path().parent}") from exc
    finally:
        conn.close()
    raise ConnectionError(f"the flow runner ended the stream without a result; see {state_path().parent}")
