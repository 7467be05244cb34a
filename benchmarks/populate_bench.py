"""Speed of step 2 (population) from ten thousand to a million rows in the largest table.

For each size: the scale that gives the largest table that many rows, then ``populate``
end to end (values, derived columns, SQLite inserts with every CHECK/UNIQUE/NOT NULL
enforced, index builds, the foreign-key check). Reports wall and CPU seconds and rows per
second, both over all tables and over the largest table. CPU time is the figure to
compare across machines: on a shared machine wall time includes waiting for a core.
Population is single-threaded (numpy draws and SQLite inserts on one core).

    python benchmarks/populate_bench.py                          # 10k, 100k, 1M on online_store
    python benchmarks/populate_bench.py --rows 10000 100000      # a subset
    python benchmarks/populate_bench.py --domain library_loans
    python benchmarks/populate_bench.py --random 17              # a random variant (seed 17)

Results are also written to ``benchmarks/results/populate_bench.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.data.populate import populate, scale_for_rows  # noqa: E402
from pipeline.world.blueprint import load_blueprint  # noqa: E402
from pipeline.world.schema import Schema, build_schema  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


def _schema(domain: str, variant: int | None) -> Schema:
    if variant is None:
        return build_schema(load_blueprint(domain))
    from pipeline.world.variants import random_schema

    return random_schema(variant)


def run(schema: Schema, rows: int, seed: int) -> dict[str, Any]:
    scale = scale_for_rows(schema, rows)
    with tempfile.TemporaryDirectory(prefix="populate-bench-") as work:
        wall, cpu = time.perf_counter(), time.process_time()
        result = populate(schema, seed, Path(work) / "state.sqlite", scale)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        size = (Path(work) / "state.sqlite").stat().st_size
    total = sum(result.rows.values())
    largest = max(result.rows.values())
    return {
        "largest_table_rows": largest,
        "total_rows": total,
        "tables": len(result.rows),
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "rows_per_s_wall": round(total / wall),
        "rows_per_s_cpu": round(total / cpu),
        "largest_rows_per_s_cpu": round(largest / cpu),
        "file_mb": round(size / 2**20, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--domain", default="online_store")
    parser.add_argument("--random", type=int, default=None, metavar="SEED", help="benchmark a random variant")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-save", action="store_true", help="do not write benchmarks/results/populate_bench.json")
    args = parser.parse_args()
    schema = _schema(args.domain, args.random)
    populate(
        schema, args.seed, Path(tempfile.mkdtemp()) / "warm.sqlite", scale_for_rows(schema, 10)
    )  # load vocabularies
    print(f"{schema.name}: {len(schema.tables)} tables")
    print(
        f"{'largest':>10} {'total rows':>11} {'wall s':>7} {'cpu s':>7} "
        f"{'rows/s (cpu)':>13} {'rows/s (wall)':>14} {'MB':>6}"
    )
    runs = []
    for rows in args.rows:
        r = run(schema, rows, args.seed)
        runs.append(r)
        print(
            f"{r['largest_table_rows']:>10,} {r['total_rows']:>11,} {r['wall_s']:>7} {r['cpu_s']:>7} "
            f"{r['rows_per_s_cpu']:>13,} {r['rows_per_s_wall']:>14,} {r['file_mb']:>6}",
            flush=True,
        )
    if not args.no_save:
        RESULTS.mkdir(parents=True, exist_ok=True)
        out = {"schema": schema.name, "tables": len(schema.tables), "seed": args.seed, "runs": runs}
        (RESULTS / "populate_bench.json").write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
