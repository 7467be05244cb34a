"""The manifest of a tool-use bundle: what it is, what it was made from and what it holds.

Assembled here, beside :func:`pipeline.package.build.package` that writes it, from the products of
the four earlier steps and the generation inputs (``pipeline.jobs.steps.Inputs``, read through
:class:`ManifestInputs` so this package does not depend on the jobs that drive it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from pipeline import __version__
from pipeline.data.populate import PopulateResult
from pipeline.tasks.mix import Mix, mix_knob
from pipeline.tasks.model import TaskSet
from pipeline.tasks.stats import summary as task_summary
from pipeline.tools.specs import Toolset
from pipeline.world.schema import Schema


class ManifestInputs(Protocol):
    """The generation inputs a manifest records."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def domain(self) -> str: ...

    @property
    def seed(self) -> int: ...

    @property
    def scale(self) -> float: ...

    @property
    def rows(self) -> int | None: ...

    @property
    def variant(self) -> bool: ...

    @property
    def tasks_per_family(self) -> int: ...

    @property
    def clock(self) -> str: ...

    @property
    def parent(self) -> str | None: ...

    @property
    def task_mix(self) -> Mix | None: ...


def _probe_summary(schema: Schema, toolset: Toolset) -> dict[str, Any]:
    from pipeline.tools.probe_plan import summary

    return summary(schema, toolset)


def manifest_for(
    inputs: ManifestInputs,
    schema: Schema,
    populated: PopulateResult,
    toolset: Toolset,
    taskset: TaskSet,
    llm: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The manifest; ``llm`` (a scenario's model, replies and passes) joins the lineage when given."""
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
    if taskset.policy is not None and taskset.policy.rules:
        manifest["policy"] = taskset.policy.text()
        manifest["policy_rules"] = taskset.policy.model_dump(mode="json")
    if inputs.task_mix is not None:  # only then: every other bundle keeps its bytes and digest
        mix = mix_knob(inputs.task_mix)
        manifest["knobs"]["task_mix"] = mix
        manifest["lineage"]["inputs"]["task_mix"] = mix
    if llm is not None:  # a scenario's bundle only, so every other bundle keeps its bytes
        manifest["lineage"]["llm"] = dict(llm)
    return manifest
