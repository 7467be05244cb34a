"""The OpenEnv server as issue 25 found it: the same hostile requests against ``synthenv serve
--protocol openenv`` started by the CLI with its default settings (a child process, 127.0.0.1 only).

Each case is what the issue's "Why" names: a foreign ``Host`` and ``Origin`` over HTTP and at the
WebSocket handshake, a ``text/plain`` body, a 10 MB body, and a ``reset`` with an unknown task id
(over HTTP, and over the WebSocket with OpenEnv's own ``GenericEnvClient`` and the trainer token).
Printed: one line per case with the status (or the error the client received), whether a traceback
reached the client, and the milliseconds it took; the load average before and after. Exit 1 if any
case got a 5xx, was accepted, or showed a traceback.

    python benchmarks/openenv_probe.py --bundle B

Results are printed and written to ``benchmarks/results/openenv_probe.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).absolute().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(ROOT / "benchmarks"))

from http_bench import _free_port, start_server, stop_server, trainer_token  # noqa: E402

BIG = 10 * 1000 * 1000
"""The issue's 10 MB body."""


def _http(port: int, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, str]:
    """One raw HTTP/1.1 request (so nothing rewrites Host); the status and the body's first 2 KB."""
    head = {"Host": f"127.0.0.1:{port}", "Content-Length": str(len(body)), "Connection": "close", **headers}
    lines = [f"{method} {path} HTTP/1.1", *(f"{k}: {v}" for k, v in head.items())]
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        with contextlib.suppress(OSError):  # refused before the body was read: the status is still there
            sock.sendall(body)
        reply = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except OSError:
                break
            if not chunk:
                break
            reply += chunk
    status = int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/") else 0
    return status, reply.partition(b"\r\n\r\n")[2][:2048].decode("utf-8", "replace")


def _handshake(port: int, host: str, origin: str | None) -> int:
    lines = [
        "GET /ws HTTP/1.1",
        f"Host: {host}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}",
        "Sec-WebSocket-Version: 13",
        *([f"Origin: {origin}"] if origin else []),
    ]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        return int(sock.recv(4096).split(b" ", 2)[1])


async def _ws_reset(base: str, **kwargs: Any) -> str:
    """``reset`` over the WebSocket with OpenEnv's client: what it returned or raised."""
    from openenv.core import GenericEnvClient

    async with GenericEnvClient(base_url=base) as client:
        try:
            result = await client.reset(trainer_token=trainer_token(), **kwargs)
        except Exception as exc:  # what the client sees is the figure
            return f"{type(exc).__name__}: {exc}"
        return f"ok: assigned {result.observation['assigned_task_id']}"


def probe(port: int) -> list[dict[str, Any]]:
    base = f"http://127.0.0.1:{port}"
    rpc = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).encode()
    js = {"Content-Type": "application/json"}
    http_cases: dict[str, tuple[str, str, dict[str, str], bytes]] = {
        "HTTP foreign Host": ("POST", "/mcp", {**js, "Host": "evil.example"}, rpc),
        "HTTP foreign Origin": ("POST", "/mcp", {**js, "Origin": "https://evil.example"}, rpc),
        "HTTP text/plain body": ("POST", "/mcp", {"Content-Type": "text/plain"}, rpc),
        "HTTP 10 MB body": ("POST", "/mcp", js, b"[" + b"1," * (BIG // 2) + b"1]"),
        "HTTP /reset unknown task id": ("POST", "/reset", js, json.dumps({"task_id": "no-such-task"}).encode()),
        "HTTP loopback control (tools/list)": ("POST", "/mcp", js, rpc),
    }
    rows: list[dict[str, Any]] = []
    for case, (method, path, headers, body) in http_cases.items():
        began = time.perf_counter()
        status, text = _http(port, method, path, headers, body)
        rows.append(
            {
                "case": case,
                "answer": status,
                "traceback": "Traceback" in text,
                "ms": round((time.perf_counter() - began) * 1000, 1),
                "detail": text[:160],
            }
        )
    for case, (host, origin) in {
        "WebSocket foreign Host": ("evil.example", None),
        "WebSocket foreign Origin": ("127.0.0.1", "https://evil.example"),
        "WebSocket loopback control": ("127.0.0.1", None),
    }.items():
        began = time.perf_counter()
        status = _handshake(port, host, origin)
        rows.append(
            {"case": case, "answer": status, "traceback": False, "ms": round((time.perf_counter() - began) * 1000, 1)}
        )
    import openenv.core  # noqa: F401  (imported before the clock starts: the first import takes seconds)

    resets: dict[str, dict[str, Any]] = {
        "WebSocket reset unknown task id": {"task_id": "no-such-task"},
        "WebSocket reset control (seed 0)": {"seed": 0},
    }
    for case, kwargs in resets.items():
        began = time.perf_counter()
        answer = asyncio.run(_ws_reset(base, **kwargs))
        rows.append(
            {
                "case": case,
                "answer": answer[:200],
                "traceback": "Traceback" in answer,
                "ms": round((time.perf_counter() - began) * 1000, 1),
            }
        )
    return rows


def holds(row: dict[str, Any]) -> bool:
    """A control must be served; every other case refused with a 4xx (or an error the client reads)."""
    answer, control = row["answer"], "control" in row["case"]
    if row["traceback"]:
        return False
    if isinstance(answer, int):
        return answer in (101, 200) if control else 400 <= answer < 500
    return answer.startswith("ok") if control else not answer.startswith("ok")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=RESULTS / "openenv_probe.json")
    args = parser.parse_args()
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    port = _free_port()
    server = start_server(ROOT, args.bundle.absolute(), port, 16, ["--protocol", "openenv"])
    try:
        rows = probe(port)
    finally:
        stop_server(server)
    load_after = Path("/proc/loadavg").read_text().split()[:3]
    for row in rows:
        row["holds"] = holds(row)
        print(f"{row['case']:<38} {str(row['answer'])[:90]:<90} traceback={row['traceback']} {row['ms']} ms")
    print(f"load average before {' '.join(load_before)}, after {' '.join(load_after)}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"rows": rows, "load": [load_before, load_after]}, indent=1) + "\n")
    raise SystemExit(0 if all(row["holds"] for row in rows) else 1)


if __name__ == "__main__":
    main()
