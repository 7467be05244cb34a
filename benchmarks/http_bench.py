"""Tool steps per second over HTTP on loopback, before and after, side by side.

Starts ``synthenv serve`` (a child process, 127.0.0.1 only) from each checkout given
(this one, and any ``--code DIR``, e.g. a worktree of main), then drives 1, 16 and 64
concurrent clients for ``--seconds`` each: every client is a minimal keep-alive HTTP/1.1
connection on asyncio in its own session, calling ``POST /tools/{name}`` with a mix of
lookups by id, filtered pages, aggregates and writes. Reports steps/s, latency p50/p99,
5xx responses and the load average during the run. The load generator runs on the same
cores as the server, so the figures are a floor.

    python benchmarks/http_bench.py --bundle B                              # this checkout
    python benchmarks/http_bench.py --bundle B --code ../before --rounds 2  # A B A B
    python benchmarks/http_bench.py --bundle B --workers 2

Beside each level the same clients drive a do-nothing route on the same stack (``--floor``, on by
default), right after the real one (real, floor, real, floor across ``--rounds``): ``POST
/bench/floor``, added by the benchmark's launcher as the innermost of the app's own middleware, so
it passes uvicorn, FastAPI's outer layers, the request guard (Host, Origin, media type, body read)
and answers ``{}``. The real route's steps/s over the floor's is the share of the stack's own
ceiling that the tool calls reach.

Sessions are opened on the trainer's route (``POST /trainer/sessions`` with the token every
server of the run is started with, ``SYNTHENV_TRAINER_TOKEN``); a checkout from before the
trainer routes is driven through its ``POST /sessions``.

Results are printed and written to ``benchmarks/results/http_bench.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).absolute().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(ROOT / "benchmarks"))

from runtime_bench import _rss_mb, _summary, _tool_calls, load_average  # noqa: E402

TOKEN = "http-bench-trainer-token-0123456789"
"""The trainer token every server of the run is started with (opening a session needs it), unless
``SYNTHENV_TRAINER_TOKEN`` is already set (e.g. by ``trainers_bench.py``, which starts servers here)."""


FLOOR_PATH = "/bench/floor"
LAUNCHER = f"""
import runpy, sys
import pipeline.server.http as http

class Floor:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["path"] != {FLOOR_PATH!r}:
            return await self.app(scope, receive, send)
        while (await receive()).get("more_body"):
            pass
        headers = [(b"content-length", b"2"), (b"content-type", b"application/json")]
        await send({{"type": "http.response.start", "status": 200, "headers": headers}})
        await send({{"type": "http.response.body", "body": b"{{}}"}})

def create_app(*args, __create=http.create_app, **kwargs):
    from starlette.middleware import Middleware

    app = __create(*args, **kwargs)
    app.user_middleware.append(Middleware(Floor))
    return app

