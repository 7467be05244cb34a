"""Runtime speed on a ~10k-row state: in process, over HTTP on loopback, and memory per session.

Measures, on one bundle generated at the scale that gives about ``--rows`` rows:

* in process (``Environment``): reset, tool step and verify, p50/p99 in milliseconds;
* over HTTP (``synthenv serve`` in a child process, loopback only): tool steps per
  second with 1, 16 and 64 concurrent clients (keep-alive connections, each in its own
  session), for a bounded number of seconds each;
* memory: the server's resident set with 1,000 sessions open (and per session).

Targets (from the issue): reset p50 <= 2 ms, step p50 <= 1 ms, verify p50 <= 2 ms, 1,000
sessions within 4 GB. The load generator shares the machine's cores with the server, so
HTTP throughput is a floor, not a ceiling.

    python benchmarks/runtime_bench.py                    # ~10k rows, online_store
    python benchmarks/runtime_bench.py --domain library_loans --rows 10000 --seconds 5

Results are printed and written to ``benchmarks/results/runtime_bench.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).absolute().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.blueprint import load_blueprint  # noqa: E402
from pipeline.runtime.environment import Environment  # noqa: E402
from pipeline.steps import Inputs, generate  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 3)


def _summary(samples: list[float]) -> dict[str, float]:
    return {"p50_ms": _pct(samples, 0.50), "p99_ms": _pct(samples, 0.99), "mean_ms": round(statistics.mean(samples) * 1000, 3),
            "n": len(samples)}


def build_bundle(domain: str, rows: int, out: Path) -> tuple[Path, dict[str, Any]]:
    base = sum(e.rows for e in load_blueprint(domain).entities)
    scale = round(rows / base, 3)
    with tempfile.TemporaryDirectory(prefix="synthenv-bench-") as work:
        summary = generate(Inputs(domain=domain, seed=0, scale=scale, tasks_per_family=2), out, Path(work))
    return Path(summary["path"]), summary


def _tool_calls(env: Environment, rng: random.Random) -> list[dict[str, Any]]:
    """A realistic mix: lookups by id, filtered pages, an aggregate, and writes."""
    tools = {t.name: t for t in env.toolset.tools}
    gets = [t for t in tools.values() if t.kind == "get"]
    lists = [t for t in tools.values() if t.kind == "list"]
    updates = [t for t in tools.values() if t.kind == "update"]
    calls = []
    for i in range(400):
        kind = i % 5
        if kind in (0, 1):
            calls.append({"tool": rng.choice(gets).name, "arguments": {"id": rng.randint(1, 30)}})
        elif kind == 2:
            calls.append({"tool": rng.choice(lists).name, "arguments": {"limit": 10, "offset": rng.randint(0, 20)}})
        elif kind == 3:
            table = rng.choice(env.schema.tables)
            calls.append({"tool": "aggregate", "arguments": {"table": table.name, "metric": "count"}})
        else:
            spec = rng.choice(updates)
            table = env.schema.table(spec.table)
            col = next((c for c in table.columns if c.name in spec.columns and c.sql_type == "INTEGER"
                        and not c.references and c.min is not None), None)
            if col is None:
                calls.append({"tool": rng.choice(gets).name, "arguments": {"id": 1}})
            else:
                calls.append({"tool": spec.name, "arguments": {"id": rng.randint(1, 30), col.name: int(col.min or 0)}})
    return calls


def in_process(bundle: Path, repeats: int) -> dict[str, Any]:
    env = Environment.from_bundle(bundle)
    rng = random.Random(0)
    calls = _tool_calls(env, rng)
    resets, steps, verifies = [], [], []
    for i in range(repeats):
        t = time.perf_counter()
        env.reset(seed=i)
        resets.append(time.perf_counter() - t)
        for call in calls[(i * 8) % len(calls):(i * 8) % len(calls) + 8]:
            t = time.perf_counter()
            obs, *_ = env.step(call)
            steps.append(time.perf_counter() - t)
        answer = env.task.answer if env.task is not None else None
        t = time.perf_counter()
        env.verify(answer)
        verifies.append(time.perf_counter() - t)
    env.close()
    return {"reset": _summary(resets), "step": _summary(steps), "verify": _summary(verifies),
            "state_bytes": len(env.bundle.state_bytes)}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


class _Connection:
    """A minimal keep-alive HTTP/1.1 client, so the load generator costs far less CPU than the server."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str) -> None:
        self.reader, self.writer, self.host = reader, writer, host

    @classmethod
    async def open(cls, host: str, port: int) -> _Connection:
        reader, writer = await asyncio.open_connection(host, port)
        return cls(reader, writer, f"{host}:{port}")

    async def post(self, path: str, body: Any, headers: dict[str, str]) -> tuple[int, bytes]:
        data = json.dumps(body).encode()
        extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self.writer.write(f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
                          f"{extra}Content-Length: {len(data)}\r\n\r\n".encode() + data)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), 0)
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


