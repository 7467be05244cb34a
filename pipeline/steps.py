"""The five generation steps as plain functions, each taking the previous product.

Flows wrap these as Prefect tasks; tests and scripts call them directly. Each product
is small and serialisable (models and paths) so an orchestrator can cache it.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pipeline import __version__
from pipeline.blueprint import load_blueprint
from pipeline.bundle import Bundle
from pipeline.populate import DEFAULT_CLOCK, PopulateResult, populate
from pipeline.runtime.executor import Executor
from pipeline.runtime.session import serialise
from pipeline.schema import Schema, build_schema
from pipeline.tasks import TaskSet, generate_tasks
from pipeline.tools import Toolset, build_toolset, openapi_document, validate_openapi

DEFAULT_VERSION = "1.0.0"
_SEMVER = re.compile(r"^\d+\.\d+\.\d+$")
_PARENT = re.compile(r"^[a-z0-9][a-z0-9._-]*@(\d+\.\d+\.\d+|sha256:[0-9a-f]{64})$")
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
    """Vary the domain's blueprint by the seed (:mod:`pipeline.variants`) instead of taking it as written."""

    def __post_init__(self) -> None:
        if self.seed < 0:
            raise ValueError(f"seed must be >= 0, got {self.seed}")
        if not 0 < self.scale <= 25_000:
            raise ValueError(f"scale must be in (0, 25000], got {self.scale}")
        if self.rows is not None and not 1 <= self.rows <= 10_000_000:
            raise ValueError(f"rows must be in 1..10000000, got {self.rows}")
        if not 1 <= self.tasks_per_family <= 500:
            raise ValueError(f"tasks_per_family must be in 1..500, got {self.tasks_per_family}")
        if not _SEMVER.match(self.version):
            raise ValueError(f"version must be semver X.Y.Z, got {self.version!r}")
        if self.parent is not None and not _PARENT.match(self.parent):
            raise ValueError(f"parent must be name@X.Y.Z or name@sha256:<64 hex>, got {self.parent!r}")

    @property
    def name(self) -> str:
        if self.variant:
            return f"{self.domain.replace('_', '-')}-v{self.seed}"
        return f"{self.domain.replace('_', '-')}-s{self.seed}"


def schema_step(inputs: Inputs) -> Schema:
    """The blueprint as written, or (``variant``) the variant the seed picks."""
    if inputs.variant:
        from pipeline.variants import sample_variant

        return sample_variant(load_blueprint(inputs.domain), inputs.seed).schema()
    return build_schema(load_blueprint(inputs.domain), random.Random(inputs.seed))


def populate_step(inputs: Inputs, schema: Schema, workdir: Path) -> PopulateResult:
    from pipeline.populate import scale_for_rows

    scale = scale_for_rows(schema, inputs.rows) if inputs.rows is not None else inputs.scale
    return populate(schema, inputs.seed, Path(workdir) / "state.sqlite", scale, inputs.clock)


def tools_step(schema: Schema, state: Path | None = None, clock: str = DEFAULT_CLOCK) -> Toolset:
    """Synthesise the tools, validate their schemas and OpenAPI view, and probe each one on ``state``.

    A tool that fails a probe fails the build (:class:`pipeline.probes.ProbeFailure` names it).
    """
    from pipeline.probes import run_probes
    from pipeline.tools import validate_argument_schemas

    toolset = build_toolset(schema)
    validate_argument_schemas(toolset)
    validate_openapi(openapi_document(toolset, schema.title, DEFAULT_VERSION))
    if state is not None:
        run_probes(schema, toolset, serialise(state), clock)
    return toolset


def tasks_step(inputs: Inputs, schema: Schema, toolset: Toolset, state: Path) -> TaskSet:
    initial = serialise(state)
    executor = Executor(schema, toolset, inputs.clock)
    return generate_tasks(schema, toolset, initial, executor, inputs.seed, inputs.clock, inputs.tasks_per_family)


def _probe_summary(schema: Schema, toolset: Toolset) -> dict[str, Any]:
    from pipeline.probes import summary

    return summary(schema, toolset)


def manifest_for(inputs: Inputs, schema: Schema, populated: PopulateResult, toolset: Toolset, taskset: TaskSet) -> dict[str, Any]:
    return {
        "name": inputs.name,
        "version": inputs.version,
        "kind": "tool_use",
        "title": schema.title,
        "description": schema.description,
        "domain": inputs.domain,
        "seed": inputs.seed,
        "frozen_clock": inputs.clock,
        "generator_version": __version__,
        "knobs": {"scale": inputs.scale, "rows": inputs.rows, "variant": inputs.variant,
                  "tasks_per_family": inputs.tasks_per_family},
        "counts": {
            "tables": len(schema.tables),
            "rows": sum(populated.rows.values()),
            "rows_per_table": populated.rows,
            "tools": len(toolset.tools),
            "tasks": len(taskset.tasks),
            "candidates": taskset.candidates,
            "dropped": dict(sorted(taskset.dropped.items())),
            "task_figures": taskset.figures(),
        },
        "reward_weights": {"outcome": 1.0, "call_valid": 0.0, "call_succeeded": 0.0},
        "tool_probes": _probe_summary(schema, toolset),
        # Deterministic inputs only: a flow run id or publish time would make equal inputs give
        # unequal bytes, so the registry records those in its index entry instead.
        "lineage": {
            "generator": "synthenv",
            "generator_version": __version__,
            "inputs": {"domain": inputs.domain, "seed": inputs.seed, "scale": inputs.scale, "rows": inputs.rows,
                       "variant": inputs.variant, "tasks_per_family": inputs.tasks_per_family,
                       "clock": inputs.clock},
            "parent": inputs.parent,
        },
    }


def package_step(inputs: Inputs, out: Path, schema: Schema, populated: PopulateResult, toolset: Toolset,
                 taskset: TaskSet) -> Bundle:
    from pipeline.package import package

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
