"""Task generation, verification and exploit-library figures per domain (step 4).

For each domain: build schema, state and tools, generate and prove the tasks, then
report tasks generated, candidates dropped by reason, the mean reference-solution
length per level, the time generation took, the latency of one verification
(``Environment.verify`` on a session after the gold replay: p50/p99 over every task,
repeated; every table is checked, through the rows the session's triggers recorded),
and the cost of the exploit library per task (every registered exploit run against
every shipped task, as ``synthenv check`` does).

    python benchmarks/tasks_bench.py                                   # the three starter domains
    python benchmarks/tasks_bench.py --domains online_store --rows 10000   # a ~10k-row state
    python benchmarks/tasks_bench.py --domains online_store airline --per-family 10

Results are also written as JSON under ``benchmarks/results/tasks_bench.json`` (or
``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline import Environment  # noqa: E402
from pipeline.jobs.steps import Inputs, generate  # noqa: E402
from pipeline.tasks.exploits import REGISTRY, LibraryCounts, run_library  # noqa: E402
from pipeline.world.blueprint import load_blueprint  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
DEFAULT_DOMAINS = ("online_store", "clinic_appointments", "library_loans")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _inputs(domain: str, seed: int, per_family: int, rows: int | None) -> Inputs:
    """``rows`` is the approximate total of the state (the runtime benchmark's convention)."""
    if rows is None:
        return Inputs(domain=domain, seed=seed, tasks_per_family=per_family)
    base = sum(e.rows for e in load_blueprint(domain).entities)
    return Inputs(domain=domain, seed=seed, tasks_per_family=per_family, scale=round(rows / base, 3))


def _verify_latency(env: Environment, repeats: int) -> list[float]:
    latencies: list[float] = []
    for task in env.tasks:
        env.reset(task_id=task.id)
        for call in task.solution:
            env.step(call.model_dump())
        for _ in range(repeats):
            start = time.perf_counter()
            verdict = env.verify(task.answer)
            latencies.append((time.perf_counter() - start) * 1000)
            if verdict["reward"] != 1.0:
                raise RuntimeError(f"{task.id}: gold replay scored {verdict['reward']}")
    return latencies


def _library_cost(env: Environment) -> dict[str, Any]:
    """Every exploit against every shipped task: seconds per task, attempts, passes (must be 0)."""
    per_task: list[float] = []
    counts = LibraryCounts()
    for task in env.tasks:
        start = time.perf_counter()
        counts.add(run_library(task, env.bundle.state_bytes, env.executor))
        per_task.append((time.perf_counter() - start) * 1000)
    table = counts.as_dict()
    return {
        "exploits": len(REGISTRY),
        "library_ms_per_task_mean": round(statistics.mean(per_task), 1),
        "library_ms_per_task_p50": round(statistics.median(per_task), 1),
        "library_ms_per_task_p99": round(_percentile(per_task, 0.99), 1),
        "library_attempts": sum(v["attempts"] for v in table.values()),
        "library_passed": {k: v["passed"] for k, v in table.items() if v["passed"]},
        "gold_passed": counts.gold_passed,
    }


def bench_domain(
    domain: str, seed: int, per_family: int, repeats: int, out: Path, rows: int | None = None
) -> dict[str, Any]:
    summary = generate(_inputs(domain, seed, per_family, rows), out, out / "work")
    env = Environment.from_bundle(summary["path"])
    latencies = _verify_latency(env, repeats)
    env.close()
    figures = env.bundle.manifest["counts"]["task_figures"]
    return {
        "domain": domain,
        "seed": seed,
        "rows": summary["rows"],
        "tasks": summary["tasks"],
        "candidates": env.bundle.manifest["counts"]["candidates"],
        "dropped": summary["dropped"],
        "tasks_seconds": summary["seconds"]["tasks"],
        "reference_calls_per_level": figures["reference_calls"]["per_level"],
        "instruction_diversity": figures["instruction_diversity"],
        "verify_ms_p50": round(statistics.median(latencies), 3),
        "verify_ms_p99": round(_percentile(latencies, 0.99), 3),
        **_library_cost(env),
        "loadavg": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--domains", nargs="+", default=list(DEFAULT_DOMAINS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-family", type=int, default=6)
    parser.add_argument("--rows", type=int, default=None, help="approximate rows in the state (default: as written)")
    parser.add_argument("--repeats", type=int, default=20, help="verifications timed per task")
    parser.add_argument("--out", type=Path, default=RESULTS / "tasks_bench.json")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for domain in args.domains:
            row = bench_domain(domain, args.seed, args.per_family, args.repeats, Path(tmp) / domain, args.rows)
            rows.append(row)
            levels = " ".join(f"L{k}={v:g}" for k, v in row["reference_calls_per_level"].items())
            dropped = ", ".join(f"{k}: {v}" for k, v in row["dropped"].items()) or "none"
            print(
                f"{domain}: {row['rows']} rows, {row['tasks']} tasks of {row['candidates']} candidates in "
                f"{row['tasks_seconds']} s; dropped {dropped}"
            )
            print(
                f"  mean reference calls {levels}; verify p50 {row['verify_ms_p50']} ms, p99 {row['verify_ms_p99']} ms"
            )
            print(
                f"  exploit library ({row['exploits']} exploits): {row['library_ms_per_task_mean']} ms per task "
                f"(p50 {row['library_ms_per_task_p50']}, p99 {row['library_ms_per_task_p99']}), "
                f"{row['library_attempts']} attempts, passed {row['library_passed'] or 'none'}; "
                f"gold {row['gold_passed']}/{row['tasks']}; load average {row['loadavg']:.2f}"
            )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=2, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
