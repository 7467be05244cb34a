"""Scorer sweep: CPU time to score a 1 MiB adversarial answer, every family × level.

A policy can answer with a megabyte, and one scorer that is quadratic in the answer's
length (or a regex that backtracks) stalls a whole training batch. This times every shape
of :data:`generators.soundness.HUGE_SHAPES` (digits, letters, nested and open brackets,
repeated separators and assignments, unicode, stacked decorations, the gold answer
repeated, noise) on the first item of every family × level (0..5), through the one
dispatcher a trainer's reward goes through (:func:`generators.scoring.score_checked`,
second readings included), and writes ``benchmarks/SCORERS.md``: the worst 10 with the
load average beside them (CPU time, best of ``--repeats`` runs, so other processes on the
machine count as little as they can).

A family is first timed at 64 KiB: one slower than the limit there is reported at that size
instead of being run at 1 MiB (a quadratic scorer would take minutes).

    .venv/bin/python benchmarks/scorer_sweep.py [--families a,b] [--repeats 3] [--out benchmarks/SCORERS.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from generators import registry  # noqa: E402
from generators.dataset import create_dataset  # noqa: E402
from generators.soundness import HUGE_BYTES, HUGE_SHAPES, TIME_LIMIT, time_huge  # noqa: E402

PROBE_BYTES = 64 * 1024
"""The size every family is tried at first."""


def sweep(names: list[str], repeats: int) -> list[dict[str, Any]]:
    """One row per family × level × shape: ``{"family", "level", "shape", "bytes", "ms", "load"}``
    (``load``: the 1-minute load average just after that family × level was timed)."""
    rows: list[dict[str, Any]] = []
    for name in names:
        family = registry.get_family(name)
        for level in range(len(family.levels)):
            item = create_dataset(family, level=level, seed=0, size=1)[0]
            probe = time_huge(family, item, size=PROBE_BYTES, repeats=1)
            size = HUGE_BYTES
            timings = probe
            if max(probe.values()) <= TIME_LIMIT:
                timings = time_huge(family, item, size=HUGE_BYTES, repeats=repeats)
            else:
                size = PROBE_BYTES
            load = os.getloadavg()[0]  # beside each timing: how busy the machine was then
            for shape, seconds in timings.items():
                rows.append(
                    {"family": name, "level": level, "shape": shape, "bytes": size, "ms": seconds * 1000, "load": load}
                )
        print(f"{name}: worst {max(r['ms'] for r in rows if r['family'] == name):.1f} ms", file=sys.stderr)
    return rows


def render(rows: list[dict[str, Any]], load: tuple[float, float, float], seconds: float, repeats: int) -> str:
    """The SCORERS.md text: the worst 10, the worst per shape, the load average and the command."""
    worst = sorted(rows, key=lambda row: -row["ms"])[:10]
    over = [row for row in rows if row["ms"] > TIME_LIMIT * 1000 or row["bytes"] != HUGE_BYTES]
    pairs = {(row["family"], row["level"]) for row in rows}
    lines = [
        "# Scorer sweep: 1 MiB adversarial answers",
        "",
        "`.venv/bin/python benchmarks/scorer_sweep.py` (this file is its output). Every shape of",
        "`generators.soundness.HUGE_SHAPES` scored on the first item of every family × level through",
        "`generators.scoring.score_checked` (what a trainer's reward goes through, second readings",
        f"included); CPU seconds of the process, best of {repeats} runs after one untimed run. Limit: "
        f"{TIME_LIMIT * 1000:.0f} ms.",
        "",
        f"- family × level pairs: {len(pairs)}; shapes: {len(HUGE_SHAPES)}; timings: {len(rows)}",
        f"- over the limit (or too slow to run at 1 MiB): {len(over)}; over 10 ms: "
        f"{sum(row['ms'] > 10 for row in rows)}",
        f"- load average (1, 5, 15 min) at the end: {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f} "
        f"on {os.cpu_count()} cores; sweep took {seconds:.0f} s; Python {platform.python_version()}",
        "",
        "## Worst 10",
        "",
        "| family | level | shape | size | ms | load (1 min) |",
        "|---|---|---|---|---|---|",
    ]
    for row in worst:
        size = "1 MiB" if row["bytes"] == HUGE_BYTES else f"{row['bytes'] // 1024} KiB"
        lines.append(
            f"| {row['family']} | {row['level']} | {row['shape']} | {size} | {row['ms']:.1f} | {row['load']:.2f} |"
        )
    lines += ["", "## Worst per shape", "", "| shape | family | level | ms |", "|---|---|---|---|"]
    for shape in HUGE_SHAPES:
        of_shape = [row for row in rows if row["shape"] == shape]
        if of_shape:
            top = max(of_shape, key=lambda row: row["ms"])
            lines.append(f"| {shape} | {top['family']} | {top['level']} | {top['ms']:.1f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", default="", help="comma-separated families (default: all)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "SCORERS.md")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    names = [name for name in args.families.split(",") if name] or list(registry.list_families())
    start = time.perf_counter()
    rows = sweep(names, args.repeats)
    text = render(rows, os.getloadavg(), time.perf_counter() - start, args.repeats)
    args.out.write_text(text, encoding="utf-8")
    print(text)
    return 1 if any(row["ms"] > TIME_LIMIT * 1000 or row["bytes"] != HUGE_BYTES for row in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