async def _clients(port: int, n: int, seconds: float, calls: list[dict[str, Any]]) -> dict[str, Any]:
    conns = [await _Connection.open("127.0.0.1", port) for _ in range(n)]
    sessions = [json.loads((await c.post("/sessions", {"seed": i}, {}))[1])["session_id"] for i, c in enumerate(conns)]
    done, errors = [0], [0]
    latencies: list[float] = []
    stop = time.perf_counter() + seconds

    async def worker(k: int) -> None:
        i = k
        while time.perf_counter() < stop:
            call = calls[i % len(calls)]
            i += n
            t = time.perf_counter()
            status, _ = await conns[k].post(f"/tools/{call['tool']}", call["arguments"], {"X-Session-Id": sessions[k]})
            latencies.append(time.perf_counter() - t)
            done[0] += 1
            errors[0] += status >= 500

    start = time.perf_counter()
    await asyncio.gather(*(worker(k) for k in range(n)))
    elapsed = time.perf_counter() - start
    for c in conns:
        c.close()
    return {"clients": n, "steps": done[0], "seconds": round(elapsed, 2), "steps_per_s": round(done[0] / elapsed, 1),
            "latency": _summary(latencies), "server_errors": errors[0]}


async def _open_sessions(base: str, count: int) -> int:
    import httpx

    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        opened = 0
        for i in range(count):
            r = await http.post("/sessions", json={"seed": i})
            opened += r.status_code == 201
        return opened


def over_http(bundle: Path, seconds: float, concurrency: list[int], sessions: int) -> dict[str, Any]:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "pipeline.cli", "serve", str(bundle), "--port", str(port),
           "--max-sessions", str(sessions + 100), "--session-ttl", "3600"]
    server = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import httpx

        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError("the server did not start")
            time.sleep(0.2)
        env = Environment.from_bundle(bundle)
        calls = _tool_calls(env, random.Random(1))
        runs = [asyncio.run(_clients(port, n, seconds, calls)) for n in concurrency]
        idle_mb = _rss_mb(server.pid)
        opened = asyncio.run(_open_sessions(base, sessions))
        full_mb = _rss_mb(server.pid)
        memory = {"sessions": opened, "rss_idle_mb": idle_mb, "rss_mb": full_mb,
                  "per_session_kb": round((full_mb - idle_mb) * 1024 / max(opened, 1), 1)}
        return {"throughput": runs, "memory": memory}
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--domain", default="online_store")
    parser.add_argument("--rows", type=int, default=10_000, help="approximate rows in the state")
    parser.add_argument("--repeats", type=int, default=500, help="in-process resets (8 steps and 1 verify each)")
    parser.add_argument("--seconds", type=float, default=5.0, help="HTTP load per concurrency level")
    parser.add_argument("--concurrency", default="1,16,64")
    parser.add_argument("--sessions", type=int, default=1000, help="sessions held open for the memory figure")
    parser.add_argument("--no-http", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="synthenv-bench-out-") as out:
        t = time.perf_counter()
        bundle, summary = build_bundle(args.domain, args.rows, Path(out))
        built = round(time.perf_counter() - t, 1)
        result: dict[str, Any] = {"domain": args.domain, "rows": summary["rows"], "tools": summary["tools"],
                                  "tasks": summary["tasks"], "build_seconds": built, "cpus": os.cpu_count(),
                                  "in_process": in_process(bundle, args.repeats)}
        if not args.no_http:
            result["http"] = over_http(bundle, args.seconds, [int(c) for c in args.concurrency.split(",")],
                                       args.sessions)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "runtime_bench.json").write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    _print(result)


def _print(r: dict[str, Any]) -> None:
    ip = r["in_process"]
    print(f"{r['domain']}: {r['rows']} rows, {r['tools']} tools, {r['tasks']} tasks, "
          f"state {ip['state_bytes'] / 1e6:.1f} MB (built in {r['build_seconds']} s)")
    for name, target in (("reset", 2.0), ("step", 1.0), ("verify", 2.0)):
        s = ip[name]
        verdict = "meets" if s["p50_ms"] <= target else "misses"
        print(f"  in process {name:<6} p50 {s['p50_ms']:8.3f} ms  p99 {s['p99_ms']:8.3f} ms  "
              f"({verdict} p50 <= {target:g} ms)")
    if "http" in r:
        for run in r["http"]["throughput"]:
            print(f"  http {run['clients']:>3} clients: {run['steps_per_s']:8.1f} steps/s  "
                  f"p50 {run['latency']['p50_ms']:.2f} ms  p99 {run['latency']['p99_ms']:.2f} ms  5xx {run['server_errors']}")
        m = r["http"]["memory"]
        print(f"  memory: {m['sessions']} sessions open, server RSS {m['rss_mb']} MB "
              f"(idle {m['rss_idle_mb']} MB, {m['per_session_kb']} KB per session; target 4096 MB)")


if __name__ == "__main__":
    main()
