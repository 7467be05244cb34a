"""One environment from a one-line scenario: the model designs, the deterministic pipeline builds.

Steps, each a plain function the flows wrap:

* ``design_step``: scenario → validated blueprint (with corrections), plus vocabularies;
* the recipe (:func:`pipeline.jobs.recipe.run_recipe`) on :class:`~pipeline.jobs.steps.Inputs`
  carrying that blueprint, with
* ``refine_step`` between tasks and package: paraphrases and task proposals, each proven before
  it is kept; the manifest's lineage then names the model, the scenario, the blueprint's digest
  and the cache key of every reply used (:func:`lineage`).

The model's output is data at every step (see :mod:`pipeline.llm`). Every reply is
cached by request hash, so running again with the cache and ``offline`` makes the same
requests, gets the same replies and writes a byte-identical bundle.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Generic

from pipeline.bundle.format import Bundle, archive_path, serialise
from pipeline.jobs.recipe import Refine, Steps, Timings, W, run_recipe
from pipeline.jobs.steps import DEFAULT_VERSION, PLAIN, Inputs
from pipeline.llm.client import Client, LLMError, LLMSettings
from pipeline.llm.scenario import Scenario
from pipeline.llm.usage import Ledger
from pipeline.tasks.model import TaskSet
from pipeline.tools.specs import Toolset
from pipeline.world.schema import Schema

PASSES = ("vocab", "paraphrase", "proposals")


@dataclass(frozen=True)
class ScenarioOptions:
    """What, besides the scenario and the model, an LLM-designed bundle is a function of."""

    seed: int = 0
    passes: tuple[str, ...] = PASSES
    proposals: int = 6
    """Task proposals asked for (the ``proposals`` pass)."""
    attempts: int = 3
    """Blueprint replies at most: the first and its corrections."""
    tasks_per_family: int = 6
    scale: float = 1.0
    rows: int | None = None
    version: str = DEFAULT_VERSION

    def __post_init__(self) -> None:
        unknown = sorted(set(self.passes) - set(PASSES))
        if unknown:
            raise ValueError(f"unknown LLM passes {unknown}; known: {', '.join(PASSES)}")
        if not 1 <= self.attempts <= 10:
            raise ValueError(f"attempts must be in 1..10, got {self.attempts}")
        if not 1 <= self.proposals <= 50:
            raise ValueError(f"proposals must be in 1..50, got {self.proposals}")
        # The build knobs are checked where they are defined.
        Inputs(
            domain="check",
            seed=self.seed,
            scale=self.scale,
            tasks_per_family=self.tasks_per_family,
            rows=self.rows,
            version=self.version,
        )


def is_transient(exc: BaseException) -> bool:
    """Worth another try later: a provider that stayed rate-limited or unreachable through the client's retries."""
    return isinstance(exc, LLMError) and exc.transient


@dataclass
class Designed:
    """The design step's outcome: a blueprint (as canonical JSON), or why there is none."""

    scenario: Scenario
    blueprint: str | None
    reasons: list[str] = field(default_factory=list)
    ledger: Ledger = field(default_factory=Ledger)
    attempts: int = 0
    vocab_kept: list[str] = field(default_factory=list)
    vocab_rejected: dict[str, int] = field(default_factory=dict)
    cleaned: list[str] = field(default_factory=list)
    """Model text changed before it was kept (:mod:`pipeline.llm.sanitize`), ``where: what``."""


def design_step(scenario: Scenario, settings: LLMSettings, options: ScenarioOptions) -> Designed:
    """Scenario → blueprint (corrected up to ``options.attempts`` replies) → vocabularies."""
    from pipeline.llm.blueprint import blueprint_text, draft_blueprint
    from pipeline.llm.vocab import add_vocabularies

    client = Client(settings)
    ledger = Ledger()
    draft = draft_blueprint(scenario, client, ledger, options.attempts)
    tries = len(draft.attempts) + (draft.blueprint is not None)
    if draft.blueprint is None:
        return Designed(scenario, None, draft.reasons, ledger, tries)
    bp, kept, rejected, cleaned = draft.blueprint, [], {}, list(draft.cleaned)
    if "vocab" in options.passes:
        v = add_vocabularies(bp, client, ledger)
        bp, kept, rejected = v.blueprint, v.kept, dict(sorted(v.rejected.items()))
        cleaned += v.cleaned
    return Designed(scenario, blueprint_text(bp), [], ledger, tries, kept, rejected, cleaned)


