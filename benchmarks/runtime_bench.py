"""Runtime cost per episode in process and memory per session, at any state size.

Measures, on a bundle (generated at ``--rows``, given with ``--bundle``, or grown to
``--inflate-rows`` rows by copying every table's rows under new ids):

* in process (``Environment``): building one more Environment of a loaded bundle, reset
  (after writes, after a verify, back to back: every reset counts), tool step (lookups by
  id, filtered pages, aggregates, writes) and verify, p50/p99 in milliseconds;
* memory: resident set of ``--envs`` in-process Environments, each reset with one write
  (and, with ``--server-sessions``, of ``synthenv serve`` holding that many sessions).

``--code DIR`` runs the same measurements against another checkout (e.g. a worktree of
main), so before and after can be compared in one run on a loaded machine:

    python benchmarks/runtime_bench.py --bundle B --code ../before --envs 1000
    python benchmarks/runtime_bench.py --inflate-rows 1000000 --bundle B   # a 1M-row copy of B

Tool steps per second over HTTP are measured by ``benchmarks/http_bench.py``. Results are
printed (with the load average) and written to ``benchmarks/results/runtime_bench.json``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).absolute().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 4)


def _summary(samples: list[float]) -> dict[str, float]:
    return {
        "p50_ms": _pct(samples, 0.50),
        "p99_ms": _pct(samples, 0.99),
        "mean_ms": round(statistics.mean(samples) * 1000, 4),
        "n": len(samples),
    }


def _rss_mb(pid: int | str = "self") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def build_bundle(domain: str, rows: int, out: Path) -> Path:
    from pipeline.jobs.steps import Inputs, generate
    from pipeline.world.blueprint import load_blueprint

    base = sum(e.rows for e in load_blueprint(domain).entities)
    scale = round(rows / base, 3)
    with tempfile.TemporaryDirectory(prefix="synthenv-bench-") as work:
        summary = generate(Inputs(domain=domain, seed=0, scale=scale, tasks_per_family=2), out, Path(work))
    return Path(summary["path"])


def inflate(bundle: Path, rows: int, out: Path) -> Path:
    """A copy of ``bundle`` whose every table holds about ``rows / current rows`` times its rows.

    Copy k of every row gets id + k * max id and its references point at copy k of the rows they
    referenced (so each copy is a consistent replica); unique text columns get a ``~k`` suffix
    and unique numbers an offset. Tasks keep their answers for the
    original rows only, which is enough to time reset, step and verify. The manifest is resealed
    (the state's hash and size, then the digest) so ``synthenv serve`` accepts the copy.
    """
    target = out / "inflated"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(bundle, target)
    schema = json.loads((bundle / "schema.json").read_text(encoding="utf-8"))
    conn = sqlite3.connect(target / "state.sqlite", isolation_level=None)
    conn.execute("PRAGMA foreign_keys = OFF")
    total = sum(conn.execute(f'SELECT count(*) FROM "{t["name"]}"').fetchone()[0] for t in schema["tables"])
    factor = max(1, round(rows / max(total, 1)))
    tops = {
        t["name"]: conn.execute(f'SELECT coalesce(max(id), 0) FROM "{t["name"]}"').fetchone()[0]
        for t in schema["tables"]
    }
    conn.execute("BEGIN")
    for table in schema["tables"]:
        name = table["name"]
        top = tops[name]
        for k in range(1, factor):
            exprs = []
            for c in table["columns"]:
                q = f'"{c["name"]}"'
                if c["name"] == "id":
                    exprs.append(f"id + {k * top}")
                elif c.get("references") in tops:
                    exprs.append(f"{q} + {k * tops[c['references']]}")
                elif c.get("unique") and c["sql_type"] in ("TEXT", "VARCHAR"):
                    exprs.append(f"{q} || '~{k}'")
                elif c.get("unique"):
                    exprs.append(f"{q} + {k * 10**9}")
                else:
                    exprs.append(q)
            cols = ", ".join(f'"{c["name"]}"' for c in table["columns"])
            conn.execute(f'INSERT INTO "{name}" ({cols}) SELECT {", ".join(exprs)} FROM "{name}" WHERE id <= {top}')
    conn.execute("COMMIT")
    conn.execute("VACUUM")
    conn.close()
    from pipeline.bundle.format import pretty_json, seal_manifest, sha256_file

    manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"]["state.sqlite"] = sha256_file(target / "state.sqlite")
    manifest["sizes"]["state.sqlite"] = (target / "state.sqlite").stat().st_size
    (target / "manifest.json").write_text(pretty_json(seal_manifest(manifest)), encoding="utf-8")
    return target


def _tool_calls(env: Any, rng: random.Random, top_id: int) -> list[dict[str, Any]]:
    """A realistic mix: lookups by id, filtered pages, an aggregate, and writes."""
    tools = {t.name: t for t in env.toolset.tools}
    gets = [t for t in tools.values() if t.kind == "get"]
    lists = [t for t in tools.values() if t.kind == "list"]
    updates = [t for t in tools.values() if t.kind == "update"]
    calls = []
    for i in range(400):
        kind = i % 5
        if kind in (0, 1):
            calls.append({"tool": rng.choice(gets).name, "arguments": {"id": rng.randint(1, top_id)}})
        elif kind == 2:
            calls.append({"tool": rng.choice(lists).name, "arguments": {"limit": 10, "offset": rng.randint(0, 20)}})
        elif kind == 3:
            table = rng.choice(env.schema.tables)
            calls.append({"tool": "aggregate", "arguments": {"table": table.name, "metric": "count"}})
        else:
            spec = rng.choice(updates)
            table = env.schema.table(spec.table)
            col = next(
                (
                    c
                    for c in table.columns
                    if c.name in spec.columns and c.sql_type == "INTEGER" and not c.references and c.min is not None
                ),
                None,
            )
            if col is None:
                calls.append({"tool": rng.choice(gets).name, "arguments": {"id": 1}})
            else:
                calls.append({"tool": spec.name, "arguments": {"id": rng.randint(1, 30), col.name: int(col.min or 0)}})
    return calls


def in_process(bundle_path: Path, repeats: int, envs: int) -> dict[str, Any]:
    """Run in a child interpreter (``--worker``) so each checkout measures its own code and memory."""
    from pipeline.bundle.format import load_bundle
    from pipeline.runtime.environment import Environment

    gc.collect()
    rss_start = _rss_mb()
    bundle = load_bundle(bundle_path, verify=False)
    t = time.perf_counter()
    env = Environment(bundle)
    first_build = time.perf_counter() - t
    builds = []
    for _ in range(20):
        t = time.perf_counter()
        Environment(bundle)
        builds.append(time.perf_counter() - t)
    rng = random.Random(0)
    calls = _tool_calls(env, rng, 30)
    aggregates = [c for c in calls if c["tool"] == "aggregate"]
    point = [c for c in calls if c["tool"] != "aggregate"]
    resets, steps, verifies, aggregate_steps = [], [], [], []
    for i in range(repeats):
        t = time.perf_counter()
        env.reset(seed=i)
        resets.append(time.perf_counter() - t)
        for call in point[(i * 8) % len(point) : (i * 8) % len(point) + 8]:
            t = time.perf_counter()
            env.step(call)
            steps.append(time.perf_counter() - t)
        if i % 10 == 0:
            t = time.perf_counter()
            env.step(aggregates[i % len(aggregates)])
            aggregate_steps.append(time.perf_counter() - t)
        answer = env.task.answer if env.task is not None else None
        t = time.perf_counter()
        env.verify(answer)
        verifies.append(time.perf_counter() - t)
    env.close()
    gc.collect()
    rss_loaded = _rss_mb()
    held = []
    write = next((c for c in calls if c["tool"].startswith("update")), calls[0])
    for i in range(envs):
        e = Environment(bundle)
        e.reset(seed=i)
        e.step(write)
        held.append(e)
    gc.collect()
    rss_held = _rss_mb()
    return {
        "state_bytes": (bundle_path / "state.sqlite").stat().st_size,
        "first_build_ms": round(first_build * 1000, 1),
        "build": _summary(builds),
        "reset": _summary(resets),
        "step": _summary(steps),
        "aggregate_step": _summary(aggregate_steps),
        "verify": _summary(verifies),
        "envs": envs,
        "rss_start_mb": rss_start,
        "rss_loaded_mb": rss_loaded,
        "rss_envs_mb": rss_held,
        "per_env_kb": round((rss_held - rss_loaded) * 1024 / max(envs, 1), 1),
        "load_average": load_average(),
    }


def run_worker(code: Path, bundle: Path, repeats: int, envs: int, file_base: bool = False) -> dict[str, Any]:
    """One measurement in a child interpreter; ``file_base`` forces the file-backed base
    (``SYNTHENV_IMAGE_LIMIT=0``: every state kept as a file, as states over the limit are)."""
    extra = {"SYNTHENV_IMAGE_LIMIT": "0"} if file_base else {}
    out = subprocess.run(
        [sys.executable, __file__, "--worker", "--bundle", str(bundle), "--repeats", str(repeats), "--envs", str(envs)],
        cwd=code,
        env={**os.environ, "PYTHONPATH": str(code), **extra},
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"worker failed under {code}: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", type=Path, help="a bundle directory (default: generate one at --rows)")
    parser.add_argument("--domain", default="online_store")
    parser.add_argument("--rows", type=int, default=10_000, help="approximate rows when generating")
    parser.add_argument("--inflate-rows", type=int, help="grow a copy of the bundle to about this many rows")
    parser.add_argument("--grown-out", type=Path, help="keep the grown copy here (for http_bench.py --bundle)")
    parser.add_argument("--repeats", type=int, default=500, help="resets (8 steps and 1 verify each)")
    parser.add_argument("--envs", type=int, default=1000, help="Environments held for the memory figure")
    parser.add_argument("--code", type=Path, action="append", default=[], help="another checkout to measure too")
    parser.add_argument("--rounds", type=int, default=2, help="A B rounds when --code is given")
    parser.add_argument(
        "--file-base", action="store_true", help="also run this checkout with the file-backed base forced"
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.worker:
        sys.path.insert(0, os.getcwd())
        print(json.dumps(in_process(args.bundle, args.repeats, args.envs)))
        return
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory(prefix="synthenv-bench-out-") as out:
        bundle = args.bundle or build_bundle(args.domain, args.rows, Path(out))
        if args.inflate_rows:
            bundle = inflate(bundle, args.inflate_rows, args.grown_out or Path(out))
        result: dict[str, Any] = {"bundle": str(bundle), "cpus": os.cpu_count(), "runs": []}
        variants = [(ROOT, False), *([(ROOT, True)] if args.file_base else []), *((c, False) for c in args.code)]
        for _ in range(args.rounds if len(variants) > 1 else 1):
            for code, file_base in variants:
                run = run_worker(code, bundle, args.repeats, args.envs, file_base)
                run["code"] = str(code) + (" (file-backed base)" if file_base else "")
                result["runs"].append(run)
                _print(run)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "runtime_bench.json").write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _print(r: dict[str, Any]) -> None:
    print(f"{r['code']}: state {r['state_bytes'] / 1e6:.1f} MB, load average {r['load_average']}")
    print(f"  build first {r['first_build_ms']} ms, next p50 {r['build']['p50_ms']} ms")
    for name in ("reset", "step", "aggregate_step", "verify"):
        s = r[name]
        print(f"  {name:<15} p50 {s['p50_ms']:9.4f} ms  p99 {s['p99_ms']:9.4f} ms  (n {s['n']})")
    print(
        f"  {r['envs']} Environments: RSS {r['rss_envs_mb']} MB (loaded {r['rss_loaded_mb']} MB, "
        f"{r['per_env_kb']} KB each)"
    )


if __name__ == "__main__":
    main()
