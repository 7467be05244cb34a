"""Start-up time of the command line: whole-process runs, interleaved, median of N.

Each command runs as the ``synthenv`` entry point does (``from pipeline.cli.main import main;
main()``) in a fresh interpreter, for this checkout and any ``--code DIR`` (another checkout,
e.g. ``git archive`` of main, so before and after share one run and one load), round-robin so
a load spike hits every variant alike. ``python -c pass`` is the floor. ``domains (cold
index)`` points ``SYNTHENV_CACHE_DIR`` at an empty directory each run, so the catalog index
is rebuilt (every blueprint parsed); the other rows run with it cached, as a second call does.
The child's CPU time (user + system) is reported beside the wall time: on a loaded machine
it is the closer estimate of what an idle one takes.

Bytecode: ``--bytecode cached`` (the default) gives the children a bytecode cache of their own
(``PYTHONPYCACHEPREFIX``, a temporary directory, filled by the warm-up run), as an installed
package has (pip compiles it at install); ``--bytecode none`` sets ``PYTHONDONTWRITEBYTECODE=1``
and no cache directory, so the ``__pycache__`` already there (the interpreter's standard library)
is read and nothing is written: every module without one is compiled from source on every run,
as for a virtualenv installed without bytecode and run with ``PYTHONDONTWRITEBYTECODE`` set.
Either way the caller's own setting does not decide it silently.

    python benchmarks/startup_bench.py --runs 10 --code /tmp/before
    python benchmarks/startup_bench.py --runs 10 --code /tmp/before --bytecode none

Prints a table (median and min ms, load average) and writes ``benchmarks/results/startup_bench.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).absolute().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
COMMANDS: dict[str, list[str] | None] = {
    "python -c pass": None,
    "synthenv --help": ["--help"],
    "synthenv domains": ["domains"],
    "synthenv domains --json": ["domains", "--json"],
    "synthenv domains (cold index)": ["domains"],
}


def _argv(args: list[str] | None) -> list[str]:
    if args is None:
        return [sys.executable, "-c", "pass"]
    code = f"import sys; sys.argv = ['synthenv', *{args!r}]; from pipeline.cli.main import main; main()"
    return [sys.executable, "-c", code]


def run_once(code: Path, name: str, cache: Path, bytecode: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child: user + system) of one run; ``bytecode``: the
    environment variables that set where its bytecode cache is (see the module docstring)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    env.update(bytecode)
    env.update({"PYTHONPATH": str(code), "SYNTHENV_CACHE_DIR": str(cache)})
    if name.endswith("(cold index)"):
        env["SYNTHENV_CACHE_DIR"] = tempfile.mkdtemp(prefix="synthenv-startup-")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(_argv(COMMANDS[name]), cwd=code, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def bytecode_env(mode: str, directory: Path) -> dict[str, str]:
    """``cached``: a bytecode cache in ``directory``, written by the first run and read by the rest;
    ``none``: no bytecode written, only the ``__pycache__`` directories already there read."""
    if mode == "none":
        return {"PYTHONDONTWRITEBYTECODE": "1"}
    return {"PYTHONPYCACHEPREFIX": str(directory)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--code", type=Path, action="append", default=[], help="another checkout to measure too")
    parser.add_argument(
        "--bytecode",
        choices=("cached", "none"),
        default="cached",
        help="cached: compiled once, as installed; none: nothing written, what has no bytecode compiled each run",
    )
    args = parser.parse_args()
    codes = [ROOT, *args.code]
    samples: dict[tuple[str, str], list[tuple[float, float]]] = {(str(c), n): [] for c in codes for n in COMMANDS}
    loads = []
    with tempfile.TemporaryDirectory(prefix="synthenv-startup-cache-") as cache:
        bytecode = bytecode_env(args.bytecode, Path(cache) / "pycache")
        for code in codes:  # warm: the catalog index written and (with --bytecode cached) the bytecode compiled once
            for name in COMMANDS:
                run_once(code, name, Path(cache) / code.name, bytecode)
        for _ in range(args.runs):
            loads.append(os.getloadavg()[0])
            for name in COMMANDS:
                for code in codes:
                    samples[(str(code), name)].append(run_once(code, name, Path(cache) / code.name, bytecode))
    rows: list[dict[str, Any]] = [
        {
            "code": code,
            "command": name,
            "median_ms": round(statistics.median(w for w, _ in s) * 1000, 1),
            "min_ms": round(min(w for w, _ in s) * 1000, 1),
            "cpu_median_ms": round(statistics.median(c for _, c in s) * 1000, 1),
            "runs": len(s),
        }
        for (code, name), s in samples.items()
    ]
    load = f"{min(loads):.2f}-{max(loads):.2f}"
    print(f"load average (1 min) during the runs: {load}; bytecode: {args.bytecode}")
    for r in rows:
        print(
            f"{r['command']:<32} {r['median_ms']:8.1f} ms median {r['min_ms']:8.1f} ms min "
            f"{r['cpu_median_ms']:8.1f} ms CPU  {r['code']}"
        )
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = {"rows": rows, "load_average_1min": load, "cpus": os.cpu_count(), "bytecode": args.bytecode}
    (RESULTS / "startup_bench.json").write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
