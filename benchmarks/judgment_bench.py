"""Judgment per level: what the reference needs and how far policies without judgment get.

Generates each bundle (no Prefect), then per level: reference calls (mean/max), record types,
and for the ``request`` family its policy rules, candidates, refusals and partial-compliance
share; then plays the reference and the three scripted policies without judgment (literal,
first_candidate, no_computation) and reports their pass rate per level beside it. The policy
itself is measured too: rules per kind, and its size in bytes.

Run: ``.venv/bin/python benchmarks/judgment_bench.py > benchmarks/JUDGMENT.md`` (about two minutes
per bundle on 2 cores).
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.jobs.evaluate import Target, evaluate
from pipeline.jobs.steps import Inputs, generate

WORLDS = [
    ("online_store", 0, False),
    ("insurance_claims", 23, False),
    ("airline", 31, False),
    ("veterinary_clinic", 47, False),
    ("library_loans", 11, False),
    ("online_store", 2, True),
    ("online_store", 9137, True),
    ("online_store", 5, True),
]
POLICIES = ("reference", "literal", "first_candidate", "no_computation")


def _mean(values: list[float]) -> str:
    return f"{sum(values) / len(values):.1f}" if values else "-"


def main() -> None:
    per_level: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    passes: dict[str, dict[int, list[float]]] = {p: defaultdict(list) for p in POLICIES}
    request_passes: dict[str, dict[int, list[float]]] = {p: defaultdict(list) for p in POLICIES}
    kinds: Counter[str] = Counter()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for domain, seed, variant in WORLDS:
            load = os.getloadavg()[0]
            summary = generate(Inputs(domain=domain, seed=seed, variant=variant), Path(tmp) / "out", Path(tmp) / "w")
            bundle = Path(summary["path"])
            manifest = json.loads((bundle / "manifest.json").read_text())
            rules = manifest.get("policy_rules", {}).get("rules", [])
            kinds.update(r["kind"] for r in rules)
            tasks = [json.loads(line) for line in (bundle / "tasks.jsonl").read_text().splitlines()]
            for t in tasks:
                lvl, k = t["level"], t["knobs"]
                per_level[lvl]["calls"].append(k["reference_calls"])
                per_level[lvl]["types"].append(k["entity_types"])
                if t["family"] == "request":
                    per_level[lvl]["req_rules"].append(k["policy_rules"])
                    per_level[lvl]["req_candidates"].append(k["candidates"])
                    per_level[lvl]["req_records"].append(k["records"])
                    per_level[lvl]["req_partial"].append(float(k["partial"]))
            family = {t["id"]: t["family"] for t in tasks}
            for policy in POLICIES:
                result = evaluate(
                    Target(str(bundle)), policy=policy, out=Path(tmp) / "ev" / f"{domain}-{seed}" / policy
                )
                for line in (Path(result["out"]) / "episodes.jsonl").read_text().splitlines():
                    ep = json.loads(line)
                    passes[policy][ep["level"]].append(ep["reward"])
                    if family.get(ep["task_id"]) == "request":
                        request_passes[policy][ep["level"]].append(ep["reward"])
            rows.append(
                f"| {manifest['name']} | {len(tasks)} | {len(rules)} | {len(manifest.get('policy', ''))} | "
                f"{sum(t['family'] == 'request' for t in tasks)} | {load:.1f} |"
            )
    print("# Judgment per level\n")
    print(f"`python benchmarks/judgment_bench.py` on {os.cpu_count()} cores, Python {platform.python_version()}.\n")
    print("| bundle | tasks | policy rules | policy bytes | request tasks | load |\n|---|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    print(f"\nPolicy rules by kind over these bundles: {dict(sorted(kinds.items()))}.\n")
    print("## Every family\n")
    print(
        "| level | tasks | reference calls mean | max | record types | "
        + " | ".join(f"{p} pass %" for p in POLICIES)
        + " |"
    )
    print("|---|---:|---:|---:|---:|" + "---:|" * len(POLICIES))
    for lvl in sorted(per_level):
        d = per_level[lvl]
        cells = [f"{100 * sum(passes[p][lvl]) / len(passes[p][lvl]):.0f}" if passes[p][lvl] else "-" for p in POLICIES]
        print(
            f"| {lvl} | {len(d['calls'])} | {_mean(d['calls'])} | {max(d['calls'])} | {_mean(d['types'])} | "
            + " | ".join(cells)
            + " |"
        )
    print("\n## The request family (judged against the policy)\n")
    print(
        "| level | tasks | records | policy rules relied on | candidates | partial % | "
        + " | ".join(f"{p} pass %" for p in POLICIES)
        + " |"
    )
    print("|---|---:|---:|---:|---:|---:|" + "---:|" * len(POLICIES))
    for lvl in sorted(per_level):
        d = per_level[lvl]
        if not d["req_records"]:
            continue
        cells = [
            f"{100 * sum(request_passes[p][lvl]) / len(request_passes[p][lvl]):.0f}" if request_passes[p][lvl] else "-"
            for p in POLICIES
        ]
        print(
            f"| {lvl} | {len(d['req_records'])} | {_mean(d['req_records'])} | {_mean(d['req_rules'])} | "
            f"{_mean(d['req_candidates'])} | {100 * sum(d['req_partial']) / len(d['req_partial']):.0f} | "
            + " | ".join(cells)
            + " |"
        )


if __name__ == "__main__":
    main()
