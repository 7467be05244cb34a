"""The manifest of a tool-use bundle: what it is, what it was made from and what it holds.

Its model (every field, described) is :class:`pipeline.bundle.manifest.ToolUseManifest`; it is
assembled here, beside :func:`pipeline.package.build.package` that writes it, from the products of
the four earlier steps and the generation inputs (``pipeline.jobs.steps.Inputs``, read through
:class:`ManifestInputs` so this package does not depend on the jobs that drive it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from pipeline import __version__
from pipeline.bundle.manifest import LineageInputs, ToolUseCounts, ToolUseKnobs, ToolUseLineage, ToolUseManifest
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
) -> ToolUseManifest:
    """The manifest; ``llm`` (a scenario's model, replies and passes) joins the lineage when given.

    Optional fields (the policy, a task mix, a scenario's model) are set only when there is one,
    so every other bundle keeps its bytes and digest: a field left unset is left out of the file.
    """
    mix = mix_knob(inputs.task_mix) if inputs.task_mix is not None else None
    with_mix = {"task_mix": mix} if mix is not None else {}
    manifest = ToolUseManifest(
        name=inputs.name,
        version=inputs.version,
        kind="tool_use",
        title=schema.title,
        description=schema.description,
        domain=inputs.domain,
        seed=inputs.seed,
        frozen_clock=inputs.clock,
        generator_version=__version__,
        knobs=ToolUseKnobs(
            scale=inputs.scale,
            rows=inputs.rows,
            variant=inputs.variant,
            tasks_per_family=inputs.tasks_per_family,
            **with_mix,
        ),
        counts=ToolUseCounts(
            tables=len(schema.tables),
            rows=sum(populated.rows.values()),
            rows_per_table=populated.rows,
            tools=len(toolset.tools),
            tasks=len(taskset.tasks),
            candidates=taskset.candidates,
            dropped=dict(sorted(taskset.dropped.items())),
            exploits=taskset.exploit_counts(),
            task_figures=task_summary(taskset.tasks),
        ),
        realism=populated.realism,
        reward_weights={"outcome": 1.0, "call_valid": 0.0, "call_succeeded": 0.0},
        tool_probes=_probe_summary(schema, toolset),
        # Deterministic inputs only: a flow run id or publish time would make equal inputs give
        # unequal bytes, so the registry records those in its index entry instead.
        lineage=ToolUseLineage(
            generator="synthenv",
            generator_version=__version__,
            inputs=LineageInputs(
                domain=inputs.domain,
                seed=inputs.seed,
                scale=inputs.scale,
                rows=inputs.rows,
                variant=inputs.variant,
                tasks_per_family=inputs.tasks_per_family,
                clock=inputs.clock,
                **with_mix,
            ),
            parent=inputs.parent,
            **({"llm": dict(llm)} if llm is not None else {}),
        ),
    )
    policy = taskset.policy
    if policy is not None and policy.rules:
        manifest = manifest.with_changes(policy=policy.text(), policy_rules=policy.model_dump(mode="json"))
    return manifest