def inputs_for(designed: Designed, options: ScenarioOptions) -> Inputs:
    if designed.blueprint is None:
        raise ValueError(f"scenario {designed.scenario.name!r} has no blueprint")
    return Inputs(
        domain=designed.scenario.slug,
        seed=options.seed,
        scale=options.scale,
        tasks_per_family=options.tasks_per_family,
        rows=options.rows,
        version=options.version,
        blueprint=designed.blueprint,
    )


@dataclass
class Refined:
    taskset: TaskSet
    ledger: Ledger = field(default_factory=Ledger)
    paraphrased: list[str] = field(default_factory=list)
    paraphrase_rejected: dict[str, int] = field(default_factory=dict)
    proposed: list[str] = field(default_factory=list)
    proposals_dropped: dict[str, int] = field(default_factory=dict)
    cleaned: list[str] = field(default_factory=list)


def refine_step(
    inputs: Inputs,
    schema: Schema,
    toolset: Toolset,
    state: Path,
    taskset: TaskSet,
    settings: LLMSettings,
    options: ScenarioOptions,
) -> Refined:
    """Paraphrase the generated tasks, then add the proven proposals. Fails when no task is proven."""
    from pipeline.llm.paraphrase import paraphrase_tasks
    from pipeline.llm.proposals import propose_tasks
    from pipeline.tools.executor import Executor

    client = Client(settings)
    initial = serialise(state)
    executor = Executor(schema, toolset, inputs.clock)
    out = Refined(
        TaskSet(list(taskset.tasks), Counter(taskset.dropped), taskset.candidates, taskset.exploits, taskset.policy)
    )
    if "paraphrase" in options.passes and out.taskset.tasks:
        p = paraphrase_tasks(out.taskset.tasks, schema, initial, executor, client, out.ledger)
        out.taskset.tasks = p.tasks
        out.paraphrased, out.paraphrase_rejected = p.accepted, dict(sorted(p.rejected.items()))
        out.cleaned += p.cleaned
    if "proposals" in options.passes:
        r = propose_tasks(options.proposals, out.taskset.tasks, schema, toolset, initial, executor, client, out.ledger)
        out.taskset.tasks = [*out.taskset.tasks, *r.tasks]
        out.taskset.candidates += options.proposals
        out.taskset.dropped.update({f"proposal:{k}": v for k, v in r.dropped.items()})
        out.proposed, out.proposals_dropped = [t.id for t in r.tasks], dict(sorted(r.dropped.items()))
        out.cleaned += r.cleaned
    if not out.taskset.tasks:
        raise ValueError(f"{inputs.name}: no task could be proven in this world; nothing is shipped")
    return out


def lineage(designed: Designed, refined: Refined, settings: LLMSettings, options: ScenarioOptions) -> dict[str, Any]:
    """What the manifest records of the model's part: enough to replay it from the cache."""
    ledger = Ledger().merge(designed.ledger).merge(refined.ledger)
    return {
        "model": settings.model,
        "temperature": settings.temperature,
        "max_tokens": settings.max_tokens,
        "scenario": {"name": designed.scenario.name, "description": designed.scenario.description},
        "blueprint_sha256": hashlib.sha256(str(designed.blueprint).encode("utf-8")).hexdigest(),
        "passes": [p for p in PASSES if p in options.passes],
        "attempts": options.attempts,
        "proposals": options.proposals if "proposals" in options.passes else 0,
        "cache_keys": ledger.keys(),
        "vocabularies": designed.vocab_kept,
        "paraphrased": refined.paraphrased,
        "proposed": refined.proposed,
        "cleaned": [*designed.cleaned, *refined.cleaned],
    }


