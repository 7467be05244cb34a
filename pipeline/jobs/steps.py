"""The five generation steps as plain functions, each taking the previous product.

Flows wrap these as Prefect tasks; tests and scripts call them directly. Each product
is small and serialisable (models and paths) so an orchestrator can cache it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pipeline import __version__
from pipeline.bundle.format import Bundle, serialise
from pipeline.bundle.names import check_parent
from pipeline.bundle.versions import is_version
from pipeline.data.populate import DEFAULT_CLOCK, PopulateResult, populate
from pipeline.tasks.generate import generate_tasks
from pipeline.tasks.model import TaskSet
from pipeline.tasks.stats import summary as task_summary
from pipeline.tools.executor import Executor
from pipeline.tools.openapi import openapi_document, validate_openapi
from pipeline.tools.specs import Toolset, build_toolset
from pipeline.world.blueprint import Blueprint, load_blueprint
from pipeline.world.schema import Schema, build_schema

DEFAULT_VERSION = "1.0.0"
T = TypeVar("T")


@dataclass(frozen=True)
class Inputs:
    """Everything a bundle is a function of (besides the code version)."""

    domain: str
    seed: int = 0
    scale: float = 1.0
    tasks_per_family: int = 6
    clock: str = DEFAULT_CLOCK
    version: str = DEFAULT_VERSION
    parent: str | None = None
    """The bundle this one regenerates (``name@X.Y.Z`` or ``name@sha256:…``); lineage only."""
    rows: int | None = None
    """Rows of the largest table (the others in proportion); overrides ``scale`` when set."""
    variant: bool = False
    """Vary the domain's blueprint by the seed (:mod:`pipeline.world.variants`) instead of taking it as written."""
    blueprint: str | None = None
    """A blueprint as JSON text (one an LLM wrote, validated) used instead of the template ``domain`` names."""
    task_mix: tuple[tuple[str, int, int], ...] | None = None
    """(family, level, tasks) to generate instead of ``tasks_per_family`` at every level: how a
    curriculum asks the next version for more of the families and levels a model is learning."""

    def __post_init__(self) -> None:
        if self.seed < 0:
            raise ValueError(f"seed must be >= 0, got {self.seed}")
        if not 0 < self.scale <= 25_000:
            raise ValueError(f"scale must be in (0, 25000], got {self.scale}")
        if self.rows is not None and not 1 <= self.rows <= 10_000_000:
            raise ValueError(f"rows must be in 1..10000000, got {self.rows}")
        if not 1 <= self.tasks_per_family <= 500:
            raise ValueError(f"tasks_per_family must be in 1..500, got {self.tasks_per_family}")
        if not is_version(self.version):
            raise ValueError(f"version must be semver X.Y.Z, got {self.version!r}")
        if self.parent is not None:
            check_parent(self.parent)
        if self.task_mix is not None:
            check_mix(self.task_mix)

    @property
    def name(self) -> str:
        if self.variant:
            return f"{self.domain.replace('_', '-')}-v{self.seed}"
        return f"{self.domain.replace('_', '-')}-s{self.seed}"


def blueprint_of(inputs: Inputs) -> Blueprint:
    """The blueprint the inputs carry, else the template ``domain`` names."""
    if inputs.blueprint is not None:
        return Blueprint.model_validate_json(inputs.blueprint)
    return load_blueprint(inputs.domain)


def schema_step(inputs: Inputs) -> Schema:
    """The blueprint as written, or (``variant``) the variant the seed picks."""
    if inputs.variant:
        from pipeline.world.variants import sample_variant

        return sample_variant(blueprint_of(inputs), inputs.seed).schema()
    return build_schema(blueprint_of(inputs), random.Random(inputs.seed))


def populate_step(inputs: Inputs, schema: Schema, workdir: Path) -> PopulateResult:
    """Populate, then run the realism check on the result: any violation fails the build, naming it."""
    from dataclasses import replace

    from pipeline.data.populate import scale_for_rows
    from pipeline.data.state_check import RealismFailure, realism_check, summary

    scale = scale_for_rows(schema, inputs.rows) if inputs.rows is not None else inputs.scale
    result = populate(schema, inputs.seed, Path(workdir) / "state.sqlite", scale, inputs.clock)
    findings = realism_check(schema, result.path, inputs.clock, sqlite_checks=False)
    failed = [str(f) for f in findings if f.rows]
    if failed:
        raise RealismFailure(f"{len(failed)} realism check(s) failed:\n  " + "\n  ".join(failed[:20]))
    return replace(result, realism=summary(findings))


