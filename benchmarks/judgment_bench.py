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
from pipeline.tasks.families import JUDGMENT_FAMILIES

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
    request_passes: dict[tuple[str, str], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    judged: dict[str, dict[int, dict[str, list[float]]]] = {
        f: defaultdict(lambda: defaultdict(list)) for f in JUDGMENT_FAMILIES
    }
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
                if t["family"] in JUDGMENT_FAMILIES:
                    fam = judged[t["family"]][lvl]
                    fam["rules"].append(k["policy_rules"])
                    fam["candidates"].append(k["candidates"])
                    fam["records"].append(k["records"])
                    fam["refused"].append(k.get("refused", 0) if t["family"] == "quote" else float(k["partial"]))
            family = {t["id"]: t["family"] for t in tasks}
            for policy in POLICIES:
                result = evaluate(
                    Target(str(bundle)), policy=policy, out=Path(tmp) / "ev" / f"{domain}-{seed}" / policy
                )
                for line in (Path(result["out"]) / "episodes.jsonl").read_text().splitlines():
                    ep = json.loads(line)
                    passes[policy][ep["level"]].append(ep["reward"])
                    if family.get(ep["task_id"]) in JUDGMENT_FAMILIES:
                        request_passes[family[ep["task_id"]], policy][ep["level"]].append(ep["reward"])
            rows.append(
                f"| {manifest['name']} | {len(tasks)} | {len(rules)} | {len(manifest.get('policy', ''))} | "
                f"{sum(t['family'] in JUDGMENT_FAMILIES for t in tasks)} | {load:.1f} |"
            )
    print("# Judgment per level\n")
    print(f"`python benchmarks/judgment_bench.py` on {os.cpu_count()} cores, Python {platform.python_version()}.\n")
    print("| bundle | tasks | policy rules | policy bytes | request + quote tasks | load |")
    print("|---|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    print(f"\nPolicy rules by kind over these bundles: {dict(sorted(kinds.items()))}.\n")
    print("## Every family\n")
    heads = " | ".join(f"{p} pass %" for p in POLICIES)
    print(f"| level | tasks | reference calls mean | max | record types | {heads} |")
    print("|---|---:|---:|---:|---:|" + "---:|" * len(POLICIES))
    for lvl in sorted(per_level):
        d = per_level[lvl]
        cells = [f"{100 * sum(passes[p][lvl]) / len(passes[p][lvl]):.0f}" if passes[p][lvl] else "-" for p in POLICIES]
        print(
            f"| {lvl} | {len(d['calls'])} | {_mean(d['calls'])} | {max(d['calls'])} | {_mean(d['types'])} | "
            + " | ".join(cells)
            + " |"
        )
    for name in JUDGMENT_FAMILIES:
        last = "partial %" if name == "request" else "refused (mean)"
        print(f"\n## The {name} family (judged against the policy)\n")
        print(f"| level | tasks | records | policy rules relied on | candidates | {last} | {heads} |")
        print("|---|---:|---:|---:|---:|---:|" + "---:|" * len(POLICIES))
        for lvl in sorted(judged[name]):
            d = judged[name][lvl]
            cells = [
                f"{100 * sum(request_passes[name, p][lvl]) / len(request_passes[name, p][lvl]):.0f}"
                if request_passes[name, p][lvl]
                else "-"
                for p in POLICIES
            ]
            share = sum(d["refused"]) / len(d["refused"])
            shown = f"{100 * share:.0f}" if name == "request" else f"{share:.1f}"
            print(
                f"| {lvl} | {len(d['records'])} | {_mean(d['records'])} | {_mean(d['rules'])} | "
                f"{_mean(d['candidates'])} | {shown} | " + " | ".join(cells) + " |"
            )


if __name__ == "__main__":
    main()
