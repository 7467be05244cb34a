"""A batch of scenarios (one JSON object per line): design each, drop near-duplicates, build and publish.

Three phases, so that what is rejected does not depend on scheduling:

1. scenarios are admitted in file order (invalid lines and near-duplicate scenarios are
   set aside before any request is made);
2. each admitted scenario is designed (the flow runs these concurrently, the client caps
   requests in flight);
3. blueprints are admitted in file order against the ones before them, then each is
   built, proven and published like any environment of :mod:`pipeline.jobs.batch`
   (same work directories, same skip-if-published rule, with a key that also covers the
   model and the LLM passes).

Plain functions; ``flows/batch.py`` passes Prefect tasks as the steps (a :class:`ScenarioSteps`
around the batch's recipe steps, and the publish step).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Any

from pipeline.jobs.batch import (
    STEPS,
    Publish,
    Workdir,
    _published,
    describe,
    inputs_key,
    prepare_workdir,
    publish_bundle,
    workdir_path,
    write_summary,
)
from pipeline.jobs.recipe import Timings, run_recipe
from pipeline.jobs.scenario import (
    Designed,
    ScenarioOptions,
    ScenarioSteps,
    design_step,
    inputs_for,
    refinement,
    report,
)
from pipeline.jobs.steps import Inputs
from pipeline.llm.client import LLMError, LLMSettings
from pipeline.llm.distinct import DistinctFilter
from pipeline.llm.scenario import Scenario
from pipeline.llm.usage import Ledger

STATUSES = ("published", "unchanged", "skipped", "failed", "dropped", "rejected", "invalid")
"""published/unchanged/skipped/failed as in a batch; dropped: the blueprint never validated;
rejected: a near-duplicate of an earlier scenario or blueprint; invalid: a line that is not a scenario."""


SCENARIO_STEPS: ScenarioSteps[Workdir] = ScenarioSteps(STEPS)
"""The batch's recipe steps (populate into the durable work directory) with the scenario's design and refine."""


def scenario_key(inputs: Inputs, settings: LLMSettings, options: ScenarioOptions) -> str:
    """The inputs key plus what the LLM passes after design depend on."""
    llm = {"model": settings.model, "temperature": settings.temperature, "max_tokens": settings.max_tokens}
    payload = json.dumps({"inputs": inputs_key(inputs), "llm": llm, "options": asdict(options)}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def _line(name: str, status: str, reasons: list[str]) -> dict[str, Any]:
    """A summary line for a scenario that never reached the model or the builder."""
    return report(Designed(Scenario(name=name[:80] or "?", description="-"), None, reasons), status=status)


def invalid_lines(invalid: Sequence[tuple[int, str]]) -> list[dict[str, Any]]:
    return [_line(f"line {n}", "invalid", [reason]) for n, reason in invalid]


def admit_scenarios(scenarios: Sequence[Scenario], distinct: DistinctFilter) -> tuple[list[Scenario], list[dict]]:
    """Scenarios kept, in order, and summary lines for the near-duplicates."""
    kept, lines = [], []
    for s in scenarios:
        r = distinct.admit_scenario(s)
        if r is None:
            kept.append(s)
        else:
            lines.append(_line(s.name, "rejected", [f"near-duplicate {r.kind} of {r.like!r} ({r.similarity})"]))
    return kept, lines


def admit_blueprints(designed: Sequence[Designed], distinct: DistinctFilter) -> tuple[list[Designed], list[dict]]:
    """Designed scenarios to build, in order; summary lines for the dropped and the near-duplicates."""
    from pipeline.world.blueprint import Blueprint

    kept, lines = [], []
    for d in designed:
        if d.blueprint is None:
            lines.append(report(d, status="dropped"))
            continue
        r = distinct.admit_blueprint(d.scenario.name, Blueprint.model_validate_json(d.blueprint))
        if r is None:
            kept.append(d)
        else:
            d.reasons = [f"near-duplicate {r.kind} of {r.like!r} ({r.similarity})"]
            lines.append(report(d, status="rejected", error=d.reasons[0]))
    return kept, lines


def design_failed(s: Scenario, exc: BaseException) -> Designed:
    return Designed(s, None, [describe(exc)])


def build_scenario(
    designed: Designed,
    settings: LLMSettings,
    options: ScenarioOptions,
    work_root: Path,
    registry: str | None,
    run: Mapping[str, Any] | None = None,
    steps: ScenarioSteps[Workdir] = SCENARIO_STEPS,
    publish: Publish = publish_bundle,
) -> dict[str, Any]:
    """Build, prove, package and publish one designed scenario unless the registry already holds it."""
    inputs = inputs_for(designed, options)
    key = scenario_key(inputs, settings, options)
    workdir = workdir_path(Path(work_root), inputs)
    done = _published(registry, inputs, key)
    if done is not None:
        shutil.rmtree(workdir, ignore_errors=True)
        line = report(designed, status="skipped")
        line.update(name=inputs.name, version=inputs.version, ref=done.ref, digest=done.digest, tasks=done.tasks)
        return line
    t = Timings()
    refine = refinement(designed, settings, options, steps.refine)
    prepare = partial(prepare_workdir, Path(work_root), inputs)
    result = run_recipe(steps.recipe, inputs, workdir / "out", prepare, refine=refine, timings=t)
    published = t.run("publish", publish, result.bundle.path, registry, {**(run or {}), "inputs_key": key})
    status = "published" if published["created"] else "unchanged"
    line = report(designed, result.refined, result.bundle, t.seconds, status=status)
    line["ref"] = published["ref"]
    shutil.rmtree(workdir, ignore_errors=True)
    return line


def failed_line(designed: Designed, exc: BaseException | str) -> dict[str, Any]:
    return report(designed, status="failed", error=exc if isinstance(exc, str) else describe(exc))


def summarise(
    lines: Sequence[dict[str, Any]], seconds: float, registry: str | None, distinct: DistinctFilter
) -> dict[str, Any]:
    """Counts by status, tokens and cost per scenario (in each line) and per step (in total), rejections."""
    counts = Counter(line["status"] for line in lines)
    dropped: Counter[str] = Counter()
    for line in lines:
        dropped.update(line["dropped"])
    ledger = Ledger.total_of(Ledger.from_summary(line["llm"]) for line in lines)
    return {
        "scenarios": len(lines),
        "counts": {s: counts[s] for s in STATUSES},
        "ok": counts["failed"] == 0,
        "tasks": sum(line["tasks"] for line in lines),
        "dropped": dict(sorted(dropped.items())),
        "distinct": distinct.report(),
        "llm": ledger.summary(),
        "seconds": round(seconds, 3),
        "registry": registry,
        "results": list(lines),
    }


def run_scenario_batch(
    scenarios: Sequence[Scenario],
    settings: LLMSettings,
    options: ScenarioOptions,
    work_root: Path,
    registry: str | None,
    invalid: Sequence[tuple[int, str]] = (),
    summary_path: Path | None = None,
    run: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The orchestrator-free path: every phase in turn, each scenario's failure isolated."""
    start = time.perf_counter()
    distinct = DistinctFilter()
    lines = invalid_lines(invalid)
    admitted, rejected = admit_scenarios(scenarios, distinct)
    lines += rejected
    designed = []
    for s in admitted:
        try:
            designed.append(design_step(s, settings, options))
        except (LLMError, ValueError, OSError) as exc:
            lines.append(failed_line(design_failed(s, exc), exc))
    to_build, set_aside = admit_blueprints(designed, distinct)
    lines += set_aside
    for d in to_build:
        try:
            lines.append(build_scenario(d, settings, options, work_root, registry, run or {"flow": "none"}))
        except Exception as exc:  # isolation is the point: one scenario never stops the others
            lines.append(failed_line(d, exc))
    summary = summarise(lines, time.perf_counter() - start, registry, distinct)
    target = Path(summary_path or Path(work_root) / "scenario-batch-summary.json")
    summary["summary_path"] = str(write_summary(summary, target))
    return summary


def _cell(value: Any, limit: int = 120) -> str:
    text = str(value).replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summary_markdown(s: Mapping[str, Any]) -> str:
    """The summary as a markdown table (the Prefect artifact)."""
    c, total = s["counts"], s["llm"]["total"]
    head = ", ".join(f"{c[k]} {k}" for k in STATUSES if c[k])
    lines = [
        f"# Batch of {s['scenarios']} scenarios",
        "",
        f"{head}; {s['tasks']} tasks; {total['prompt_tokens']} prompt + {total['completion_tokens']} completion "
        f"tokens, ${total['cost_usd']:.4f} spent; near-duplicate threshold {s['distinct']['threshold']}.",
        "",
        "| scenario | status | tasks | tokens | cost $ | digest or reasons |",
        "|---|---|---:|---:|---:|---|",
    ]
    for r in s["results"]:
        t = r["llm"]["total"]
        detail = f"`{r['digest']}`" if r["digest"] else _cell("; ".join(r["reasons"]))
        lines.append(
            f"| {_cell(r['scenario'])} | {r['status']} | {r['tasks']} | "
            f"{t['prompt_tokens'] + t['completion_tokens']} | {t['cost_usd']:.4f} | {detail} |"
        )
    return "\n".join(lines) + "\n"
