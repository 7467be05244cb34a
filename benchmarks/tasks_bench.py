"""Task generation and verification figures per domain (step 4).

For each domain: build schema, state and tools, generate and prove the tasks, then
report tasks generated, candidates dropped by reason, the mean reference-solution
length per level, the time generation took, and the latency of one verification
(``Environment.verify`` on a session after the gold replay: p50/p99 over every task,
repeated).

    python benchmarks/tasks_bench.py                                   # the three starter domains
    python benchmarks/tasks_bench.py --domains online_store airline --per-family 10

Results are also written as JSON under ``benchmarks/results/tasks_bench.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline import Environment  # noqa: E402
from pipeline.steps import Inputs, generate  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
DEFAULT_DOMAINS = ("online_store", "clinic_appointments", "library_loans")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench_domain(domain: str, seed: int, per_family: int, repeats: int, out: Path) -> dict[str, Any]:
    summary = generate(Inputs(domain=domain, seed=seed, tasks_per_family=per_family), out, out / "work")
    env = Environment.from_bundle(summary["path"])
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
                raise RuntimeError(f"{domain} {task.id}: gold replay scored {verdict['reward']}")
    env.close()
    figures = env.bundle.manifest["counts"]["task_figures"]
    return {
        "domain": domain,
        "seed": seed,
        "tasks": summary["tasks"],
        "candidates": env.bundle.manifest["counts"]["candidates"],
        "dropped": summary["dropped"],
        "tasks_seconds": summary["seconds"]["tasks"],
        "reference_calls_per_level": figures["reference_calls"]["per_level"],
        "instruction_diversity": figures["instruction_diversity"],
        "verify_ms_p50": round(statistics.median(latencies), 3),
        "verify_ms_p99": round(_percentile(latencies, 0.99), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--domains", nargs="+", default=list(DEFAULT_DOMAINS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-family", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=20, help="verifications timed per task")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for domain in args.domains:
            row = bench_domain(domain, args.seed, args.per_family, args.repeats, Path(tmp) / domain)
            rows.append(row)
            levels = " ".join(f"L{k}={v:g}" for k, v in row["reference_calls_per_level"].items())
            dropped = ", ".join(f"{k}: {v}" for k, v in row["dropped"].items()) or "none"
            print(f"{domain}: {row['tasks']} tasks of {row['candidates']} candidates in {row['tasks_seconds']} s; "
                  f"dropped {dropped}")
            print(f"  mean reference calls {levels}; verify p50 {row['verify_ms_p50']} ms, "
                  f"p99 {row['verify_ms_p99']} ms")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "tasks_bench.json").write_text(json.dumps(rows, indent=2, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
