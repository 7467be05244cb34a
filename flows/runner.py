"""``python -m flows.runner``: the warm flow runner ``synthenv prefect start`` keeps beside the server.

It imports Prefect and the flows once, then takes ``generate_environment`` runs over loopback HTTP
(``POST /generate`` with the run's inputs and output directory and the recorded token), one at a
time, streaming each step's progress and then the summary as JSON lines. The client side, and why,
is :mod:`pipeline.jobs.prefect_runner`. ``PREFECT_API_URL`` (the warm server) is set by whoever
starts it. SIGTERM stops it and removes its record.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from prefect import flow, task

from flows.generate import generate_environment
from pipeline import progress
from pipeline.jobs import prefect_runner, steps
from pipeline.jobs.recipe import reporter

MAX_BODY = 1 << 20
"""A run's request is its inputs (a blueprint as JSON text at most): 1 MiB is ample."""


class Handler(BaseHTTPRequestHandler):
    server: RunnerServer

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not logged: the runs themselves show in Prefect's UI."""

    def _json(self, status: int, value: dict[str, Any]) -> None:
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/health":
            self._json(200, {"pid": os.getpid(), "busy": self.server.lock.locked()})
        else:
            self._json(404, {"error": "not found"})

    def do_POST(self) -> None:
        if self.path != "/generate":
            self._json(404, {"error": "not found"})
            return
        if self.headers.get(prefect_runner.TOKEN_HEADER) != self.server.info.token:
            self._json(403, {"error": "wrong or missing token"})
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
            if not 0 < length <= MAX_BODY:
                raise ValueError(f"a body of 1 to {MAX_BODY} bytes is expected")
            request = json.loads(self.rfile.read(length))
            inputs = prefect_runner.inputs_from_json(dict(request["inputs"]))
            out = Path(str(request["out"]))
            if not out.is_absolute():
                raise ValueError("out must be an absolute path")
        except (ValueError, KeyError, TypeError) as exc:
            self._json(400, {"error": str(exc)})
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.end_headers()
        with self.server.lock:  # one run at a time; a second command waits its turn
            self._run(inputs, out)

    def _send(self, event: dict[str, Any]) -> None:
        try:
            self.wfile.write(json.dumps(event, default=str).encode() + b"\n")
            self.wfile.flush()
        except OSError:  # the command went away (Ctrl-C): the run still finishes and is recorded
            pass

    def _run(self, inputs: Any, out: Path) -> None:
        token = reporter.set(lambda step, seconds: self._send({"event": "step", "step": step, "seconds": seconds}))
        previous = progress.listen(
            lambda what, done, total, item: self._send(
                {"event": "tick", "what": what, "done": done, "total": total, "item": item}
            )
        )
        try:
            summary = generate_environment(inputs, str(out))
        except Exception as exc:  # reported to the command, which exits with it; the runner stays up
            self._send({"event": "error", "kind": type(exc).__name__, "message": str(exc)})
        else:
            self._send({"event": "done", "summary": summary})
        finally:
            progress.listen(previous)
            reporter.reset(token)


class RunnerServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, token: str) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.lock = threading.Lock()
        self.info = prefect_runner.RunnerInfo(
            pid=os.getpid(),
            port=int(self.server_address[1]),
            token=token,
            fingerprint=prefect_runner.fingerprint(),
            api_url=os.environ["PREFECT_API_URL"],
        )


@task(name="warm-up")
def _warm_up_task() -> int:
    return 1


@flow(name="synthenv-runner-warm-up")
def _warm_up_flow() -> int:
    """One task, no work: the first flow and task run of a process (and the server's first answers
    to them) cost seconds that the first real run would otherwise pay."""
    return _warm_up_task()


def warm_up() -> None:
    """Run the plain steps once on a small world (a first run would otherwise import about 460
    modules on the way, 0.5 s of CPU) and one empty flow run (shown in the UI as
    ``synthenv-runner-warm-up``), so the first run a command hands over costs what the next ones do.
    The world is thrown away."""
    with tempfile.TemporaryDirectory(prefix="synthenv-warm-") as work:
        steps.generate(steps.Inputs(domain="online_store", rows=10), Path(work) / "out", Path(work) / "work")
    _warm_up_flow()


def main() -> None:
    if not os.environ.get("PREFECT_API_URL"):
        sys.exit("flows.runner needs PREFECT_API_URL (the warm server); `synthenv prefect start` sets it")
    warm_up()  # before the record: `start` waits for the record, so a command never meets a cold runner
    server = RunnerServer(prefect_runner.new_token())

    def _stop(_signum: int, _frame: Any) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, _stop)
    prefect_runner.write_record(server.info)
    try:
        server.serve_forever()
    finally:
        server.server_close()
        current = prefect_runner.recorded()
        if current is not None and current.pid == os.getpid():
            prefect_runner.state_path().unlink(missing_ok=True)


if __name__ == "__main__":
    main()
