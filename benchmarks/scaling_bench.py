"""The whole generation pipeline from a thousand to a million rows: seconds and peak RSS per step.

For each size, one fresh process runs the five steps exactly as
``synthenv generate --random --seed S --rows N --no-prefect`` does (schema, populate, tools
with every probe, tasks with every proof and the whole exploit library, package) and
records, per step, wall seconds, CPU seconds and the peak resident memory reached during
the step (sampled from ``/proc/self/statm`` every 20 ms). The slope of each step is the
least-squares exponent of seconds against rows over the sizes measured (1.0 is linear),
and the last table gives the whole pipeline against population time at each size.

CPU seconds are the figure to compare on a shared machine (wall time includes waiting for
a core); the load average is printed beside every run. ``--compare TREE`` runs another
checkout (for instance a worktree of main) on the same sizes, alternating before and
after for each size, so both sides see the same load.

    python benchmarks/scaling_bench.py                                 # 1k, 10k, 100k, 1M rows
    python benchmarks/scaling_bench.py --rows 1000 10000               # a subset
    python benchmarks/scaling_bench.py --compare ../main --timeout 1800  # before/after, side by side
    python benchmarks/scaling_bench.py --markdown benchmarks/SCALING.md  # also rewrite the tables there
    python benchmarks/scaling_bench.py --worlds random:1 random:2 online_store:0 hotel_booking:0  # one table each

Results are written to ``benchmarks/results/scaling_bench.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
STEPS = ("schema", "populate", "tools", "tasks", "package")
MARK = "<!-- scaling tables: written by benchmarks/scaling_bench.py --markdown -->"


# -- the child: one size, one process ------------------------------------------------------------


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:  # not Linux: the process peak so far
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class _Peak:
    """Samples RSS in a thread; ``take()`` returns the peak since the last call."""

    def __init__(self) -> None:
        self._peak = _rss_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            self._peak = max(self._peak, _rss_mb())

    def take(self) -> float:
        peak, self._peak = max(self._peak, _rss_mb()), _rss_mb()
        return round(peak, 1)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def child(tree: Path, rows: int, world: str) -> dict[str, Any]:
    """One size of one world (``random:SEED`` or ``DOMAIN:SEED``) in this process."""
    sys.path.insert(0, str(tree))
    from pipeline.jobs import steps
    from pipeline.world.variants import pick_domain

    name, seed = _world(world)
    if name == "random":
        inputs = steps.Inputs(domain=pick_domain(seed), seed=seed, rows=rows, variant=True)
    else:
        inputs = steps.Inputs(domain=name, seed=seed, rows=rows)
    out: dict[str, Any] = {"steps": {}}
    peak = _Peak()
    with tempfile.TemporaryDirectory(prefix="scaling-bench-") as work:

        def step(name: str, fn: Any, *args: Any) -> Any:
            peak.take()
            wall, cpu = time.perf_counter(), time.process_time()
            result = fn(*args)
            out["steps"][name] = {
                "wall_s": round(time.perf_counter() - wall, 3),
                "cpu_s": round(time.process_time() - cpu, 3),
                "peak_rss_mb": peak.take(),
            }
            print(f"  {name}: {out['steps'][name]}", file=sys.stderr, flush=True)
            return result

        try:  # the collector's pacing the recipe runs its steps under (a tree older than it has none)
            from pipeline.jobs.recipe import build_collection
        except ImportError:
            from contextlib import nullcontext as build_collection

        with build_collection():
            schema = step("schema", steps.schema_step, inputs)
            populated = step("populate", steps.populate_step, inputs, schema, Path(work))
            toolset = step("tools", steps.tools_step, schema, populated.path, inputs.clock)
            taskset = step("tasks", steps.tasks_step, inputs, schema, toolset, populated.path)
            bundle = step(
                "package", steps.package_step, inputs, Path(work) / "out", schema, populated, toolset, taskset
            )
        out.update(
            domain=inputs.domain,
            largest_table_rows=max(populated.rows.values()),
            total_rows=sum(populated.rows.values()),
            tables=len(populated.rows),
            tools=len(toolset.tools),
            tasks=len(taskset.tasks),
            digest=bundle.digest,
            state_mb=round(populated.path.stat().st_size / 2**20, 1),
        )
    peak.stop()
    return out


def _world(spec: str) -> tuple[str, int]:
    """``random:5`` -> ("random", 5): a random variant of that seed; ``online_store:0`` a catalog domain."""
    name, sep, seed = spec.partition(":")
    if not sep or not name or not seed.isdigit():
        raise ValueError(f"a world is random:SEED or DOMAIN:SEED, got {spec!r}")
    return name, int(seed)


# -- the parent: sizes, comparison, tables -------------------------------------------------------


def _run(tree: Path, rows: int, world: str, timeout: float | None) -> dict[str, Any]:
    load = os.getloadavg()
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        str(rows),
        "--tree",
        str(tree),
        "--world",
        world,
    ]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {
            "rows": rows,
            "world": world,
            "tree": str(tree),
            "load": [round(x, 2) for x in load],
            "timeout_s": timeout,
        }
    if proc.returncode != 0:
        raise RuntimeError(f"{tree} at {rows} rows failed:\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result.update(
        rows=rows,
        world=world,
        tree=str(tree),
        load=[round(x, 2) for x in load],
        process_s=round(time.perf_counter() - start, 2),
    )
    return result


def slope(points: list[tuple[int, float]]) -> float | None:
    """Least-squares exponent b of seconds = a * rows^b (1.0 is linear)."""
    pts = [(math.log(r), math.log(max(s, 1e-3))) for r, s in points if s is not None]
    if len(pts) < 2:
        return None
    mx, my = sum(x for x, _ in pts) / len(pts), sum(y for _, y in pts) / len(pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return round(sum((x - mx) * (y - my) for x, y in pts) / den, 2) if den else None


def _cells(run: dict[str, Any] | None, step: str) -> list[str]:
    """Wall s, CPU s and peak RSS MB of one step (or the total) of one run."""
    if run is None:
        return ["–"] * 3
    if "timeout_s" in run:
        return [f"> {run['timeout_s']:,.0f} (whole run timed out)", "–", "–"]
    if step == "total":
        peak = max(s["peak_rss_mb"] for s in run["steps"].values())
        return [f"{_total(run, 'wall_s'):,.2f}", f"{_total(run, 'cpu_s'):,.2f}", f"{peak:,.0f}"]
    s = run["steps"][step]
    return [f"{s['wall_s']:,.2f}", f"{s['cpu_s']:,.2f}", f"{s['peak_rss_mb']:,.0f}"]


def _same(run: dict[str, Any], other: dict[str, Any] | None) -> str:
    if other is None or "digest" not in other:
        return "–"
    return "yes" if other["digest"] == run["digest"] else "**no**"


def _total(run: dict[str, Any], key: str) -> float:
    return sum(s[key] for s in run["steps"].values())


def markdown(after: list[dict[str, Any]], before: list[dict[str, Any]] | None) -> str:
    lines: list[str] = []
    by_rows = {r["rows"]: r for r in before or []}
    sides = [("after", after)] + ([("before", before)] if before else [])
    for step in (*STEPS, "total"):
        lines += [f"### {step}", ""]
        head = "| rows | load (1 min) | wall s | CPU s | peak RSS MB |"
        rule = "|---:|---:|---:|---:|---:|"
        if before:
            head += " before: load | wall s | CPU s | peak RSS MB |"
            rule += "---:|---:|---:|---:|"
        lines += [head, rule]
        for run in after:
            cells = [f"{run['rows']:,}", f"{run['load'][0]:.1f}", *_cells(run, step)]
            if before:
                other = by_rows.get(run["rows"])
                cells += [f"{other['load'][0]:.1f}" if other else "–", *_cells(other, step)]
            lines.append("| " + " | ".join(cells) + " |")
        slopes = []
        for name, runs in sides:
            done = [r for r in runs if "timeout_s" not in r]
            for key in ("wall_s", "cpu_s"):
                pts = [(r["rows"], _total(r, key) if step == "total" else r["steps"][step][key]) for r in done]
                slopes.append(f"{name} {key.split('_')[0]} {slope(pts)}")
        lines += ["", "Slope (seconds ∝ rows^b): " + ", ".join(slopes) + ".", ""]
    lines += ["### whole pipeline against population", ""]
    lines += [
        "| rows | tasks | state MB | total wall / populate wall | total CPU / populate CPU | digest | same as before |",
        "|---:|---:|---:|---:|---:|---|---|",
    ]
    for run in after:
        if "timeout_s" in run:
            continue
        pop = run["steps"]["populate"]
        lines.append(
            f"| {run['rows']:,} | {run['tasks']} | {run['state_mb']:,} | "
            f"{_total(run, 'wall_s') / pop['wall_s']:.2f}× | {_total(run, 'cpu_s') / pop['cpu_s']:.2f}× | "
            f"`{run['digest'][:19]}…` | {_same(run, by_rows.get(run['rows']))} |"
        )
    return "\n".join(lines) + "\n"


def worlds_markdown(after: list[dict[str, Any]]) -> str:
    """Several worlds: per world, one row per size with every step's CPU seconds, the whole run's wall
    seconds and peak RSS, and the whole pipeline against population; then each step's exponent."""
    lines: list[str] = []
    for world in dict.fromkeys(r.get("world", "random") for r in after):
        runs = [r for r in after if r.get("world", "random") == world]
        done = [r for r in runs if "timeout_s" not in r]
        domain = done[0]["domain"] if done else "?"
        lines += [f"### {world} ({domain})", ""]
        steps = " | ".join(f"{s} CPU s" for s in STEPS)
        lines += [
            f"| rows | load (1 min) | {steps} | total CPU s | total wall s | peak RSS MB | state MB | "
            "total CPU / populate CPU |",
            "|---:|---:|" + "---:|" * (len(STEPS) + 5),
        ]
        for run in runs:
            if "timeout_s" in run:
                lines.append(f"| {run['rows']:,} | {run['load'][0]:.1f} | timed out after {run['timeout_s']:,.0f} s |")
                continue
            cpu = [f"{run['steps'][s]['cpu_s']:,.2f}" for s in STEPS]
            peak = max(s["peak_rss_mb"] for s in run["steps"].values())
            ratio = _total(run, "cpu_s") / max(run["steps"]["populate"]["cpu_s"], 1e-3)
            lines.append(
                f"| {run['rows']:,} | {run['load'][0]:.1f} | {' | '.join(cpu)} | {_total(run, 'cpu_s'):,.2f} | "
                f"{_total(run, 'wall_s'):,.2f} | {peak:,.0f} | {run['state_mb']:,} | {ratio:.2f}× |"
            )
        exps = [f"{s} {slope([(r['rows'], r['steps'][s]['cpu_s']) for r in done])}" for s in STEPS]
        exps.append(f"total {slope([(r['rows'], _total(r, 'cpu_s')) for r in done])}")
        lines += ["", "Exponent b of CPU seconds ∝ rows^b (1.0 is linear): " + ", ".join(exps) + ".", ""]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000, 10_000, 100_000, 1_000_000])
    ap.add_argument("--seed", type=int, default=1, help="the random variant's seed (without --worlds)")
    ap.add_argument(
        "--worlds",
        nargs="+",
        help="worlds to measure, each random:SEED or DOMAIN:SEED (default: random:--seed); several give one "
        "table per world",
    )
    ap.add_argument("--compare", type=Path, help="another checkout to run on the same sizes (before)")
    ap.add_argument("--timeout", type=float, help="seconds allowed per run (a run past it is reported as a timeout)")
    ap.add_argument("--compare-max-rows", type=int, help="skip the other checkout above this many rows")
    ap.add_argument("--markdown", type=Path, help="rewrite the tables in this file (below its marker line)")
    ap.add_argument("--render", action="store_true", help="only print (and --markdown) the tables of the last results")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--world", help=argparse.SUPPRESS)
    ap.add_argument("--tree", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        print(json.dumps(child(args.tree.resolve(), args.child, args.world or f"random:{args.seed}")))
        return
    worlds = args.worlds or [f"random:{args.seed}"]
    for spec in worlds:
        _world(spec)  # a bad spec fails before any run
    if len(worlds) > 1 and args.compare is not None:
        ap.error("--compare measures one world; give at most one with --worlds")
    if args.render:
        saved = json.loads((RESULTS / "scaling_bench.json").read_text(encoding="utf-8"))
        _publish(saved["after"], saved["before"] or [], args.markdown)
        return
    after: list[dict[str, Any]] = []
    before: list[dict[str, Any]] = []
    for rows in args.rows:  # each size over every world before the next size: the cheap figures first
        for world in worlds:
            if args.compare is not None and (args.compare_max_rows is None or rows <= args.compare_max_rows):
                before.append(_run(args.compare.resolve(), rows, world, args.timeout))
                print(f"before {world} {rows:,}: {json.dumps(before[-1])}", file=sys.stderr, flush=True)
            after.append(_run(ROOT, rows, world, args.timeout))
            print(f"after  {world} {rows:,}: {json.dumps(after[-1])}", file=sys.stderr, flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "scaling_bench.json").write_text(
        json.dumps({"after": after, "before": before or None}, indent=2) + "\n", encoding="utf-8"
    )
    _publish(after, before, args.markdown)


def _publish(after: list[dict[str, Any]], before: list[dict[str, Any]], target: Path | None) -> None:
    several = len({r.get("world", "random") for r in after}) > 1
    text = worlds_markdown(after) if several else markdown(after, before or None)
    print(text)
    if target is not None:
        page = target.read_text(encoding="utf-8") if target.exists() else MARK + "\n"
        target.write_text(page.split(MARK)[0] + MARK + "\n\n" + text, encoding="utf-8")


if __name__ == "__main__":
    main()
