"""``generate_batch``: many environments at once, each step a cached, retried Prefect task;
``generate_scenario_batch``: the same for scenarios an LLM designs (:mod:`pipeline.jobs.scenario_batch`).

The logic lives in :mod:`pipeline.jobs.batch` (each environment runs the one recipe,
:func:`pipeline.jobs.recipe.run_recipe`); this module only turns its steps into tasks
(cache key = inputs + task source + code version, results persisted so a re-run reuses
them), runs one ``environment`` task per environment on the chosen task runner, and
publishes the summary as an artifact.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from prefect import Task, flow, runtime, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import INPUTS, NO_CACHE, TASK_SOURCE, CacheKeyFnPolicy
from prefect.client.schemas.objects import TaskRun
from prefect.futures import PrefectFuture
from prefect.states import State
from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner
from prefect.transactions import CommitMode, transaction
from prefect.utilities.annotations import unmapped

from pipeline.jobs import batch, scenario, scenario_batch, steps
from pipeline.jobs.recipe import Steps
from pipeline.llm.client import LLMSettings
from pipeline.llm.distinct import DistinctFilter
from pipeline.llm.scenario import Scenario
from pipeline.progress import tick

CODE_VERSION = CacheKeyFnPolicy(cache_key_fn=lambda _ctx, _params: batch.code_version())
CACHED = TASK_SOURCE + INPUTS + CODE_VERSION


def transient(_task: Task[..., Any], _run: TaskRun, state: State[Any]) -> bool:
    """Retry only failures that may pass (I/O, a busy database); bad input fails at once."""
    try:
        state.result()
    except Exception as exc:
        return batch.is_transient(exc)
    return False


def _step(fn: Any, name: str, cached: bool = True) -> Task[..., Any]:
    """A step as a task; the ones that only compute are cached, the ones that write are not."""
    return task(
        name=name,
        cache_policy=CACHED if cached else NO_CACHE,
        persist_result=cached,
        retries=2,
        retry_delay_seconds=1,
        retry_condition_fn=transient,
    )(fn)


STEPS = Steps(
    schema=_step(steps.schema_step, "schema"),
    populate=_step(batch.populate_in, "populate"),
    tools=_step(steps.tools_step, "tools"),
    tasks=_step(steps.tasks_step, "tasks"),
    package=_step(steps.package_step, "package", cached=False),
)
PUBLISH = _step(batch.publish_bundle, "publish", cached=False)


@task(name="environment", task_run_name="{inputs.name}")
def environment(inputs: steps.Inputs, work_root: str, registry: str | None, run: dict[str, Any]) -> batch.EnvResult:
    """All steps of one environment in one worker, so its work directory stays local to them.

    Each step commits its cached result as soon as it completes (EAGER): by default Prefect
    commits nested task results with their parent, so a failure in a later step would
    discard them and a resumed run would redo the finished steps. A failure leaves as
    plain text, which any task runner can carry back.
    """
    try:
        with transaction(commit_mode=CommitMode.EAGER):
            return batch.build_environment(inputs, Path(work_root), registry, STEPS, run, PUBLISH)
    except Exception as exc:
        raise batch.EnvironmentFailed(batch.describe(exc)) from None


def _outcome(inputs: steps.Inputs, future: PrefectFuture[batch.EnvResult]) -> batch.EnvResult:
    """The environment's result, or its failure as a summary line (never raised: failures are isolated)."""
    future.wait()
    result = future.state.result(raise_on_failure=False)
    if isinstance(result, batch.EnvResult):
        return result
    return batch.failed(inputs, result if isinstance(result, BaseException) else RuntimeError(str(future.state)))


WORKERS_ENV = "SYNTHENV_WORKERS"
DASK_ENV = "SYNTHENV_DASK_ADDRESS"


