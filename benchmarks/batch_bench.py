"""Throughput of ``synthenv batch``: without Prefect, with 1 and 2 threads, on Dask, and a resumed run.

Every run is a fresh ``synthenv batch --json`` process with its own registry and
PREFECT_HOME (so no cache is shared between runs, except for the resumed run, which
reuses the interrupted run's registry, work directories and Prefect results on purpose).

    .venv/bin/python benchmarks/batch_bench.py                 # 20 environments: plain, 1 and 2 threads, resume
    .venv/bin/python benchmarks/batch_bench.py --dask          # also a LocalCluster of 2 processes
                                                               # (starts a Prefect server on loopback)
    .venv/bin/python benchmarks/batch_bench.py --runs resume   # re-measure one part, keep the others

Writes ``benchmarks/results/batch_bench.json`` and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _env(home: Path, api_url: str | None = None) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)  # Prefect's temporary server hangs until its timeout without it
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1"}
    env.pop("PREFECT_API_URL", None)
    if api_url:
        env["PREFECT_API_URL"] = api_url
    return env


def _batch_args(n: int, seed: int, registry: Path, extra: list[str]) -> list[str]:
    return [
        str(BIN / "synthenv"),
        "batch",
        "--n",
        str(n),
        "--seed",
        str(seed),
        "--registry",
        str(registry),
        "--json",
        *extra,
    ]


def run_batch(
    n: int, seed: int, registry: Path, home: Path, extra: list[str], api_url: str | None = None, timeout: float = 3600
) -> dict[str, Any]:
    """One CLI run; returns wall seconds, the flow's own seconds and the counts."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        _batch_args(n, seed, registry, extra),
        env=_env(home, api_url),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    wall = time.perf_counter() - start
    try:
        summary = json.loads(out)
    except json.JSONDecodeError:
        raise RuntimeError(f"batch failed ({proc.returncode}):\n{err[-3000:]}") from None
    built = summary["counts"]["published"] + summary["counts"]["unchanged"]
    return {
        "wall_seconds": round(wall, 1),
        "flow_seconds": summary["seconds"],
        "counts": summary["counts"],
        "built_per_minute": round(built * 60 / summary["seconds"], 2) if summary["seconds"] else 0.0,
        "step_seconds": summary["step_seconds"],
    }


def interrupted_then_resumed(n: int, seed: int, root: Path, workers: int) -> dict[str, Any]:
    """Kill a run (SIGKILL, whole process group) once half the environments are published, then re-run."""
    registry, home = root / "registry", root / "home"
    root.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        _batch_args(n, seed, registry, ["--workers", str(workers)]),
        env=_env(home),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    start = time.perf_counter()
    refs = registry / "refs"
    try:
        while proc.poll() is None:
            published = len(list(refs.glob("*/*.json"))) if refs.is_dir() else 0
            if published >= n // 2:
                break
            time.sleep(0.5)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    killed_after = time.perf_counter() - start
    published = len(list(refs.glob("*/*.json")))
    resumed = run_batch(n, seed, registry, home, ["--workers", str(workers)])
    return {"killed_after_seconds": round(killed_after, 1), "published_before_kill": published, "resumed": resumed}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(home: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    proc = subprocess.Popen(
        [str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        env=_env(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/api"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2):
                return proc, url
        except OSError:
            time.sleep(1)
    os.killpg(proc.pid, signal.SIGKILL)
    raise RuntimeError("prefect server did not start")


RUNS = {
    "plain": ("plain (no Prefect), sequential", ["--no-prefect"]),
    "threads1": ("Prefect, 1 worker thread", ["--workers", "1"]),
    "threads2": ("Prefect, 2 worker threads", ["--workers", "2"]),
    "dask": ("Prefect + Dask LocalCluster, 2 worker processes", ["--workers", "2", "--dask-address", "local"]),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--runs",
        default="plain,threads1,threads2,resume",
        help="comma-separated: plain, threads1, threads2, dask, resume (dask starts a Prefect server)",
    )
    parser.add_argument("--dask", action="store_true", help="add the dask run")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "batch_bench.json")
    args = parser.parse_args()
    wanted = [r.strip() for r in args.runs.split(",") if r.strip()] + (["dask"] if args.dask else [])
    unknown = sorted(set(wanted) - set(RUNS) - {"resume"})
    if unknown:
        parser.error(f"unknown runs: {', '.join(unknown)}")
    # Runs given now replace their earlier figures; the others are kept, so parts can be re-measured alone.
    results: dict[str, Any] = json.loads(args.out.read_text()) if args.out.is_file() else {}
    if results.get("n") not in (None, args.n):
        results = {}
    results.update({"n": args.n, "seed": args.seed, "cpus": os.cpu_count()})
    with tempfile.TemporaryDirectory(prefix="synthenv-batch-bench-") as tmp:
        t = Path(tmp)
        for key in (k for k in RUNS if k in wanted):
            label, extra = RUNS[key]
            load = [round(x, 2) for x in os.getloadavg()]
            if key == "dask":
                server, url = start_server(t / "server-home")
                try:
                    results[label] = run_batch(args.n, args.seed, t / key / "registry", t / key / "home", extra, url)
                finally:
                    os.killpg(server.pid, signal.SIGTERM)
                    server.wait(timeout=30)
            else:
                results[label] = run_batch(args.n, args.seed, t / key / "registry", t / key / "home", extra)
            results[label]["load_average_before"] = load
            print(label, results[label], file=sys.stderr)
        if "resume" in wanted:
            load = [round(x, 2) for x in os.getloadavg()]
            results["resume (2 threads)"] = {
                **interrupted_then_resumed(args.n, args.seed, t / "resume", 2),
                "load_average_before": load,
            }
            print("resume", results["resume (2 threads)"], file=sys.stderr)
    plain, one = results.get(RUNS["plain"][0]), results.get(RUNS["threads1"][0])
    if plain and one:
        results["prefect_overhead_seconds_per_env"] = round((one["flow_seconds"] - plain["flow_seconds"]) / args.n, 2)
        results["prefect_fixed_startup_seconds"] = round(one["wall_seconds"] - one["flow_seconds"], 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print("| run | built | failed | flow s | wall s | envs/min |\n|---|---:|---:|---:|---:|---:|")
    for label, r in results.items():
        if isinstance(r, dict) and "flow_seconds" in r:
            c = r["counts"]
            print(
                f"| {label} | {c['published'] + c['unchanged']} | {c['failed']} | {r['flow_seconds']:.1f} | "
                f"{r['wall_seconds']:.1f} | {r['built_per_minute']:.1f} |"
            )


if __name__ == "__main__":
    main()
