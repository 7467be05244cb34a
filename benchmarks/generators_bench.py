"""Speed of the procedural generators, side by side with reasoning-gym where both have a task.

Measures, for every registered family at level 0 and at the hardest level: items per
second and p50/p99 milliseconds per item, plus the import time of ``generators``.
reasoning-gym is never a dependency of this project: it is installed into a separate
virtual environment (``--rg-venv``, default ``benchmarks/.venv-rg``) with ``--rg`` and
run there in a subprocess during the same run. If it cannot be installed the script says
so and still reports our numbers. The pairs are every family whose ``counterpart`` is
``reasoning_gym:<dataset>`` (the README table's), or those named by ``--families``.

    python benchmarks/generators_bench.py                 # our tables to stdout
    python benchmarks/generators_bench.py --uniqueness    # also unique-share at 1,000 items
    python benchmarks/generators_bench.py --rg --only-rg  # side by side with Reasoning Gym only
    python benchmarks/generators_bench.py --rg --only-rg --families maze,gcd_lcm
    python benchmarks/generators_bench.py --constant --before ../main   # constant-answer table
    python benchmarks/generators_bench.py --huge --before ../main       # 1 MiB answers, worst per family
    python benchmarks/generators_bench.py --adaptive                    # adaptive curriculum convergence

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


def rg_pairs(names: list[str]) -> dict[str, str]:
    """Our family -> its Reasoning Gym dataset, from each family's ``counterpart``
    (``"reasoning_gym:<dataset>"``): every matched pair, as the README table lists them.
    The tasks are similar, not identical."""
    pairs = {}
    for name in names:
        kind, _, dataset = registry.get_family(name).counterpart.partition(":")
        if kind == "reasoning_gym" and dataset:
            pairs[name] = dataset
    return pairs


RG_CHILD = r"""
import json, signal, sys, time


class Hung(BaseException):  # not an Exception: the level fallback below must not swallow it
    pass


def _alarm(*_):
    raise Hung()


signal.signal(signal.SIGALRM, _alarm)
t0 = time.perf_counter()
import reasoning_gym
from reasoning_gym.factory import DATASETS, CURRICULA
import_s = time.perf_counter() - t0
names, items, budget = json.loads(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
hang = float(sys.argv[4])
out = {"import_s": import_s, "results": {}}
try:
    import importlib.metadata as md
    out["version"] = md.version("reasoning-gym")
except Exception:
    out["version"] = None
for name in names:
    began_name = time.perf_counter()
    entry = {}
    for setting in ("lowest", "highest"):
        times, level, done = [], None, 0.0
        signal.setitimer(signal.ITIMER_REAL, hang)
        try:
            dataset_cls, config_cls = DATASETS[name]
            if name in CURRICULA:
                curriculum = CURRICULA[name]()
                top = max((len(a.levels) for a in curriculum.attributes.values()), default=1) - 1
                level = 0 if setting == "lowest" else top
                while True:  # a top level whose config does not validate: the next one down
                    try:
                        curriculum.set_global_level(level)
                        config = curriculum.generate_configuration({"seed": 42, "size": items})
                        ds = dataset_cls(config=config)
                        ds[0]
                        break
                    except Exception:
                        if level == 0:
                            raise
                        level -= 1
            else:
                ds = dataset_cls(config=config_cls(seed=42, size=items))
                ds[0]
                level = None
            began = time.process_time()  # CPU time of this process, the whole loop at once
            done = 0.0  # CPU time up to the last finished item (a hung item is not counted)
            for i in range(items):
                ds[i]
                times.append(i)
                done = time.process_time() - began
                if done > budget and len(times) >= 5:
                    break
            entry[setting] = {"level": level, "n": len(times), "cpu_s": done}
        except Hung:  # an item (or the construction) ran past the cap: keep what was timed
            if len(times) >= 5:
                entry[setting] = {"level": level, "n": len(times), "cpu_s": done, "hung": True}
            else:
                entry[setting] = {"error": f"no 5 items within {hang:g} s (an item hung)"}
        except Exception as error:
            entry[setting] = {"error": repr(error)[:200]}
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    out["results"][name] = entry
    print(f"  RG {name}: {time.perf_counter() - began_name:.1f} s", file=sys.stderr, flush=True)
with open(sys.argv[5], "w") as handle:  # a file, not stdout: some datasets print to stdout
    json.dump(out, handle)
"""
"""Times ``ds[i]`` at the lowest and highest level of each dataset's curriculum (a level
whose config does not validate falls back to the next one down). A setting that runs past
``hang`` seconds (Reasoning Gym's ``arc_1d`` at its top level has an item that never
finishes) keeps the items timed before it, marked ``hung``, or is an error with fewer than 5."""


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


def cpu_rate(name: str, level: int, items: int, budget: float) -> float:
    """Items per second of CPU time for ``make_item`` over consecutive indices, the loop
    timed as a whole (the side by side: on a shared machine wall time counts other
    processes' turns, and a clock read per item would weigh on the cheapest families)."""
    family = registry.get_family(name)
    config = family.config_for_level(level)
    make_item(family, config, level, 0, 10**9)  # warm caches (sieves, word lists)
    began = time.process_time()
    count = 0
    for index in range(items):
        make_item(family, config, level, 0, index)
        count += 1
        if time.process_time() - began > budget and count >= 5:
            break
    return count / (time.process_time() - began)


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
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "reasoning-gym"], check=True, capture_output=True, timeout=900
        )
    except (subprocess.SubprocessError, OSError) as error:
        return None, f"could not install reasoning-gym into {venv}: {error}"
    if subprocess.run(probe, capture_output=True).returncode != 0:
        return None, "reasoning-gym installed but does not import"
    return python, "installed"


