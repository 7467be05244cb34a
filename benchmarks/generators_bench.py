"""Speed of the procedural generators, side by side with reasoning-gym where both have a task.

Measures, for every registered family at level 0 and at the hardest level: items per
second and p50/p99 milliseconds per item, plus the import time of ``generators``.
reasoning-gym is never a dependency of this project: it is installed into a separate
virtual environment (``--rg-venv``, default ``/tmp/rg-venv``) and run there in a
subprocess during the same run. If it cannot be installed the script says so and still
reports our numbers.

    python benchmarks/generators_bench.py                 # tables to stdout
    python benchmarks/generators_bench.py --uniqueness    # also unique-share at 1,000 items
    python benchmarks/generators_bench.py --no-rg         # ours only

Results are also written as JSON under ``benchmarks/results/``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from generators import registry  # noqa: E402
from generators.dataset import canonical_question, make_item  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"

RG_NAMES = {
    "basic_arithmetic": "basic_arithmetic",
    "gcd_lcm": "gcd",
    "prime_factorization": "prime_factorization",
    "base_conversion": "base_conversion",
    "fraction_simplify": "fraction_simplification",
    "linear_equation": "simple_equations",
    "quadratic_roots": "polynomial_equations",
    "sequence_next": "number_sequence",
    "dice_probability": "dice",
    "calendar_weekday": "calendar_arithmetic",
    "time_arithmetic": "time_intervals",
    "tower_of_hanoi": "tower_of_hanoi",
    "n_queens": "n_queens",
    "sudoku": "sudoku",
    "maze": "maze",
    "knights_knaves": "knights_knaves",
    "caesar_cipher": "caesar_cipher",
    "shortest_path": "shortest_path",
    "graph_coloring": "graph_color",
    "syllogism": "syllogism",
    "zebra_puzzle": "zebra_puzzles",
    "sort_numbers": "number_sorting",
    "word_ladder": "word_ladder",
    "anagram": "letter_jumble",
}
"""Our family -> the closest reasoning-gym dataset (tasks are similar, not identical)."""

RG_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import reasoning_gym
import_s = time.perf_counter() - t0
names, items, budget = json.loads(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
out = {"import_s": import_s, "version": None, "results": {}}
try:
    import importlib.metadata as md
    out["version"] = md.version("reasoning-gym")
except Exception:
    pass
for name in names:
    try:
        start = time.perf_counter()
        ds = reasoning_gym.create_dataset(name, size=items, seed=42)
        setup = time.perf_counter() - start
        times = []
        began = time.perf_counter()
        for i in range(items):
            t = time.perf_counter()
            ds[i]
            times.append(time.perf_counter() - t)
            if time.perf_counter() - began > budget and len(times) >= 5:
                break
        out["results"][name] = {"setup_s": setup, "times": times}
    except Exception as error:
        out["results"][name] = {"error": repr(error)[:200]}
print(json.dumps(out))
"""


def summarise(times: list[float], setup: float = 0.0) -> dict[str, float]:
    ordered = sorted(times)
    p99_index = min(len(ordered) - 1, max(0, round(0.99 * (len(ordered) - 1))))
    total = sum(times) + setup
    return {
        "n": len(times),
        "items_per_s": len(times) / total if total else float("inf"),
        "p50_ms": statistics.median(ordered) * 1000,
        "p99_ms": ordered[p99_index] * 1000,
    }


def time_family(name: str, level: int, items: int, budget: float) -> dict[str, float]:
    family = registry.get_family(name)
    config = family.config_for_level(level)
    make_item(family, config, level, 0, 10**9)  # warm caches (sieves, word lists)
    times: list[float] = []
    began = time.perf_counter()
    for index in range(items):
        start = time.perf_counter()
        make_item(family, config, level, 0, index)
        times.append(time.perf_counter() - start)
        if time.perf_counter() - began > budget and len(times) >= 5:
            break
    return summarise(times)


def import_time(runs: int = 5) -> float:
    script = "import time; t = time.perf_counter(); import generators; print(time.perf_counter() - t)"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    samples = []
    for _ in range(runs):
        result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        samples.append(float(result.stdout.strip()))
    return statistics.median(samples)


def ensure_rg(venv: Path) -> tuple[Path | None, str]:
    """The venv's python with reasoning-gym installed, or None and the reason."""
    python = venv / "bin" / "python"
    probe = [str(python), "-c", "import reasoning_gym"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python, "already installed"
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "reasoning-gym"], check=True, capture_output=True, timeout=900)
    except (subprocess.SubprocessError, OSError) as error:
        return None, f"could not install reasoning-gym into {venv}: {error}"
    if subprocess.run(probe, capture_output=True).returncode != 0:
        return None, "reasoning-gym installed but does not import"
    return python, "installed"


def run_rg(python: Path, names: list[str], items: int, budget: float) -> dict[str, Any]:
    result = subprocess.run(
        [str(python), "-c", RG_CHILD, json.dumps(names), str(items), str(budget)],
        capture_output=True, text=True, timeout=3600, cwd="/tmp",
    )
    if result.returncode != 0:
        return {"error": result.stderr[-2000:]}
    return json.loads(result.stdout.strip().splitlines()[-1])


