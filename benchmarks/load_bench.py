"""Sessions under load: 64 clients for 30 s plus 1,000 abandoned MCP connections against one
server, then the time until ``/health`` counts no session of either kind.

Starts ``synthenv serve`` (a child process, 127.0.0.1 only) with ``--session-ttl T``, then at
once:

* ``--clients`` REST clients, each a keep-alive connection in its own session (opened on the
  trainer's route), calling ``POST /tools/{name}`` with http_bench's mix for ``--seconds``;
* ``--abandoned`` connections of the official MCP client (``mcp``: the handshake protocol,
  so each is an MCP session on the server) that make one call and leave without a DELETE:
  half are the trainer's (each opens an environment session, refused with ``unavailable``
  once ``--max-sessions`` are open), half an agent's naming one of the REST sessions;
* a sampler reading ``/health`` (environment and MCP sessions) and the server's memory
  every second.

Nobody says goodbye: the REST clients just stop. Reported: steps/s, latency p50/p99 and 5xx
of the REST clients, the abandoned connections' outcomes and rate, sessions over time, the
seconds from the end of the load until both counts are 0 (the TTL bounds it), and the load
average. The load generator runs on the same cores as the server, so the figures are a floor.

    python benchmarks/load_bench.py --bundle B                        # 64 x 30 s + 1,000, TTL 10 s
    python benchmarks/load_bench.py --bundle B --seconds 5 --abandoned 100

Results are printed and written to ``benchmarks/results/load_bench.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).absolute().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(ROOT / "benchmarks"))

from http_bench import _free_port, _tree_rss_mb, drive, start_server, stop_server, trainer_token  # noqa: E402
from runtime_bench import _tool_calls, load_average  # noqa: E402


def health(base: str) -> dict[str, Any]:
    import httpx

    return dict(httpx.get(f"{base}/health", timeout=10).json())


async def sample(base: str, pid: int, samples: list[dict[str, Any]], start: float, stop: asyncio.Event) -> None:
    """``/health``'s counts and the server's memory every second until ``stop``."""
    while not stop.is_set():
        with contextlib.suppress(Exception):
            h = await asyncio.to_thread(health, base)
            samples.append(
                {
                    "t": round(time.monotonic() - start, 1),
                    "sessions": h["sessions"],
                    "mcp_sessions": h["mcp_sessions"],
                    "rss_mb": _tree_rss_mb(pid),
                }
            )
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(stop.wait(), 1.0)


async def abandon(base: str, n: int, concurrency: int, sessions: list[str]) -> dict[str, Any]:
    """``n`` official-client MCP connections, one call each, left without a DELETE."""
    import httpx
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    outcomes: dict[str, int] = {}
    gate = asyncio.Semaphore(concurrency)
    auth = {"Authorization": f"Bearer {trainer_token()}"}

    first_get = await asyncio.to_thread(_first_get, base)
    sessions = sessions or await asyncio.to_thread(_open_session_ids, base)  # opened now: none idles out first
    pools = {
        True: httpx.AsyncClient(headers=auth, timeout=60),
        False: httpx.AsyncClient(headers={"X-Session-Id": sessions[0] if sessions else "none"}, timeout=60),
    }

    async def one(i: int) -> None:
        trainer = i % 2 == 0
        async with gate:
            try:  # a new MCP session over the shared connection pool (creating an httpx client costs ~0.1 s)
                transport = streamable_http_client(f"{base}/mcp", http_client=pools[trainer], terminate_on_close=False)
                async with Client(transport, mode="legacy") as client:
                    result = await client.call_tool(first_get, {"id": 1})
                    key = json.loads(result.content[0].text).get("code", "error") if result.is_error else "ok"
            except Exception as exc:  # a refused handshake (503) surfaces as an exception
                key = type(exc).__name__
        label = f"{'trainer' if trainer else 'agent'}:{key}"
        outcomes[label] = outcomes.get(label, 0) + 1

    start = time.perf_counter()
    try:
        await asyncio.gather(*(one(i) for i in range(n)))
    finally:
        for pool in pools.values():
            await pool.aclose()
    elapsed = time.perf_counter() - start
    return {"connections": n, "seconds": round(elapsed, 2), "per_s": round(n / elapsed, 1), "outcomes": outcomes}


async def abandon_elsewhere(base: str, n: int, concurrency: int, sessions: list[str]) -> dict[str, Any]:
    """:func:`abandon` in a child process, so the MCP client's CPU does not stall the REST clients' loop."""
    command = [sys.executable, __file__, "--abandon-only", base, "--abandoned", str(n)]
    command += ["--concurrency", str(concurrency), "--sessions", ",".join(sessions)]
    child = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE)
    out, _ = await child.communicate()
    if child.returncode != 0:
        raise RuntimeError(f"the MCP client process failed ({child.returncode})")
    return dict(json.loads(out))


def _first_get(base: str) -> str:
    import httpx

    paths = httpx.get(f"{base}/openapi.json", timeout=10).json()["paths"]
    return next(p.rsplit("/", 1)[1] for p in sorted(paths) if p.startswith("/tools/get_"))


async def run(
    bundle: Path, clients: int, seconds: float, abandoned: int, ttl: float, max_sessions: int
) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT))
    from pipeline.runtime.environment import Environment

    env = Environment.from_bundle(bundle)
    calls = _tool_calls(env, random.Random(0), 20)
    env.close()
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(ROOT, bundle, port, max_sessions, ["--session-ttl", str(ttl)])
    samples: list[dict[str, Any]] = []
    stop = asyncio.Event()
    start = time.monotonic()
    try:
        sampler = asyncio.create_task(sample(base, server.pid, samples, start, stop))
        load_before = load_average()

        async def rest() -> dict[str, Any]:
            return await drive(port, clients, seconds, calls)

        async def mcp() -> dict[str, Any]:
            await asyncio.sleep(1.0)  # the REST clients' sessions are open by then
            return await abandon_elsewhere(base, abandoned, 16, [])

        driven, dropped = await asyncio.gather(rest(), mcp())
        ended = time.monotonic()
        load_during = load_average()
        peak = max(samples, key=lambda s: s["sessions"] + s["mcp_sessions"]) if samples else {}
        zero_after = None
        while time.monotonic() - ended < 3 * ttl + 10:
            h = await asyncio.to_thread(health, base)
            if h["sessions"] == 0 and h["mcp_sessions"] == 0:
                zero_after = round(time.monotonic() - ended, 1)
                break
            await asyncio.sleep(0.25)
        stop.set()
        await sampler
    finally:
        stop_server(server)
    return {
        "bundle": str(bundle),
        "session_ttl_s": ttl,
        "max_sessions": max_sessions,
        "rest": driven,
        "abandoned_mcp": dropped,
        "peak": peak,
        "seconds_to_zero_after_load": zero_after,
        "within_ttl": zero_after is not None and zero_after <= ttl + 1.0,
        "sessions_over_time": samples,
        "load_average_before": load_before,
        "load_average_after_load": load_during,
    }


def _open_session_ids(base: str) -> list[str]:
    """Sessions for the agents' MCP connections to name (the trainer's route; they are never closed)."""
    import httpx

    auth = {"Authorization": f"Bearer {trainer_token()}"}
    opened = [httpx.post(f"{base}/trainer/sessions", json={"seed": i}, headers=auth, timeout=30) for i in range(4)]
    return [r.json()["session_id"] for r in opened if r.status_code == 201]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", type=Path)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--abandoned", type=int, default=1000)
    parser.add_argument("--session-ttl", type=float, default=10.0)
    parser.add_argument("--max-sessions", type=int, default=256)
    parser.add_argument("--out", type=Path, default=RESULTS / "load_bench.json")
    parser.add_argument("--abandon-only", metavar="BASE", help=argparse.SUPPRESS)
    parser.add_argument("--concurrency", type=int, default=16, help=argparse.SUPPRESS)
    parser.add_argument("--sessions", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.abandon_only:
        sessions = [s for s in args.sessions.split(",") if s]
        print(json.dumps(asyncio.run(abandon(args.abandon_only, args.abandoned, args.concurrency, sessions))))
        return
    result = asyncio.run(
        run(args.bundle, args.clients, args.seconds, args.abandoned, args.session_ttl, args.max_sessions)
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    shown = {k: v for k, v in result.items() if k != "sessions_over_time"}
    shown["sessions_over_time"] = result["sessions_over_time"][:: max(1, len(result["sessions_over_time"]) // 12)]
    print(json.dumps(shown, indent=2))


if __name__ == "__main__":
    main()