def run_rg(python: Path, names: list[str], items: int, budget: float, hang: float = 20.0) -> dict[str, Any]:
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "rg.json"
        result = subprocess.run(
            [str(python), "-c", RG_CHILD, json.dumps(names), str(items), str(budget), str(hang), str(out)],
            stdout=subprocess.DEVNULL,
            timeout=3600,
            cwd=scratch,
        )  # the child's stderr (progress per dataset, tracebacks) goes to ours
        if result.returncode != 0 or not out.is_file():
            return {"error": f"the Reasoning Gym child exited with {result.returncode} (its stderr is above)"}
        loaded: dict[str, Any] = json.loads(out.read_text())
        return loaded


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


CONSTANT_CHILD = r"""
import importlib.util, json, sys
root, priors_path, size, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sys.path.insert(0, root)
spec = importlib.util.spec_from_file_location("_priors", priors_path)
priors = importlib.util.module_from_spec(spec)
sys.modules["_priors"] = priors
spec.loader.exec_module(priors)
from generators import registry
rows = []
for name in registry.list_families():
    family = registry.get_family(name)
    for level in range(len(family.levels)):
        r = priors.measure(name, level, size=size, seed=seed)
        rows.append({"family": name, "level": level, "items": r.items, "answer": r.answer,
                     "reward": r.reward, "bound": r.bound})
print(json.dumps(rows))
"""


