"""How often a world has a top level: level-5 tasks per catalog domain and seed, and the empty ones.

A curriculum that climbs to level 5 needs level-5 tasks in the world it trains on. This builds every
catalog domain at the given seeds and scale (no Prefect, no LLM) and counts the ``case`` and
``sweep`` tasks each bundle ships, with the reasons the two families' candidates were dropped in
the worlds where none shipped.

    python benchmarks/top_level_bench.py                      # seeds 0-2, scale 1, table to stdout
    python benchmarks/top_level_bench.py --seeds 0 1 --scale 2 --json out.json

Run from a checkout (``PYTHONPATH=.``) to measure that checkout's code.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from pipeline.jobs.steps import Inputs, generate
from pipeline.world.blueprint import list_domains

TOP = ("case", "sweep", "choice")


def measure(domain: str, seed: int, scale: float) -> dict[str, Any]:
    """One world's level-5 tasks by family, and its dropped candidates' reasons."""
    tmp = Path(tempfile.mkdtemp(prefix="top-level-"))
    try:
        summary = generate(Inputs(domain=domain, seed=seed, scale=scale), tmp / "out", tmp / "work")
        path = Path(summary["path"])
        tasks = [json.loads(line) for line in (path / "tasks.jsonl").read_text().splitlines()]
        manifest = json.loads((path / "manifest.json").read_text())
        top = Counter(t["family"] for t in tasks if t["level"] == 5)
        kinds = Counter(r["kind"] for r in manifest["policy_rules"]["rules"]) if manifest.get("policy_rules") else {}
        return {
            "domain": domain,
            "seed": seed,
            "tasks": len(tasks),
            **{family: top[family] for family in TOP},
            # The late line: where the policy has one, the level-5 tasks whose total it changes, and
            # the choices whose pick it changes (the usual fee would pick another record).
            "late_lines": kinds.get("late", 0),
            "late_tasks": sum(t["level"] == 5 and "usual_fee_answer" in t["knobs"] for t in tasks),
            "late_picks": sum("late" in (t["knobs"].get("wrong_picks") or {}) for t in tasks),
            "dropped": manifest["counts"]["dropped"],
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--domains", nargs="*", help="default: every catalog domain")
    parser.add_argument("--json", type=Path, help="write every row here")
    args = parser.parse_args()
    load = os.getloadavg()
    started = time.perf_counter()
    rows = [measure(d, s, args.scale) for s in args.seeds for d in (args.domains or list_domains())]
    empty = [r for r in rows if not any(r[f] for f in TOP)]
    print(f"scale {args.scale}, seeds {args.seeds}, {len(rows)} worlds, {time.perf_counter() - started:.0f} s")
    print(f"load average at start {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, at end {os.getloadavg()[0]:.1f}")
    print(
        f"level-5 tasks: {sum(r[f] for r in rows for f in TOP)} ("
        + ", ".join(f"{f} {sum(r[f] for r in rows)}" for f in TOP)
        + ")"
    )
    print(f"worlds with no level-5 task: {len(empty)} of {len(rows)}")
    print(
        f"late lines: {sum(r['late_lines'] for r in rows)} in {sum(r['late_lines'] > 0 for r in rows)} worlds; "
        f"level-5 tasks whose total the late line changes: {sum(r['late_tasks'] for r in rows)}; "
        f"choices whose pick it changes: {sum(r['late_picks'] for r in rows)}"
    )
    print(f"\ncells: {' + '.join(TOP)}")
    print("\n| domain | " + " | ".join(f"seed {s}" for s in args.seeds) + " |")
    print("|---|" + "---:|" * len(args.seeds))
    by = {(r["domain"], r["seed"]): r for r in rows}
    for domain in sorted({r["domain"] for r in rows}):
        cells = [" + ".join(str(by[domain, s][f]) for f in TOP) for s in args.seeds]
        print(f"| {domain} | " + " | ".join(cells) + " |")
    for r in empty:
        reasons = {k: v for k, v in r["dropped"].items() if k.startswith(("no_", "domain_", "table_", "total_"))}
        print(f"empty: {r['domain']} {r['seed']}: {reasons}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
