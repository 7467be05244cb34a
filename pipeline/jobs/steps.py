"""The generation inputs and the five steps as plain functions, each taking the previous product.

The chain that runs them is :func:`pipeline.jobs.recipe.run_recipe`; :data:`PLAIN` is its plain
``Steps``, :func:`generate` runs it. Flows wrap these same functions as Prefect tasks; tests and
scripts call them directly. Each product is small and serialisable (models and paths) so an
orchestrator can cache it. The step bodies stay as they are: a cached step's key includes its source.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.bundle.format import Bundle, archive_path, serialise
from pipeline.bundle.names import check_parent
from pipeline.bundle.versions import is_version
from pipeline.data.populate import DEFAULT_CLOCK, PopulateResult, populate
from pipeline.jobs.recipe import Reporter as Reporter  # re-exported: the CLI and flows import these from here
from pipeline.jobs.recipe import Steps, run_recipe
from pipeline.jobs.recipe import Timings as Timings
from pipeline.jobs.recipe import reporter as reporter
from pipeline.tasks.generate import generate_tasks
from pipeline.tasks.mix import check_mix, mixed_tasks
from pipeline.tasks.model import TaskSet
from pipeline.tools.executor import Executor
from pipeline.tools.openapi import openapi_document, validate_openapi
from pipeline.tools.specs import Toolset, build_toolset
from pipeline.world.blueprint import Blueprint, load_blueprint
from pipeline.world.schema import Schema, build_schema

DEFAULT_VERSION = "1.0.0"


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
    """Rows of the largest table that grows with the world (the others in proportion; fixed lists keep
    their size); overrides ``scale`` when set."""
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
        """``online-store-s0``; a world size other than the default is part of the name
        (``online-store-s0-r5000``, ``-x2.5``), so a different world never shares one
        ``name@version`` (other content under a taken version is refused when written)."""
        base = f"{self.domain.replace('_', '-')}-{'v' if self.variant else 's'}{self.seed}"
        if self.rows is not None:
            base += f"-r{self.rows}"
        if self.scale != 1.0:
            base += f"-x{self.scale:g}"
        return base


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


def tasks_step(inputs: Inputs, schema: Schema, toolset: Toolset, state: Path) -> TaskSet:
    initial = serialise(state)
    executor = Executor(schema, toolset, inputs.clock)
    if inputs.task_mix is not None:
        return mixed_tasks(inputs, schema, toolset, initial, executor)
    return generate_tasks(schema, toolset, initial, executor, inputs.seed, inputs.clock, inputs.tasks_per_family)


def package_step(
    inputs: Inputs,
    out: Path,
    schema: Schema,
    populated: PopulateResult,
    toolset: Toolset,
    taskset: TaskSet,
    llm: dict[str, Any] | None = None,
) -> Bundle:
    """The manifest (:mod:`pipeline.package.manifest`, ``llm`` a scenario's lineage) and the bundle."""
    from pipeline.package.build import package
    from pipeline.package.manifest import manifest_for

    manifest = manifest_for(inputs, schema, populated, toolset, taskset, llm)
    return package(Path(out), manifest, schema, populated.path, toolset, taskset.tasks)


PLAIN: Steps[Path] = Steps(
    schema=schema_step, populate=populate_step, tools=tools_step, tasks=tasks_step, package=package_step
)
"""The five steps as plain functions: what every entry runs without an orchestrator."""


def summary(bundle: Bundle, timings: dict[str, float]) -> dict[str, Any]:
    """What ``synthenv generate --json`` prints; scripts rely on these keys."""
    manifest = bundle.manifest.as_tool_use()
    counts = manifest.counts
    return {
        "path": str(bundle.path),
        "archive": str(archive_path(bundle.path, bundle.name, bundle.version)),
        "digest": bundle.digest,
        "name": bundle.name,
        "version": bundle.version,
        "domain": manifest.domain,
        "seed": manifest.seed,
        "tables": counts.tables,
        "rows": counts.rows,
        "tools": counts.tools,
        "tasks": counts.tasks,
        "dropped": counts.dropped,
        "exploits": counts.exploits,
        "seconds": timings,
    }


def generate(inputs: Inputs, out: Path, workdir: Path, steps: Steps[Path] = PLAIN) -> dict[str, Any]:
    """The recipe without an orchestrator, or with the flow's ``steps``; returns :func:`summary`."""
    result = run_recipe(steps, inputs, Path(out), lambda: Path(workdir))
    return summary(result.bundle, result.seconds)