http.create_app = create_app
sys.argv[0] = "synthenv"
runpy.run_module("pipeline.cli.main", run_name="__main__")
"""
"""``synthenv serve`` plus the do-nothing route, from any checkout (``create_app`` is wrapped before the CLI
imports it)."""


def trainer_token() -> str:
    return os.environ.get("SYNTHENV_TRAINER_TOKEN") or TOKEN


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Connection:
    """A minimal keep-alive HTTP/1.1 client, so the load generator costs far less CPU than the server."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str) -> None:
        self.reader, self.writer, self.host = reader, writer, host

    @classmethod
    async def open(cls, host: str, port: int) -> Connection:
        reader, writer = await asyncio.open_connection(host, port)
        return cls(reader, writer, f"{host}:{port}")

    async def post(self, path: str, body: Any, headers: dict[str, str]) -> tuple[int, bytes]:
        data = json.dumps(body).encode()
        extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self.writer.write(
            f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
            f"{extra}Content-Length: {len(data)}\r\n\r\n".encode()
            + data
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = next(
            (
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ),
            0,
        )
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


async def open_session(conn: Connection, seed: int) -> tuple[int, bytes]:
    """Open a session the trainer's way; a checkout from before the trainer routes has ``POST /sessions``."""
    status, body = await conn.post("/trainer/sessions", {"seed": seed}, {"Authorization": f"Bearer {trainer_token()}"})
    if status in (404, 405):
        status, body = await conn.post("/sessions", {"seed": seed}, {})
    return status, body


async def drive(port: int, n: int, seconds: float, calls: list[dict[str, Any]], floor: bool = False) -> dict[str, Any]:
    conns = [await Connection.open("127.0.0.1", port) for _ in range(n)]
    sessions = [json.loads((await open_session(c, i))[1])["session_id"] for i, c in enumerate(conns)]
    done, errors = [0], [0]
    latencies: list[float] = []
    stop = time.perf_counter() + seconds

    async def worker(k: int) -> None:
        i = k
        while time.perf_counter() < stop:
            call = calls[i % len(calls)]
            i += n
            t = time.perf_counter()
            path = FLOOR_PATH if floor else f"/tools/{call['tool']}"
            status, _ = await conns[k].post(path, call["arguments"], {"X-Session-Id": sessions[k]})
            latencies.append(time.perf_counter() - t)
            done[0] += 1
            errors[0] += status >= 500

    start = time.perf_counter()
    await asyncio.gather(*(worker(k) for k in range(n)))
    elapsed = time.perf_counter() - start
    for c in conns:
        c.close()
    return {
        "route": "floor" if floor else "tools",
        "clients": n,
        "steps": done[0],
        "seconds": round(elapsed, 2),
        "steps_per_s": round(done[0] / elapsed, 1),
        "latency": _summary(latencies),
        "server_errors": errors[0],
        "load_average": load_average(),
    }


def start_server(
    code: Path, bundle: Path, port: int, sessions: int, extra: list[str], floor: bool = False
) -> subprocess.Popen[bytes]:
    """`synthenv serve` from checkout ``code``, once /health answers. Its stderr goes to a temporary
    file (a pipe nobody reads could fill up and stall a chatty server); the tail is shown if it fails."""
    cmd = [sys.executable, *(["-c", LAUNCHER] if floor else ["-m", "pipeline.cli.main"])]
    cmd += ["serve", str(bundle), "--port", str(port)]
    cmd += ["--max-sessions", str(sessions), "--session-ttl", "3600", *extra]
    import httpx

    # The child keeps its own handle on the (unlinked) file after this one is closed.
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen(
            cmd,
            cwd=code,
            env={**os.environ, "PYTHONPATH": str(code), "SYNTHENV_TRAINER_TOKEN": trainer_token()},
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    return server
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                log.seek(0)
                raise RuntimeError(f"the server did not start: {log.read().decode(errors='replace')[-2000:]}")
            time.sleep(0.2)


def stop_server(server: subprocess.Popen[bytes]) -> None:
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def _tree_rss_mb(pid: int) -> float:
    """Resident set of the server and its worker processes."""
    total = _rss_mb(pid)
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        for child in children.read_text().split():
            total += _tree_rss_mb(int(child))
    return round(total, 1)


async def _open_sessions(port: int, count: int) -> int:
    conns = [await Connection.open("127.0.0.1", port) for _ in range(8)]
    opened = 0
    for i in range(count):
        status, _ = await open_session(conns[i % len(conns)], i)
        opened += status == 201
    for c in conns:
        c.close()
    return opened


def measure(
    code: Path, bundle: Path, seconds: float, levels: list[int], sessions: int, extra: list[str], floor: bool = True
) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT))
    from pipeline.bundle.format import load_bundle
    from pipeline.runtime.environment import Environment

    calls = _tool_calls(Environment(load_bundle(bundle, verify=False)), random.Random(1), 30)
    port = _free_port()
    server = start_server(code, bundle, port, max(sessions, max(levels)) + 100, extra, floor)
    try:
        runs, floors = [], []
        for n in levels:  # the real route, then the floor, at each level
            runs.append(asyncio.run(drive(port, n, seconds, calls)))
            if floor:
                floors.append(asyncio.run(drive(port, n, seconds, calls, floor=True)))
        memory: dict[str, Any] = {}
        if sessions:
            idle = _tree_rss_mb(server.pid)
            opened = asyncio.run(_open_sessions(port, sessions))
            full = _tree_rss_mb(server.pid)
            memory = {"sessions": opened, "rss_idle_mb": idle, "rss_mb": full}
        return {"code": str(code), "options": extra, "throughput": runs, "floor": floors, "memory": memory}
    finally:
        stop_server(server)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", type=Path, required=True)
    parser.add_argument("--code", type=Path, action="append", default=[], help="another checkout to measure too")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--concurrency", default="1,16,64")
    parser.add_argument("--sessions", type=int, default=0, help="then open this many sessions and report RSS")
    parser.add_argument("--workers", type=int, default=0, help="pass --workers N to this checkout's server")
    parser.add_argument(
        "--floor",
        action=argparse.BooleanOptionalAction,
        default=True,
        help=f"also drive the do-nothing route {FLOOR_PATH} at each level (default: on)",
    )
    args = parser.parse_args()
    levels = [int(c) for c in args.concurrency.split(",")]
    results = []
    for _ in range(args.rounds):
        for code in [ROOT, *args.code]:
            extra = ["--workers", str(args.workers)] if args.workers and code == ROOT else []
            run = measure(code, args.bundle, args.seconds, levels, args.sessions, extra, args.floor)
            results.append(run)
            _print(run)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "http_bench.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


def _print(run: dict[str, Any]) -> None:
    print(f"{run['code']} {' '.join(run['options'])}")
    floors = {r["clients"]: r for r in run.get("floor", [])}
    for r in run["throughput"]:
        for name, x in (("tools", r), ("floor", floors.get(r["clients"]))):
            if x is None:
                continue
            ratio = f"  {r['steps_per_s'] / x['steps_per_s']:.2f}x the floor" if name == "floor" else ""
            lat = x["latency"]
            print(
                f"  {x['clients']:>3} clients {name}: {x['steps_per_s']:8.1f} steps/s  p50 {lat['p50_ms']:.2f} ms"
                f"  p99 {lat['p99_ms']:.2f} ms  5xx {x['server_errors']}  (load average {x['load_average']}){ratio}"
            )
    if run["memory"]:
        m = run["memory"]
        print(f"  {m['sessions']} sessions open: server RSS {m['rss_mb']} MB (idle {m['rss_idle_mb']} MB)")


if __name__ == "__main__":
    main()