def uniqueness(name: str, level: int, size: int, budget: float) -> dict[str, Any]:
    family = registry.get_family(name)
    config = family.config_for_level(level)
    seen: set[bytes] = set()
    draws = 0
    began = time.perf_counter()
    while len(seen) < size and draws < 20 * size:
        item = make_item(family, config, level, 0, draws)
        draws += 1
        seen.add(hashlib.sha256(canonical_question(item["question"]).encode()).digest())
        if time.perf_counter() - began > budget:
            return {"unique": len(seen), "draws": draws, "complete": False}
    return {"unique": len(seen), "draws": draws, "complete": len(seen) >= size}


def fmt(stats: dict[str, float] | None) -> tuple[str, str]:
    if not stats:
        return "—", "—"
    return f"{stats['items_per_s']:,.0f}", f"{stats['p50_ms']:.3f} / {stats['p99_ms']:.3f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=300, help="items timed per family and level")
    parser.add_argument("--budget", type=float, default=4.0, help="seconds at most per family and level")
    parser.add_argument("--rg-venv", type=Path, default=Path("/tmp/rg-venv"))
    parser.add_argument("--no-rg", action="store_true")
    parser.add_argument("--uniqueness", action="store_true", help="also measure unique share at --unique-size items")
    parser.add_argument("--unique-size", type=int, default=1000)
    args = parser.parse_args()

    names = registry.list_families()
    ours: dict[str, dict[str, Any]] = {}
    for name in names:
        top = len(registry.get_family(name).levels) - 1
        ours[name] = {"top": top, "L0": time_family(name, 0, args.items, args.budget), "top_stats": time_family(name, top, args.items, args.budget)}
    gen_import = import_time()

    rg: dict[str, Any] = {}
    rg_note = "skipped (--no-rg)"
    pairs = {ours_name: rg_name for ours_name, rg_name in RG_NAMES.items() if ours_name in ours}
    if not args.no_rg:
        python, rg_note = ensure_rg(args.rg_venv)
        if python is not None:
            rg = run_rg(python, sorted(set(pairs.values())), args.items, args.budget)
            if "error" in rg:
                rg_note = f"reasoning-gym run failed: {rg['error'][-300:]}"
    print(f"# generators benchmark ({len(names)} families, python {sys.version.split()[0]}, {os.cpu_count()} cores)")
    print(f"import generators: {gen_import * 1000:.1f} ms (median of 5 fresh interpreters)")
    if rg.get("import_s") is not None:
        print(f"import reasoning_gym: {rg['import_s'] * 1000:.0f} ms (reasoning-gym {rg.get('version')})")
    else:
        print(f"reasoning-gym: {rg_note}")
    print()
    print("| family | L0 items/s | L0 p50 / p99 ms | L5 items/s | L5 p50 / p99 ms |")
    print("|---|---:|---:|---:|---:|")
    for name in names:
        a, b = fmt(ours[name]["L0"])
        c, d = fmt(ours[name]["top_stats"])
        print(f"| {name} | {a} | {b} | {c} | {d} |")
    compared = {}
    if rg.get("results"):
        print()
        print("| ours (L0 / L5) | reasoning-gym (default config) | ours L0 items/s | ours L5 items/s | rg items/s | ours L0 p50 / p99 ms | rg p50 / p99 ms |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for ours_name, rg_name in sorted(pairs.items()):
            entry = rg["results"].get(rg_name, {})
            stats = summarise(entry["times"], entry["setup_s"]) if entry.get("times") else None
            compared[ours_name] = {"rg_name": rg_name, "rg": stats, "rg_error": entry.get("error")}
            rg_rate, rg_lat = fmt(stats) if stats else (f"error: {entry.get('error', 'missing')[:40]}", "—")
            print(
                f"| {ours_name} | {rg_name} | {fmt(ours[ours_name]['L0'])[0]} | {fmt(ours[ours_name]['top_stats'])[0]} | "
                f"{rg_rate} | {fmt(ours[ours_name]['L0'])[1]} | {rg_lat} |"
            )
    RESULTS.mkdir(parents=True, exist_ok=True)
    report = {
        "import_generators_s": gen_import,
        "ours": ours,
        "reasoning_gym": {"note": rg_note, "version": rg.get("version"), "import_s": rg.get("import_s"), "compared": compared},
    }
    (RESULTS / "generators_bench.json").write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    if args.uniqueness:
        table = {}
        print()
        print(f"| family | unique share of {args.unique_size} draws, L0..L5 |")
        print("|---|---|")
        for name in names:
            cells = []
            table[name] = []
            for level in range(len(registry.get_family(name).levels)):
                u = uniqueness(name, level, args.unique_size, args.budget * 2)
                table[name].append(u)
                ratio = u["unique"] / u["draws"] if u["draws"] else 0.0
                mark = "" if u["complete"] else ("*" if u["draws"] < 20 * args.unique_size else "!")
                cells.append(f"{ratio:.2f}{mark}")
            print(f"| {name} | {' '.join(cells)} |")
        print("\n`*` time budget hit before the requested count; `!` fewer unique items than requested in 20x draws")
        (RESULTS / "generators_uniqueness.json").write_text(json.dumps(table, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