def tools_step(schema: Schema, state: Path | None = None, clock: str = DEFAULT_CLOCK) -> Toolset:
    """Synthesise the tools, validate their schemas and OpenAPI view, and probe each one on ``state``.

    A tool that fails a probe fails the build (:class:`pipeline.tools.probes.ProbeFailure` names it).
    """
    from pipeline.tools.openapi import validate_argument_schemas
    from pipeline.tools.probes import run_probes

    toolset = build_toolset(schema)
    validate_argument_schemas(toolset)
    validate_openapi(openapi_document(toolset, schema.title, DEFAULT_VERSION))
    if state is not None:
        run_probes(schema, toolset, serialise(state), clock)
    return toolset


def check_mix(mix: tuple[tuple[str, int, int], ...]) -> None:
    from pipeline.tasks.families import FAMILIES

    seen = set()
    for family, level, count in mix:
        if family not in FAMILIES:
            raise ValueError(f"task_mix: unknown family {family!r}; known: {', '.join(FAMILIES)}")
        if level not in FAMILIES[family].levels:
            raise ValueError(f"task_mix: {family} has levels {sorted(FAMILIES[family].levels)}, not {level}")
        if not 0 <= count <= 100:
            raise ValueError(f"task_mix: {family} level {level}: count must be in 0..100, got {count}")
        if (family, level) in seen:
            raise ValueError(f"task_mix: {family} level {level} appears twice")
        seen.add((family, level))


def mix_knob(mix: tuple[tuple[str, int, int], ...]) -> dict[str, dict[str, int]]:
    """The mix as the manifest records it: ``{family: {level: tasks}}``."""
    out: dict[str, dict[str, int]] = {}
    for family, level, count in sorted(mix):
        out.setdefault(family, {})[str(level)] = count
    return out


def mixed_tasks(inputs: Inputs, schema: Schema, toolset: Toolset, initial: bytes, executor: Executor) -> TaskSet:
    """``count`` proven tasks per (family, level) of the mix.

    Candidate ``i`` of a family is asked at level ``i mod levels`` (as always), so a family is
    generated far enough to reach each level's count and the tasks past a level's count are
    left out: the kept tasks are exactly those a larger ``tasks_per_family`` would have made.
    """
    from pipeline.tasks.families import FAMILIES

    if inputs.task_mix is None:
        raise ValueError("mixed_tasks needs inputs with a task_mix")
    wanted: dict[str, dict[int, int]] = {}
    for wanted_family, level, count in inputs.task_mix:
        wanted.setdefault(wanted_family, {})[level] = count
    out = TaskSet(tasks=[])
    for name, family in FAMILIES.items():
        counts = {lvl: c for lvl, c in wanted.get(name, {}).items() if c > 0}
        if not counts:
            continue
        n = len(family.levels)
        per_family = max((c - 1) * n + lvl + 1 for lvl, c in counts.items())
        part = generate_tasks(schema, toolset, initial, executor, inputs.seed, inputs.clock, per_family, (name,))
        kept: dict[int, int] = {}
        for task in part.tasks:
            if kept.get(task.level, 0) < counts.get(task.level, 0):
                kept[task.level] = kept.get(task.level, 0) + 1
                out.tasks.append(task)
        out.candidates += part.candidates
        out.dropped.update(part.dropped)
    return out


def tasks_step(inputs: Inputs, schema: Schema, toolset: Toolset, state: Path) -> TaskSet:
    initial = serialise(state)
    executor = Executor(schema, toolset, inputs.clock)
    if inputs.task_mix is not None:
        return mixed_tasks(inputs, schema, toolset, initial, executor)
    return generate_tasks(schema, toolset, initial, executor, inputs.seed, inputs.clock, inputs.tasks_per_family)


def _probe_summary(schema: Schema, toolset: Toolset) -> dict[str, Any]:
    from pipeline.tools.probe_plan import summary

    return summary(schema, toolset)


