"""Judgment per level: what the reference needs and how far policies without judgment get.

Generates each bundle (no Prefect), then per level: reference calls (mean/max), record types,
policy rules relied on, computed values, candidates and partial-compliance share (and, for the
judged families, how often the policy's cap on one request's refunds holds a record back and how often a
history rule refuses a record only because of the request's own earlier writes); then
plays the reference and the three scripted policies without judgment (literal, first_candidate,
no_computation) and reports their pass rate per level beside it. The policy itself is measured
too: rules per kind, and its size in bytes. Level 5 is the judgment-only top (``case``, ``sweep``,
``choice``).

Run: ``.venv/bin/python benchmarks/judgment_bench.py [--scale S] > benchmarks/JUDGMENT.md`` (37 s
wall for the eight bundles at scale 1 on 2 cores, load 1.1). ``--scale`` multiplies every table's
rows (larger worlds have more people with several records, so more top-level tasks).
"""

from __future__ import annotations

import argparse
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
COMPUTED = ("aggregate",)
"""Families whose answer is computed across records besides the judgment families' ``computed`` knob."""


def _mean(values: list[float]) -> str:
    return f"{sum(values) / len(values):.1f}" if values else "-"


def _pct(values: list[float]) -> str:
    return f"{100 * sum(values) / len(values):.0f}" if values else "-"


def _figures(task: dict) -> dict[str, float]:
    k = task["knobs"]
    return {
        "calls": k["reference_calls"],
        "types": k["entity_types"],
        "rules": k.get("policy_rules", 0),
        "computed": float(bool(k.get("computed")) or task["family"] in COMPUTED),
        "candidates": k.get("candidates", 0),
        "partial": float(bool(k.get("partial"))),
        "judgment": float(task["family"] in JUDGMENT_FAMILIES),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()
    per_level: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    passes: dict[str, dict[int, list[float]]] = {p: defaultdict(list) for p in POLICIES}
    family_passes: dict[tuple[str, str], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    judged: dict[str, dict[int, dict[str, list[float]]]] = {
        f: defaultdict(lambda: defaultdict(list)) for f in JUDGMENT_FAMILIES
    }
    kinds: Counter[str] = Counter()
    rows, top = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for domain, seed, variant in WORLDS:
            load = os.getloadavg()[0]
            inputs = Inputs(domain=domain, seed=seed, variant=variant, scale=args.scale)
            summary = generate(inputs, Path(tmp) / "out", Path(tmp) / "w")
            bundle = Path(summary["path"])
            manifest = json.loads((bundle / "manifest.json").read_text())
            rules = manifest.get("policy_rules", {}).get("rules", [])
            kinds.update(r["kind"] for r in rules)
            tasks = [json.loads(line) for line in (bundle / "tasks.jsonl").read_text().splitlines()]
            for t in tasks:
                for key, value in _figures(t).items():
                    per_level[t["level"]][key].append(value)
                if t["family"] in JUDGMENT_FAMILIES:
                    fam = judged[t["family"]][t["level"]]
                    fam["rules"].append(t["knobs"]["policy_rules"])
                    fam["candidates"].append(t["knobs"]["candidates"])
                    fam["records"].append(t["knobs"]["records"])
                    fam["calls"].append(t["knobs"]["reference_calls"])
                    fam["capped"].append(float(bool(t["knobs"].get("capped"))))
                    fam["waived"].append(float(bool(t["knobs"].get("waived"))))
                    fam["claim"].append(float(t["knobs"].get("claim") is not None))
                    fam["today"].append(float(bool(t["knobs"].get("history_today"))))
                if t["level"] == 5:
                    top.append((manifest["name"], t, manifest.get("policy", "")))
            family = {t["id"]: t["family"] for t in tasks}
            for policy in POLICIES:
                result = evaluate(
                    Target(str(bundle)), policy=policy, out=Path(tmp) / "ev" / f"{domain}-{seed}" / policy
                )
                for line in (Path(result["out"]) / "episodes.jsonl").read_text().splitlines():
                    ep = json.loads(line)
                    passes[policy][ep["level"]].append(ep["reward"])
                    if family.get(ep["task_id"]) in JUDGMENT_FAMILIES:
                        family_passes[family[ep["task_id"]], policy][ep["level"]].append(ep["reward"])
            rows.append(
                f"| {manifest['name']} | {len(tasks)} | {len(rules)} | {len(manifest.get('policy', ''))} | "
                f"{sum(t['family'] in JUDGMENT_FAMILIES for t in tasks)} | {sum(t['level'] == 5 for t in tasks)} | "
                f"{load:.1f} |"
            )
    print(f"# Judgment per level (row scale {args.scale:g})\n")
    print(
        f"`python benchmarks/judgment_bench.py --scale {args.scale:g}` on {os.cpu_count()} cores, "
        f"Python {platform.python_version()}.\n"
    )
    print("| bundle | tasks | policy rules | policy bytes | judgment tasks | level-5 tasks | load |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    print(f"\nPolicy rules by kind over these bundles: {dict(sorted(kinds.items()))}.\n")
    print("## Every family\n")
    heads = " | ".join(f"{p} pass %" for p in POLICIES)
    print(
        "| level | tasks | judgment % | reference calls mean | max | record types | policy rules | computed % "
        f"| candidates | partial % | {heads} |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * len(POLICIES))
    for lvl in sorted(per_level):
        d = per_level[lvl]
        cells = [_pct(passes[p][lvl]) for p in POLICIES]
        print(
            f"| {lvl} | {len(d['calls'])} | {_pct(d['judgment'])} | {_mean(d['calls'])} | {max(d['calls']):.0f} | "
            f"{_mean(d['types'])} | {_mean(d['rules'])} | {_pct(d['computed'])} | {_mean(d['candidates'])} | "
            f"{_pct(d['partial'])} | " + " | ".join(cells) + " |"
        )
    for name in JUDGMENT_FAMILIES:
        print(f"\n## The {name} family (judged against the policy)\n")
        print(
            f"| level | tasks | records | reference calls | policy rules relied on | candidates | cap holds back % "
            f"| waiver spares % | own writes refuse % | claim % | {heads} |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * len(POLICIES))
        for lvl in sorted(judged[name]):
            d = judged[name][lvl]
            cells = [_pct(family_passes[name, p][lvl]) for p in POLICIES]
            print(
                f"| {lvl} | {len(d['records'])} | {_mean(d['records'])} | {_mean(d['calls'])} | {_mean(d['rules'])} | "
                f"{_mean(d['candidates'])} | {_pct(d['capped'])} | {_pct(d['waived'])} | {_pct(d['today'])} | "
                f"{_pct(d['claim'])} | " + " | ".join(cells) + " |"
            )
    print("\n## Level-5 requests verbatim (up to 10), with the policy lines each relies on\n")
    for name, task, policy in top[:10]:
        request = task["instruction"].split(" Answer with one JSON")[0].split(" Reply with the JSON")[0]
        lines = [ln for ln in policy.splitlines() if ln.split(".")[0] in _rule_ids(task)]
        print(f"- **{name} {task['id']}** ({task['knobs']['reference_calls']} calls): {request}")
        for line in lines:
            print(f"  - {line}")


def _rule_ids(task: dict) -> set[str]:
    """The rule numbers a task's answer names, and the ones its operation's lines carry (lifecycle,
    staff rules, the fee and the priority line are found by operation and table name)."""
    found = {r["value"] for r in json.loads(task["answer"]).get("refused", []) if r.get("cannot") == "policy"}
    return found | set(task["knobs"].get("rule_ids", []))


if __name__ == "__main__":
    main()