def report(
    designed: Designed,
    refined: Refined | None = None,
    bundle: Bundle | None = None,
    seconds: dict[str, float] | None = None,
    status: str | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    """One scenario's line in a summary: outcome, counts, and tokens and cost per step."""
    ledger = Ledger().merge(designed.ledger)
    if refined is not None:
        ledger.merge(refined.ledger)
    counts = bundle.manifest.as_tool_use().counts if bundle is not None else None
    return {
        "scenario": designed.scenario.name,
        "status": status or ("built" if bundle is not None else "dropped"),
        "name": bundle.name if bundle is not None else None,
        "version": bundle.version if bundle is not None else None,
        "path": str(bundle.path) if bundle is not None else None,
        "archive": str(archive_path(bundle.path, bundle.name, bundle.version)) if bundle is not None else None,
        "digest": bundle.digest if bundle is not None else None,
        "domain": designed.scenario.slug,
        "seed": bundle.manifest.seed if bundle is not None else None,
        "tables": counts.tables if counts else 0,
        "rows": counts.rows if counts else 0,
        "tools": counts.tools if counts else 0,
        "tasks": counts.tasks if counts else 0,
        "dropped": counts.dropped if counts else {},
        "reasons": designed.reasons if designed.blueprint is None else ([error] if error else []),
        "blueprint_attempts": designed.attempts,
        "vocabularies": {"kept": len(designed.vocab_kept), "rejected": designed.vocab_rejected},
        "paraphrases": {
            "accepted": len(refined.paraphrased) if refined else 0,
            "rejected": refined.paraphrase_rejected if refined else {},
        },
        "proposals": {
            "kept": len(refined.proposed) if refined else 0,
            "dropped": refined.proposals_dropped if refined else {},
        },
        "cleaned": [*designed.cleaned, *(refined.cleaned if refined else [])],
        "llm": ledger.summary(),
        "seconds": seconds or {},
    }


@dataclass(frozen=True)
class ScenarioSteps(Generic[W]):
    """A scenario's steps: ``design`` before the recipe, the recipe's five, ``refine`` inside it;
    a flow passes the same functions as Prefect tasks (LLM steps retried while the provider may recover)."""

    recipe: Steps[W]
    design: Callable[[Scenario, LLMSettings, ScenarioOptions], Designed] = design_step
    refine: Callable[[Inputs, Schema, Toolset, Path, TaskSet, LLMSettings, ScenarioOptions], Refined] = refine_step


def refinement(
    designed: Designed, settings: LLMSettings, options: ScenarioOptions, step: Callable[..., Refined] = refine_step
) -> Refine[Refined]:
    """The refine step the recipe runs for ``designed`` (bound to the model and the passes) and its lineage."""
    return Refine(
        step=partial(step, settings=settings, options=options),
        lineage=partial(lineage, designed, settings=settings, options=options),
    )


PLAIN_SCENARIO: ScenarioSteps[Path] = ScenarioSteps(PLAIN)


def generate_scenario(
    scenario: Scenario,
    settings: LLMSettings,
    options: ScenarioOptions,
    out: Path,
    workdir: Path,
    steps: ScenarioSteps[Path] = PLAIN_SCENARIO,
) -> dict[str, Any]:
    """Design, then the recipe with the refine step; plain functions, or the ``generate_from_scenario``
    flow's tasks. Returns the scenario's summary line (``dropped`` when no blueprint validated)."""
    t = Timings()
    designed = t.run("design", steps.design, scenario, settings, options)
    if designed.blueprint is None:
        return report(designed, seconds=t.seconds)
    inputs = inputs_for(designed, options)
    refine = refinement(designed, settings, options, steps.refine)
    result = run_recipe(steps.recipe, inputs, Path(out), lambda: Path(workdir), refine=refine, timings=t)
    return report(designed, result.refined, result.bundle, result.seconds)
