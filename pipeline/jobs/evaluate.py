"""Evaluate a policy (a model, or a scripted baseline) on a bundle: the plain job ``synthenv evaluate`` runs.

``evaluate`` opens the bundle (a directory or a registry reference), starts or resumes the
run directory, plays every pending (task, trial) with at most ``concurrency`` episodes in
flight, and writes the report. The flow (``flows/evaluate.py``) passes its own ``mapper``
so each task's trials run as a Prefect task; everything else is shared. ``baselines``
runs the scripted policies one after another and puts their pass rates per level side
by side.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.evaluate.config import EvalConfig
from pipeline.evaluate.runner import Evaluation

Mapper = Callable[[Callable[[str, list[int]], list[dict[str, Any]]], list[tuple[str, list[int]]]], Any]
DEFAULT_ROOT = Path("artifacts") / "evaluations"


@dataclass(frozen=True)
class Target:
    """What to evaluate: a bundle directory or a registry reference, and where pulls go."""

    bundle: str
    registry: str | None = None


def open_target(target: Target) -> tuple[Any, str]:
    """The verified bundle, and how a results row names it (an absolute directory, or the reference)."""
    from pipeline.bundle.format import load_bundle

    path = Path(target.bundle)
    if path.is_dir():
        return load_bundle(path), str(path.resolve())
    from pipeline.registry.registry import Registry, default_cache

    reg = Registry(target.registry)
    return load_bundle(reg.pull(target.bundle, to=default_cache())), target.bundle


def make_policy(name: str | None, settings: Any | None, config: EvalConfig) -> Any:
    """A scripted baseline by name, or the LLM agent for ``settings`` (exactly one of the two)."""
    if (name is None) == (settings is None):
        raise ValueError("give a model (--llm MODEL) or a scripted policy (--policy NAME), not both or neither")
    if name is not None:
        from pipeline.evaluate.baselines import baseline

        return baseline(name)
    from pipeline.evaluate.agent import LLMPolicy

    return LLMPolicy(settings, config)


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:80] or "run"


def default_out(bundle: Any, policy: str, config: EvalConfig, trials: int, root: Path = DEFAULT_ROOT) -> Path:
    """``artifacts/evaluations/<name>-<version>/<policy>/<config id>-k<K>``: a new config is a new run."""
    return root / f"{bundle.name}-{bundle.version}" / slug(policy) / f"{config.config_id()}-k{trials}"


def thread_mapper(concurrency: int) -> Mapper:
    def run(fn: Callable[[str, list[int]], list[dict[str, Any]]], groups: list[tuple[str, list[int]]]) -> Any:
        with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="evaluate") as pool:
            return list(pool.map(lambda g: fn(*g), groups))

    return run


def load_average() -> list[float] | None:
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except OSError:
        return None


def evaluate(
    target: Target,
    *,
    policy: str | None = None,
    settings: Any | None = None,
    config: EvalConfig | None = None,
    trials: int = 1,
    tasks: str | None = None,
    out: str | Path | None = None,
    concurrency: int = 4,
    mapper: Mapper | None = None,
) -> dict[str, Any]:
    """Run (or resume) one evaluation; returns the summary: report, text tables, paths, timing, usage."""
    from pipeline.evaluate.report import build_report, render_text, write_report

    if not 1 <= concurrency <= 256:
        raise ValueError(f"concurrency must be in 1..256, got {concurrency}")
    config = config or EvalConfig()
    bundle, source = open_target(target)
    agent = make_policy(policy, settings, config)
    where = Path(out) if out is not None else default_out(bundle, agent.name, config, trials)
    run = Evaluation(bundle, source, agent, config, trials, where, tasks)
    began = time.perf_counter()
    try:
        pending = run.pending()
        played = (mapper or thread_mapper(concurrency))(run.play, pending) if pending else []
        rows = run.results()
    finally:
        run.close()
    seconds = time.perf_counter() - began
    fresh = [r for group in played or [] for r in group]
    report = build_report(run.info.__dict__, rows)
    write_report(where, report)
    return {
        "out": str(where),
        "report": report,
        "text": render_text(report),
        "timing": {
            "seconds": round(seconds, 3),
            "episodes_played": len(fresh),
            "episodes_resumed": len(rows) - len(fresh),
            "seconds_per_episode": round(seconds / len(fresh), 4) if fresh else None,
            "episode_seconds_mean": round(sum(r["seconds"] for r in fresh) / len(fresh), 4) if fresh else None,
            "concurrency": concurrency,
            "load_average": load_average(),
        },
        "usage": _usage(fresh),
        "error_examples": sorted({str(r.get("error")) for r in rows if r["status"] == "error"})[:3],
    }


def _usage(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    keys = ("calls", "cached", "prompt_tokens", "completion_tokens", "cost_usd")
    total: dict[str, Any] = dict.fromkeys(keys, 0)
    for r in rows:
        for k in keys:
            total[k] += r.get("usage", {}).get(k, 0)
    total["cost_usd"] = round(total["cost_usd"], 8)
    return total


def baselines(
    target: Target,
    *,
    names: Sequence[str] | None = None,
    trials: int = 1,
    tasks: str | None = None,
    out: str | Path | None = None,
    config: EvalConfig | None = None,
    concurrency: int = 1,
    mapper: Mapper | None = None,
) -> dict[str, Any]:
    """Every scripted baseline on the bundle: one run each under ``out/<name>``, and a combined page."""
    from pipeline.evaluate.baselines import BASELINES, TRIVIAL
    from pipeline.evaluate.judgment import JUDGMENT_BASELINES
    from pipeline.evaluate.report import baseline_table, trivial_passes
    from pipeline.package.report.evaluation import evaluation_page

    names = list(names or [*BASELINES, *JUDGMENT_BASELINES])
    config = config or EvalConfig()
    bundle, _ = open_target(target)
    root = Path(out) if out is not None else DEFAULT_ROOT / f"{bundle.name}-{bundle.version}" / "baselines"
    runs = {}
    for name in names:
        runs[name] = evaluate(
            target,
            policy=name,
            config=config,
            trials=trials,
            tasks=tasks,
            out=root / name,
            concurrency=concurrency,
            mapper=mapper,
        )
    reports = {name: r["report"] for name, r in runs.items()}
    (root / "report.html").write_text(evaluation_page(list(reports.values())), encoding="utf-8")
    return {
        "out": str(root),
        "bundle": bundle.ref,
        "runs": {name: {"out": r["out"], "timing": r["timing"]} for name, r in runs.items()},
        "reports": reports,
        "table": baseline_table(reports, TRIVIAL, list(JUDGMENT_BASELINES)),
        "trivial_passes": trivial_passes(reports, TRIVIAL),
        "text": {name: r["text"] for name, r in runs.items()},
    }
