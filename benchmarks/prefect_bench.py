"""Whole-process cost of running `synthenv generate` through Prefect: cold (Prefect's temporary
server), warm (`synthenv prefect start` running: its server and its warm flow runner) and without
Prefect, interleaved A B C A B C.

    .venv/bin/python benchmarks/prefect_bench.py --repeats 2
    .venv/bin/python benchmarks/prefect_bench.py --repeats 5 --modes no-prefect,warm,warm-in-process

Prints one line per run with the load average beside it, and a median per mode; stops the
warm server it started. Uses its own PREFECT_HOME and output directory under /tmp.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SYNTHENV = [sys.executable, "-m", "pipeline.cli.main"]


def run(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([*SYNTHENV, *args], env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--port", type=int, default=4287)
    parser.add_argument(
        "--modes",
        default="no-prefect,warm,cold",
        help="comma separated, run in this order each repeat: no-prefect, warm, warm-in-process, cold (slow)",
    )
    opts = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="synthenv-prefect-bench-"))
    generate = ["generate", "--domain", "online_store", "--seed", "0"]
    base = {**os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1"}
    base.pop("PREFECT_API_URL", None)
    warm_env = {**base, "PREFECT_HOME": str(root / "warm-home")}
    started = run(["prefect", "start", "--port", str(opts.port)], warm_env)
    print(f"prefect start: {started:.1f} s (load {os.getloadavg()[0]:.1f})")
    times: dict[str, list[float]] = {mode: [] for mode in opts.modes.split(",")}
    unknown = set(times) - {"no-prefect", "warm", "warm-in-process", "cold"}
    if unknown:
        parser.error(f"unknown modes: {', '.join(sorted(unknown))}")
    try:
        for i in range(opts.repeats):
            for mode in times:
                out = ["--out", str(root / f"out-{mode}-{i}")]  # each run writes its bundle
                if mode == "no-prefect":
                    seconds = run([*generate, *out, "--no-prefect"], {**base, "PREFECT_HOME": str(root / "np-home")})
                elif mode == "warm":
                    seconds = run([*generate, *out], warm_env)
                elif mode == "warm-in-process":
                    # any SYNTHENV_ setting the runner was not started with makes the command run
                    # the flow itself against the warm server: the path before the runner existed
                    seconds = run([*generate, *out], {**warm_env, "SYNTHENV_BENCH_IN_PROCESS": "1"})
                else:
                    seconds = run([*generate, *out], {**base, "PREFECT_HOME": str(root / f"cold-home-{i}")})
                times[mode].append(seconds)
                print(f"{mode:>10} {seconds:6.1f} s   load average {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        run(["prefect", "stop"], warm_env)
    for mode, values in times.items():
        print(f"median {mode:>10} {statistics.median(values):6.1f} s")


if __name__ == "__main__":
    main()
