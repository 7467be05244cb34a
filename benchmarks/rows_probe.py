"""What ``synthenv generate --random --seed S --rows R`` gives: the largest table, split into the
tables that grow with the world and the fixed lists (tags, statuses, kinds) that do not.

README says ``--rows`` "sets the largest table's row count". For each seed this builds the bundle
through the CLI (``--no-prefect``, into a temporary directory) and counts every table of its
``state.sqlite``; ``scales`` is the schema's own flag. Reported per seed: the bundle's name, the
exit code (and the error line when it failed), the largest scaling table and the largest fixed one.

    python benchmarks/rows_probe.py [--seeds 0,1,2,3,4,5,6] [--rows 10]

Results are printed and written to ``benchmarks/results/rows_probe.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).absolute().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def largest(bundle: Path) -> dict[str, Any]:
    tables = json.loads((bundle / "schema.json").read_text(encoding="utf-8"))["tables"]
    with sqlite3.connect(bundle / "state.sqlite") as db:
        counted = [
            (db.execute(f'SELECT count(*) FROM "{t["name"]}"').fetchone()[0], t["name"], t["scales"]) for t in tables
        ]
    scaling = max((c for c in counted if c[2]), default=None)
    fixed = max((c for c in counted if not c[2]), default=None)
    return {
        "tables": len(counted),
        "largest_scaling": [scaling[1], scaling[0]] if scaling else None,
        "largest_fixed": [fixed[1], fixed[0]] if fixed else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2,3,4,5,6")
    parser.add_argument("--rows", type=int, default=10)
    parser.add_argument("--out", type=Path, default=RESULTS / "rows_probe.json")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="rows-probe-") as work:
        for seed in [int(s) for s in args.seeds.split(",") if s]:
            out = Path(work) / f"s{seed}"
            cmd = [sys.executable, "-m", "pipeline.cli.main", "generate", "--random", "--seed", str(seed)]
            cmd += ["--rows", str(args.rows), "--no-prefect", "--out", str(out)]
            done = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
            row: dict[str, Any] = {"seed": seed, "exit": done.returncode}
            built = sorted(out.glob("*/*/manifest.json"))
            if done.returncode == 0 and built:
                row["name"] = built[0].parent.parent.name
                row.update(largest(built[0].parent))
            else:
                row["error"] = next((line for line in done.stderr.splitlines() if line.startswith("error")), "")[:300]
            rows.append(row)
            print(json.dumps(row))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
