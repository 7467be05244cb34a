"""1 MiB answer timings and adaptive-curriculum convergence for ``generators_bench.py``
(``--huge``, ``--adaptive``); kept apart so each script stays short.

The 1 MiB table times every answer shape of ``generators.soundness.HUGE_SHAPES`` on one
item per family × level, in a child process per family importing the checkout under test
(``--before`` another checkout), so a scorer that is quadratic in the answer cannot stall
the run: at 16 KiB it already takes over half a second and is reported at that size.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from generators import registry  # noqa: E402

HUGE_CHILD = r"""
import importlib.util, json, sys, time
root, soundness_path, name, levels, repeats = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
sys.path.insert(0, root)
spec = importlib.util.spec_from_file_location("soundness_probe", soundness_path)
probe = importlib.util.module_from_spec(spec)
sys.modules["soundness_probe"] = probe  # dataclasses look their module up there
spec.loader.exec_module(probe)
from generators.registry import get_family
from generators.dataset import create_dataset
family = get_family(name)
top = len(family.levels) - 1
chosen = range(top + 1) if levels == "all" else sorted({0, top})
for level in chosen:
    item = create_dataset(family, level=level, seed=0, size=1)[0]
    small = probe.time_huge(family, item, size=16384, repeats=1)
    worst_small = max(small, key=small.get)
    if small[worst_small] > 0.5:  # quadratic: 1 MiB would take hours, report the 16 KiB figure
        row = {"family": name, "level": level, "size": 16384, "shape": worst_small, "ms": small[worst_small] * 1000}
    else:
        big = probe.time_huge(family, item, repeats=repeats)
        worst = max(big, key=big.get)
        row = {"family": name, "level": level, "size": 1 << 20, "shape": worst, "ms": big[worst] * 1000}
    print(json.dumps(row), flush=True)
"""


def huge_table(root: Path, levels: str, repeats: int, timeout: float) -> list[dict[str, Any]]:
    """Slowest 1 MiB answer shape per family × level for the checkout at ``root`` (one child
    process per family, this checkout's shapes); a family over ``timeout`` is reported as such."""
    soundness_path = ROOT / "generators" / "soundness.py"
    names = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.path.insert(0, sys.argv[1]); from generators import registry; "
            "print(' '.join(registry.list_families()))",
            str(root),
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd="/tmp",
    ).stdout.split()
    rows: list[dict[str, Any]] = []
    for name in names:
        result = None
        try:
            result = subprocess.run(
                [sys.executable, "-c", HUGE_CHILD, str(root), str(soundness_path), name, levels, str(repeats)],
                capture_output=True,
                text=True,
                timeout=timeout,
                cwd="/tmp",
            )
            out = result.stdout
        except subprocess.TimeoutExpired as error:
            out = error.stdout.decode() if isinstance(error.stdout, bytes) else (error.stdout or "")
            rows.append({"family": name, "level": None, "size": None, "shape": "timeout", "ms": timeout * 1000})
        found = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        if not found and result is not None and result.returncode:
            print(f"{name}: the timing child failed: {result.stderr.strip()[-300:]}", file=sys.stderr)
        rows += found
    return rows


def print_huge(label: str, rows: list[dict[str, Any]]) -> None:
    print(f"\n## {label}: slowest 1 MiB answer per family (load {os.getloadavg()[0]:.2f})\n")
    print("| family | worst level | shape | size | ms |")
    print("|---|---:|---|---:|---:|")
    per: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["family"] not in per or row["ms"] > per[row["family"]]["ms"]:
            per[row["family"]] = row
    for name, row in sorted(per.items()):
        size = "—" if row["size"] is None else ("1 MiB" if row["size"] == 1 << 20 else f"{row['size'] // 1024} KiB")
        print(f"| {name} | {row['level']} | {row['shape']} | {size} | {row['ms']:.1f} |")
    if not rows:
        print(f"\n{label}: no rows")
        return
    worst = max(rows, key=lambda r: (r["size"] or 0, r["ms"]) if r["size"] != 16384 else (1 << 30, r["ms"]))
    over = sum(r["ms"] > 50 for r in rows)
    print(
        f"\n{label}: worst {worst['family']} L{worst['level']} {worst['shape']} {worst['ms']:.1f} ms "
        f"at {worst['size']} characters; {over} of {len(rows)} family × level pairs over 50 ms"
    )


def adaptive_table(rounds: int, seed: int) -> list[dict[str, Any]]:
    """Rounds to band and final success per family for the scripted learner of the tests."""
    import random

    from generators.adaptive import AdaptiveCurriculum, simulate

    names = registry.list_families()
    rng = random.Random(7)
    skills = {name: round(rng.uniform(0.5, 4.6), 2) for name in names}
    report = simulate(AdaptiveCurriculum(names), skills, rounds=rounds, seed=seed)
    rows = [
        {
            "family": r.family,
            "skill": r.skill,
            "rounds_to_band": r.rounds_to_band,
            "centre": r.final_centre,
            "expected": r.final_expected,
            "observed": r.final_observed,
        }
        for r in report.values()
    ]
    print(f"\n## Adaptive curriculum, scripted learner, {rounds} rounds x 32 items per family\n")
    print("| family | skill | rounds to band | final centre | expected success | observed (last 30 rounds) |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['family']} | {r['skill']:.2f} | {r['rounds_to_band']} | {r['centre']:.2f} | "
            f"{r['expected']:.3f} | {r['observed']:.3f} |"
        )
    settled = [r["rounds_to_band"] for r in rows if r["rounds_to_band"] is not None]
    print(
        f"\n{len(settled)} of {len(rows)} families in band; rounds to band median "
        f"{statistics.median(settled):.0f}, max {max(settled)}; observed success "
        f"{min(r['observed'] for r in rows):.3f}..{max(r['observed'] for r in rows):.3f}"
    )
    return rows