def task_runner(workers: int = 1, dask_address: str | None = None) -> TaskRunner[Any]:
    """Threads on this machine, or Dask: ``local`` starts a LocalCluster of ``workers`` processes.

    Threads overlap I/O (a remote registry) but not the CPU-bound steps, which hold the GIL
    (benchmarks/BATCH.md: two threads build slower than one); Dask worker processes run in parallel.
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if dask_address is None:
        return ThreadPoolTaskRunner(max_workers=workers)
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")  # inherited by worker processes
    from prefect_dask import DaskTaskRunner

    if dask_address == "local":
        return DaskTaskRunner(
            cluster_class="distributed.LocalCluster",
            cluster_kwargs={
                "n_workers": workers,
                "threads_per_worker": 1,
                "processes": True,
                "host": "127.0.0.1",
                "dashboard_address": "127.0.0.1:0",
            },
        )
    return DaskTaskRunner(address=dask_address)


def default_task_runner() -> TaskRunner[Any]:
    """From ``SYNTHENV_WORKERS`` / ``SYNTHENV_DASK_ADDRESS``: how a deployment (which imports this
    module in a fresh process, so ``with_options`` cannot reach it) picks threads or a cluster."""
    workers = os.environ.get(WORKERS_ENV, "1")
    if not workers.isdigit():
        raise ValueError(f"{WORKERS_ENV} must be a positive integer, got {workers!r}")
    return task_runner(int(workers), os.environ.get(DASK_ENV) or None)


@flow(name="generate_batch", task_runner=default_task_runner(), log_prints=True)
def generate_batch(
    n: int,
    domains: list[str] | None = None,
    seed: int = 0,
    registry: str | None = None,
    work: str | None = None,
    variant: bool = False,
    tasks_per_family: int = 6,
    scale: float = 1.0,
    rows: int | None = None,
    summary_path: str | None = None,
) -> dict[str, Any]:
    """Build and publish ``n`` environments; failures are isolated and reported, a re-run resumes."""
    plan = batch.plan_batch(
        n, domains, seed, variant=variant, tasks_per_family=tasks_per_family, scale=scale, rows=rows
    )
    root = Path(work) if work else batch.default_work_root(registry)
    run = {"flow": "generate_batch", "flow_run_id": str(runtime.flow_run.id)}
    start = time.perf_counter()
    futures = environment.map(plan, unmapped(str(root)), unmapped(registry), unmapped(run))
    results = []
    for i, (inputs, future) in enumerate(zip(plan, futures)):
        tick("batch", i, len(plan), inputs.name)
        results.append(_outcome(inputs, future))
    tick("batch", len(plan), len(plan))
    summary = batch.summarise(results, time.perf_counter() - start, registry)
    summary["summary_path"] = str(batch.write_summary(summary, Path(summary_path or root / batch.SUMMARY_FILE)))
    create_markdown_artifact(batch.summary_markdown(summary), key="batch-summary", description="generate_batch summary")
    return summary


def run_batch(workers: int = 1, dask_address: str | None = None, **parameters: Any) -> dict[str, Any]:
    """``generate_batch`` on the task runner the CLI options name."""
    return generate_batch.with_options(task_runner=task_runner(workers, dask_address))(**parameters)


# -- scenarios designed by an LLM ---------------------------------------------------------------


def llm_transient(_task: Task[..., Any], _run: TaskRun, state: State[Any]) -> bool:
    """Retry a design only when the provider may recover (rate limits, timeouts, outages)."""
    try:
        state.result()
    except Exception as exc:
        return scenario.is_transient(exc)
    return False


design = task(
    name="design",
    task_run_name="design-{scenario.slug}",
    retries=1,
    retry_delay_seconds=10,
    retry_condition_fn=llm_transient,
)(scenario.design_step)
SCENARIO_STEPS = scenario.ScenarioSteps(
    STEPS,
    design=design,
    refine=task(name="refine", retries=1, retry_delay_seconds=10, retry_condition_fn=llm_transient)(
        scenario.refine_step
    ),
)


@task(name="scenario-environment", task_run_name="{designed.scenario.slug}")
def scenario_environment(
    designed: scenario.Designed,
    settings: LLMSettings,
    options: scenario.ScenarioOptions,
    work_root: str,
    registry: str | None,
    run: dict[str, Any],
) -> dict[str, Any]:
    """All build steps of one designed scenario in one worker (see ``environment``)."""
    try:
        with transaction(commit_mode=CommitMode.EAGER):
            return scenario_batch.build_scenario(
                designed, settings, options, Path(work_root), registry, run, SCENARIO_STEPS, PUBLISH
            )
    except Exception as exc:
        raise batch.EnvironmentFailed(batch.describe(exc)) from None


def _settled(future: PrefectFuture[Any]) -> Any:
    """A future's result, or its exception (failures are isolated, never raised here)."""
    future.wait()
    result = future.state.result(raise_on_failure=False)
    return result if result is not None else RuntimeError(str(future.state))


@flow(name="generate_scenario_batch", task_runner=default_task_runner(), log_prints=True)
def generate_scenario_batch(
    scenarios: list[Scenario],
    settings: LLMSettings,
    options: scenario.ScenarioOptions,
    registry: str | None = None,
    work: str | None = None,
    summary_path: str | None = None,
    invalid: list[tuple[int, str]] | None = None,
) -> dict[str, Any]:
    """Design every scenario (concurrently, requests capped by the client), reject near-duplicates in
    file order, then build and publish the rest; failures are isolated and reported."""
    start = time.perf_counter()
    root = Path(work) if work else batch.default_work_root(registry)
    run = {"flow": "generate_scenario_batch", "flow_run_id": str(runtime.flow_run.id)}
    distinct = DistinctFilter()
    lines = scenario_batch.invalid_lines(invalid or [])
    admitted, rejected = scenario_batch.admit_scenarios(scenarios, distinct)
    lines += rejected
    designed = []
    futures = design.map(admitted, unmapped(settings), unmapped(options)) if admitted else []
    for s, future in zip(admitted, futures):
        outcome = _settled(future)
        if isinstance(outcome, scenario.Designed):
            designed.append(outcome)
        else:
            lines.append(scenario_batch.failed_line(scenario_batch.design_failed(s, outcome), outcome))
    to_build, set_aside = scenario_batch.admit_blueprints(designed, distinct)
    lines += set_aside
    built = (
        scenario_environment.map(
            to_build, unmapped(settings), unmapped(options), unmapped(str(root)), unmapped(registry), unmapped(run)
        )
        if to_build
        else []
    )
    for d, built_future in zip(to_build, built):
        outcome = _settled(built_future)
        lines.append(outcome if isinstance(outcome, dict) else scenario_batch.failed_line(d, outcome))
    summary = scenario_batch.summarise(lines, time.perf_counter() - start, registry, distinct)
    target = Path(summary_path or root / "scenario-batch-summary.json")
    summary["summary_path"] = str(batch.write_summary(summary, target))
    create_markdown_artifact(
        scenario_batch.summary_markdown(summary), key="scenario-batch-summary", description="scenario batch summary"
    )
    return summary


def run_scenario_batch(workers: int = 1, dask_address: str | None = None, **parameters: Any) -> dict[str, Any]:
    """``generate_scenario_batch`` on the task runner the CLI options name."""
    return generate_scenario_batch.with_options(task_runner=task_runner(workers, dask_address))(**parameters)
