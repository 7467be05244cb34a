"""Steps per second on loopback: synthenv's HTTP server next to OpenEnv's, over HTTP and WebSocket.

One bundle, one run, three servers started one after another as child processes (the
same ``synthenv serve`` command, ``--protocol synthenv`` and ``--protocol openenv``),
each loaded by ``--clients`` concurrent clients for ``--seconds`` seconds, every client in
its own session and playing the same mix of tool calls (``runtime_bench._tool_calls``):

* synthenv HTTP: ``POST /tools/{name}`` with ``X-Session-Id``;
* OpenEnv MCP: ``{"type": "step", "data": {"type": "call_tool", ...}}`` on ``/ws`` after a
  reset (what OpenEnv's ``MCPToolClient`` sends in its default mode; OpenEnv's HTTP ``/mcp``
  has no reset, so it cannot hold an episode);
* OpenEnv WebSocket: ``{"type": "step"}`` messages on ``/ws`` after a reset (what
  ``GenericEnvClient`` sends).

Resets carry the trainer token the servers are started with (``SYNTHENV_TRAINER_TOKEN``).

The load generators are minimal (raw keep-alive HTTP, the ``websockets`` client) so that
they cost far less CPU than the servers; they still share the machine's cores, so the
figures are floors. Load average is recorded before and after.

    python benchmarks/trainers_bench.py --clients 16 --seconds 10

Results are printed and written to ``benchmarks/results/trainers_bench.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).absolute().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from http_bench import Connection, _free_port, start_server  # noqa: E402
from runtime_bench import RESULTS, _summary, _tool_calls, build_bundle  # noqa: E402

from pipeline.runtime.environment import Environment  # noqa: E402

TOKEN = "trainers-bench-token-0123456789"
"""The trainer token every server of the run is started with (reset needs it)."""


def _loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _stop(server: subprocess.Popen[bytes]) -> None:
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()


async def _drive(n: int, seconds: float, step: Any) -> dict[str, Any]:
    """Run ``step(k, i)`` from ``n`` workers until the deadline; count steps and errors."""
    done, errors = [0], [0]
    latencies: list[float] = []
    stop = time.perf_counter() + seconds

    async def worker(k: int) -> None:
        i = k
        while time.perf_counter() < stop:
            t = time.perf_counter()
            ok = await step(k, i)
            latencies.append(time.perf_counter() - t)
            done[0] += 1
            errors[0] += not ok
            i += n

    start = time.perf_counter()
    await asyncio.gather(*(worker(k) for k in range(n)))
    elapsed = time.perf_counter() - start
    return {
        "clients": n,
        "steps": done[0],
        "seconds": round(elapsed, 2),
        "steps_per_s": round(done[0] / elapsed, 1),
        "latency": _summary(latencies),
        "errors": errors[0],
    }


async def synthenv_http(port: int, n: int, seconds: float, calls: list[dict[str, Any]]) -> dict[str, Any]:
    conns = [await Connection.open("127.0.0.1", port) for _ in range(n)]
    trainer = {"Authorization": f"Bearer {TOKEN}"}  # the trainer opens the sessions the clients step in
    opened = [await c.post("/trainer/sessions", {"seed": i}, trainer) for i, c in enumerate(conns)]
    sessions = [json.loads(body)["session_id"] for _, body in opened]

    async def step(k: int, i: int) -> bool:
        call = calls[i % len(calls)]
        status, _ = await conns[k].post(f"/tools/{call['tool']}", call["arguments"], {"X-Session-Id": sessions[k]})
        return status < 500

    try:
        return await _drive(n, seconds, step)
    finally:
        for c in conns:
            c.close()


async def openenv_ws_mcp(port: int, n: int, seconds: float, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """MCP tool calls over the WebSocket, as ``MCPToolClient`` sends them in its default mode."""
    from websockets.asyncio.client import connect

    sockets = [await connect(f"ws://127.0.0.1:{port}/ws", max_size=None) for _ in range(n)]
    for k, ws in enumerate(sockets):
        await ws.send(json.dumps({"type": "reset", "data": {"seed": k, "trainer_token": TOKEN}}))
        await ws.recv()

    async def step(k: int, i: int) -> bool:
        call = calls[i % len(calls)]
        action = {"type": "call_tool", "tool_name": call["tool"], "arguments": call["arguments"]}
        await sockets[k].send(json.dumps({"type": "step", "data": action}))
        return json.loads(await sockets[k].recv()).get("type") != "error"

    try:
        return await _drive(n, seconds, step)
    finally:
        for ws in sockets:
            await ws.close()


async def openenv_ws(port: int, n: int, seconds: float, calls: list[dict[str, Any]]) -> dict[str, Any]:
    from websockets.asyncio.client import connect

    sockets = [await connect(f"ws://127.0.0.1:{port}/ws", max_size=None) for _ in range(n)]
    for k, ws in enumerate(sockets):
        await ws.send(json.dumps({"type": "reset", "data": {"seed": k, "trainer_token": TOKEN}}))
        await ws.recv()

    async def step(k: int, i: int) -> bool:
        await sockets[k].send(json.dumps({"type": "step", "data": calls[i % len(calls)]}))
        return json.loads(await sockets[k].recv()).get("type") != "error"

    try:
        return await _drive(n, seconds, step)
    finally:
        for ws in sockets:
            await ws.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--domain", default="online_store")
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--runs", nargs="+", default=None, help="only these runs (default: all three)")
    args = parser.parse_args()
    os.environ["SYNTHENV_TRAINER_TOKEN"] = TOKEN  # inherited by the servers started below
    with tempfile.TemporaryDirectory(prefix="synthenv-trainers-bench-") as tmp:
        bundle = build_bundle(args.domain, args.rows, Path(tmp))
        env = Environment.from_bundle(bundle)
        calls = _tool_calls(env, random.Random(1), 30)
        manifest = env.bundle.manifest
        result: dict[str, Any] = {
            "bundle": manifest["name"],
            "rows": manifest["counts"]["rows"],
            "clients": args.clients,
            "runs": {},
        }
        for name, protocol, drive in (
            ("synthenv_http", "synthenv", synthenv_http),
            ("openenv_ws_mcp", "openenv", openenv_ws_mcp),
            ("openenv_websocket", "openenv", openenv_ws),
        ):
            if args.runs and name not in args.runs:
                continue
            port = _free_port()
            server = start_server(ROOT, bundle, port, 512, ["--protocol", protocol])
            try:
                before = _loadavg()
                run = asyncio.run(drive(port, args.clients, args.seconds, calls))
                result["runs"][name] = {**run, "loadavg_before": before, "loadavg_after": _loadavg()}
            finally:
                _stop(server)
            r = result["runs"][name]
            print(
                f"{name:18} {r['steps_per_s']:8.1f} steps/s  p50 {r['latency']['p50_ms']:.2f} ms  "
                f"p99 {r['latency']['p99_ms']:.2f} ms  errors {r['errors']}  load {r['loadavg_before']}"
            )
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "trainers_bench.json").write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
