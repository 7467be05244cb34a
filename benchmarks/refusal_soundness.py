"""Status refusals right under every reading: over several bundles, how many tasks that expect a
status refusal name a goal some legal sequence of moves reaches (``pipeline/tasks/feasibility.py``).

Run: ``.venv/bin/python benchmarks/refusal_soundness.py`` (about a minute a bundle on 2 cores).
Each bundle is generated as ``synthenv generate --domain D --seed S [--random]`` generates it.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.jobs.steps import Inputs, generate
from pipeline.runtime.environment import Environment
from pipeline.tasks.check import unsound_refusal

BUNDLES = [
    ("insurance_claims", 23, False),
    ("construction_projects", 5, False),
    ("airline", 31, False),
    ("veterinary_clinic", 47, False),
    ("saas_billing", 3, False),
    ("online_store", 0, True),
    ("online_store", 1, True),
    ("online_store", 2, True),
]


def main() -> None:
    print("| bundle | tasks | infeasible | status refusals | wrong under the goal reading |")
    print("|---|---:|---:|---:|---:|")
    totals = [0, 0, 0, 0]
    for domain, seed, variant in BUNDLES:
        with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory() as out:
            summary = generate(Inputs(domain=domain, seed=seed, variant=variant), Path(out), Path(work))
            env = Environment.from_bundle(Path(summary["path"]))
            infeasible = [t for t in env.tasks if t.family == "infeasible"]
            status = [t for t in infeasible if t.knobs.get("kind") == "forbidden"]
            wrong = [t for t in status if unsound_refusal(env.schema, t)]
            row = [len(env.tasks), len(infeasible), len(status), len(wrong)]
            totals = [a + b for a, b in zip(totals, row, strict=True)]
            print(f"| {summary['name']} | " + " | ".join(map(str, row)) + " |", flush=True)
            env.close()
    print("| all | " + " | ".join(map(str, totals)) + " |")
    print(f"\nload average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