def constant_table(root: Path, size: int, seed: int) -> list[dict[str, Any]]:
    """Best constant answer per family × level for the checkout at ``root`` (measured in a
    child process importing that checkout's ``generators``, with this checkout's priors)."""
    priors_path = ROOT / "generators" / "priors.py"
    result = subprocess.run(
        [sys.executable, "-c", CONSTANT_CHILD, str(root), str(priors_path), str(size), str(seed)],
        capture_output=True,
        text=True,
        check=True,
        cwd="/tmp",
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def print_constant(before: list[dict[str, Any]] | None, after: list[dict[str, Any]], size: int) -> None:
    print(f"\n## Best constant answer, {size} items per family × level (load {os.getloadavg()[0]:.2f})\n")
    old = {(r["family"], r["level"]): r for r in before or []}
    head = "| family | level | bound |" + (" before: answer | before: reward |" if before else "")
    print(head + " answer | reward | ok |")
    print("|---|---:|---:|" + ("---|---:|" if before else "") + "---|---:|---|")
    for row in after:
        cells = [row["family"], str(row["level"]), f"{row['bound']:.3f}"]
        prior = old.get((row["family"], row["level"]))
        if before:
            cells += [f"`{prior['answer'][:24]}`", f"{prior['reward']:.3f}"] if prior else ["—", "—"]
        ok = "yes" if row["reward"] <= row["bound"] else "**no**"
        cells += [f"`{row['answer'][:24]}`", f"{row['reward']:.3f}", ok]
        print("| " + " | ".join(cells) + " |")
    for label, rows in (("before", before), ("after", after)):
        if rows:
            worst = max(rows, key=lambda r: r["reward"] - r["bound"])
            above = sum(r["reward"] > r["bound"] for r in rows)
            print(
                f"\n{label}: worst {worst['family']} L{worst['level']} {worst['answer']!r} "
                f"{worst['reward']:.3f} (bound {worst['bound']:.3f}); {above} of {len(rows)} above their bound"
            )


def fmt(stats: dict[str, float] | None) -> tuple[str, str]:
    if not stats:
        return "—", "—"
    return f"{stats['items_per_s']:,.0f}", f"{stats['p50_ms']:.3f} / {stats['p99_ms']:.3f}"


def side_by_side(python: Path, pairs: dict[str, str], items: int, budget: float, rounds: int) -> dict[str, Any]:
    """Ours (level 0 and top) and Reasoning Gym (curriculum lowest and highest), A B A B:
    ``rounds`` alternations in one run, keeping each cell's best rate, so load drift
    hits both sides alike. Both sides count CPU time of the generating process over
    consecutive items (``make_item`` / ``ds[i]``), dataset construction excluded."""
    best: dict[tuple[str, str], dict[str, Any]] = {}
    rg_meta: dict[str, Any] = {}

    def keep(key: tuple[str, str], rate: float, extra: dict[str, Any]) -> None:
        if key not in best or rate > best[key].get("rate", -1.0):
            best[key] = {"rate": rate, "load": os.getloadavg()[0], **extra}

    for _ in range(rounds):
        for ours_name in pairs:
            top = len(registry.get_family(ours_name).levels) - 1
            for setting, level in (("easiest", 0), ("hardest", top)):
                rate = cpu_rate(ours_name, level, items, budget)
                keep(("ours", f"{ours_name}:{setting}"), rate, {"level": level})
        rg = run_rg(python, sorted(set(pairs.values())), items, budget)
        if "error" in rg:
            return {"error": rg["error"]}
        rg_meta = {"version": rg.get("version"), "import_s": rg.get("import_s")}
        for ours_name, rg_name in pairs.items():
            entry = rg["results"].get(rg_name, {})
            for setting, rg_setting in (("easiest", "lowest"), ("hardest", "highest")):
                cell = entry.get(rg_setting, {})
                if cell.get("n"):
                    rate = cell["n"] / cell["cpu_s"]
                    keep(("rg", f"{ours_name}:{setting}"), rate, {"level": cell.get("level"), "hung": cell.get("hung")})
                else:
                    best.setdefault(("rg", f"{ours_name}:{setting}"), {"error": cell.get("error", "missing")})
    rows = []
    for ours_name, rg_name in sorted(pairs.items()):
        for setting in ("easiest", "hardest"):
            ours = best[("ours", f"{ours_name}:{setting}")]
            theirs = best.get(("rg", f"{ours_name}:{setting}"), {"error": "missing"})
            rows.append(
                {
                    "family": ours_name,
                    "rg_dataset": rg_name,
                    "setting": setting,
                    "ours_level": ours["level"],
                    "ours_items_per_s": ours["rate"],
                    "rg_level": theirs.get("level"),
                    "rg_hung": bool(theirs.get("hung")),
                    "rg_items_per_s": theirs.get("rate"),
                    "rg_error": theirs.get("error"),
                    "ratio": ours["rate"] / theirs["rate"] if theirs.get("rate") else None,
                    "load": max(ours["load"], theirs.get("load", 0.0)),
                }
            )
    return {**rg_meta, "rows": rows}


def print_side_by_side(result: dict[str, Any], rounds: int) -> None:
    print(f"\n## Side by side with Reasoning Gym {result.get('version')} (best of {rounds} alternations)\n")
    print("| family | Reasoning Gym dataset | setting | ours (level) items/s | RG (curriculum level) items/s ", end="")
    print("| ratio | load |")
    print("|---|---|---|---:|---:|---:|---:|")
    for row in result["rows"]:
        theirs = (
            f"{row['rg_items_per_s']:,.0f} ({row['rg_level']}){' hung' if row.get('rg_hung') else ''}"
            if row["rg_items_per_s"]
            else f"error: {str(row['rg_error'])[:40]}"
        )
        ratio = f"{row['ratio']:.2f}x" if row["ratio"] else "—"
        print(
            f"| {row['family']} | {row['rg_dataset']} | {row['setting']} | "
            f"{row['ours_items_per_s']:,.0f} (L{row['ours_level']}) | {theirs} | {ratio} | {row['load']:.1f} |"
        )
    rated = [row for row in result["rows"] if row["ratio"]]
    if rated:
        worst = min(rated, key=lambda row: row["ratio"])
        behind = sum(row["ratio"] < 1 for row in rated)
        print(
            f"\nslowest relative: {worst['family']} {worst['setting']} {worst['ratio']:.2f}x; "
            f"{behind} of {len(rated)} cells below 1.0x"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=300, help="items timed per family and level")
    parser.add_argument("--budget", type=float, default=4.0, help="seconds at most per family and level")
    parser.add_argument("--rg", action="store_true", help="install Reasoning Gym into --rg-venv and compare")
    parser.add_argument("--rg-venv", type=Path, default=ROOT / "benchmarks" / ".venv-rg")
    parser.add_argument("--rounds", type=int, default=2, help="with --rg: ours/RG alternations (best kept)")
    parser.add_argument("--only-rg", action="store_true", help="with --rg: the side-by-side table only")
    parser.add_argument("--families", help="with --rg: only these families (comma separated)")
    parser.add_argument("--uniqueness", action="store_true", help="also measure unique share at --unique-size items")
    parser.add_argument("--unique-size", type=int, default=1000)
    parser.add_argument("--constant", action="store_true", help="only the best-constant-answer table")
    parser.add_argument("--before", type=Path, help="with --constant: another checkout (e.g. main) to compare")
    parser.add_argument("--constant-items", type=int, default=500)
    parser.add_argument("--huge", action="store_true", help="only the 1 MiB answer timing table (--before to compare)")
    parser.add_argument("--huge-timeout", type=float, default=120.0, help="with --huge: seconds per family")
    parser.add_argument(
        "--huge-levels", choices=("ends", "all"), default="ends", help="with --huge: levels 0 and top, or all"
    )
    parser.add_argument("--adaptive", action="store_true", help="only the adaptive curriculum convergence table")
    parser.add_argument("--adaptive-rounds", type=int, default=120)
    args = parser.parse_args()
    RESULTS.mkdir(parents=True, exist_ok=True)
    if args.huge or args.adaptive:
        from generators_soundness_bench import adaptive_table, huge_table, print_huge
    if args.huge:
        result: dict[str, Any] = {}
        if args.before:
            result["before"] = huge_table(args.before.resolve(), "ends", 1, args.huge_timeout)
            print_huge(f"before ({args.before}, levels 0 and top)", result["before"])
        result["after"] = huge_table(ROOT, args.huge_levels, 3, args.huge_timeout)
        print_huge(f"after (levels: {args.huge_levels})", result["after"])
        (RESULTS / "generators_huge.json").write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
        return 0
    if args.adaptive:
        rows = adaptive_table(args.adaptive_rounds, 1)
        (RESULTS / "generators_adaptive.json").write_text(json.dumps(rows, indent=2, sort_keys=True) + "\n")
        return 0
    if args.constant:
        before = constant_table(args.before.resolve(), args.constant_items, 0) if args.before else None
        after = constant_table(ROOT, args.constant_items, 0)
        print_constant(before, after, args.constant_items)
        (RESULTS / "generators_constant.json").write_text(
            json.dumps({"before": before, "after": after}, indent=2, sort_keys=True) + "\n"
        )
        return 0

    names = registry.list_families()
    print(f"# generators benchmark ({len(names)} families, python {sys.version.split()[0]}, {os.cpu_count()} cores)")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    report: dict[str, Any] = {}
    if args.rg:
        python, note = ensure_rg(args.rg_venv)
        if python is None:
            print(f"Reasoning Gym: {note}")
        else:
            pairs = rg_pairs(args.families.split(",") if args.families else names)
            result = side_by_side(python, pairs, args.items, args.budget, args.rounds)
            if "error" in result:
                print(f"Reasoning Gym run failed: {str(result['error'])[-300:]}")
            else:
                print_side_by_side(result, args.rounds)
            report["reasoning_gym"] = result
    else:
        print("Reasoning Gym: skipped (pass --rg to install it into benchmarks/.venv-rg and compare)")
    if args.only_rg:
        (RESULTS / "generators_bench.json").write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
        return 0

    ours: dict[str, dict[str, Any]] = {}
    for name in names:
        top = len(registry.get_family(name).levels) - 1
        ours[name] = {
            "top": top,
            "L0": time_family(name, 0, args.items, args.budget),
            "top_stats": time_family(name, top, args.items, args.budget),
        }
    gen_import = import_time()
    print(f"\nimport generators: {gen_import * 1000:.1f} ms (median of 5 fresh interpreters)\n")
    print("| family | L0 items/s | L0 p50 / p99 ms | L5 items/s | L5 p50 / p99 ms |")
    print("|---|---:|---:|---:|---:|")
    for name in names:
        a, b = fmt(ours[name]["L0"])
        c, d = fmt(ours[name]["top_stats"])
        print(f"| {name} | {a} | {b} | {c} | {d} |")
    report.update({"import_generators_s": gen_import, "ours": ours})
    (RESULTS / "generators_bench.json").write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    if args.uniqueness:
        table: dict[str, list[dict[str, Any]]] = {}
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