def manifest_for(
    inputs: Inputs, schema: Schema, populated: PopulateResult, toolset: Toolset, taskset: TaskSet
) -> dict[str, Any]:
    manifest: dict[str, Any] = {
        "name": inputs.name,
        "version": inputs.version,
        "kind": "tool_use",
        "title": schema.title,
        "description": schema.description,
        "domain": inputs.domain,
        "seed": inputs.seed,
        "frozen_clock": inputs.clock,
        "generator_version": __version__,
        "knobs": {
            "scale": inputs.scale,
            "rows": inputs.rows,
            "variant": inputs.variant,
            "tasks_per_family": inputs.tasks_per_family,
        },
        "counts": {
            "tables": len(schema.tables),
            "rows": sum(populated.rows.values()),
            "rows_per_table": populated.rows,
            "tools": len(toolset.tools),
            "tasks": len(taskset.tasks),
            "candidates": taskset.candidates,
            "dropped": dict(sorted(taskset.dropped.items())),
            "exploits": taskset.exploit_counts(),
            "task_figures": task_summary(taskset.tasks),
        },
        "realism": populated.realism,
        "reward_weights": {"outcome": 1.0, "call_valid": 0.0, "call_succeeded": 0.0},
        "tool_probes": _probe_summary(schema, toolset),
        # Deterministic inputs only: a flow run id or publish time would make equal inputs give
        # unequal bytes, so the registry records those in its index entry instead.
        "lineage": {
            "generator": "synthenv",
            "generator_version": __version__,
            "inputs": {
                "domain": inputs.domain,
                "seed": inputs.seed,
                "scale": inputs.scale,
                "rows": inputs.rows,
                "variant": inputs.variant,
                "tasks_per_family": inputs.tasks_per_family,
                "clock": inputs.clock,
            },
            "parent": inputs.parent,
        },
    }
    if inputs.task_mix is not None:  # only then: every other bundle keeps its bytes and digest
        mix = mix_knob(inputs.task_mix)
        manifest["knobs"]["task_mix"] = mix
        manifest["lineage"]["inputs"]["task_mix"] = mix
    return manifest


def package_step(
    inputs: Inputs, out: Path, schema: Schema, populated: PopulateResult, toolset: Toolset, taskset: TaskSet
) -> Bundle:
    from pipeline.package.build import package

    manifest = manifest_for(inputs, schema, populated, toolset, taskset)
    return package(Path(out), manifest, schema, populated.path, toolset, taskset.tasks)


Reporter = Callable[[str, "float | None"], None]
"""Called with (step, None) when a step starts and (step, seconds) when it ends."""

reporter: ContextVar[Reporter | None] = ContextVar("synthenv_step_reporter", default=None)


@dataclass
class Timings:
    """Times each step and tells the active reporter (the CLI's progress display)."""

    seconds: dict[str, float] = field(default_factory=dict)

    def run(self, name: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        report = reporter.get()
        if report is not None:
            report(name, None)
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            self.seconds[name] = round(time.perf_counter() - start, 3)
            if report is not None:
                report(name, self.seconds[name])


def summary(bundle: Bundle, timings: dict[str, float]) -> dict[str, Any]:
    """What ``synthenv generate --json`` prints; scripts rely on these keys."""
    counts = bundle.manifest["counts"]
    return {
        "path": str(bundle.path),
        "archive": str(bundle.path.parent / f"{bundle.name}-{bundle.version}.tar.gz"),
        "digest": bundle.digest,
        "name": bundle.name,
        "version": bundle.version,
        "domain": bundle.manifest["domain"],
        "seed": bundle.manifest["seed"],
        "tables": counts["tables"],
        "rows": counts["rows"],
        "tools": counts["tools"],
        "tasks": counts["tasks"],
        "dropped": counts["dropped"],
        "exploits": counts.get("exploits", {}),
        "seconds": timings,
    }


def generate(inputs: Inputs, out: Path, workdir: Path) -> dict[str, Any]:
    """All five steps without an orchestrator (the flow runs the same functions)."""
    t = Timings()
    schema = t.run("schema", schema_step, inputs)
    populated = t.run("populate", populate_step, inputs, schema, workdir)
    toolset = t.run("tools", tools_step, schema, populated.path, inputs.clock)
    taskset = t.run("tasks", tasks_step, inputs, schema, toolset, populated.path)
    bundle = t.run("package", package_step, inputs, out, schema, populated, toolset, taskset)
    return summary(bundle, t.seconds)
