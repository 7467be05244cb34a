"""``evaluate_bundle`` and ``evaluate_baselines``: a policy on a bundle, each task's trials a Prefect task.

The logic is :mod:`pipeline.jobs.evaluate`; this module only supplies the mapper that
submits one ``play-task`` run per pending task on a thread pool of ``concurrency``
workers (model requests are I/O: threads overlap them), and publishes the report as an
artifact. Resuming is the run directory's business, not Prefect's cache: a re-run plays
only the episodes without a result, so it works the same with or without the orchestrator.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE
from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner

from pipeline.evaluate.config import EvalConfig
from pipeline.jobs import evaluate as job

Play = Callable[[str, list[int]], list[dict[str, Any]]]


def _play(fn: Play, task_id: str, trials: list[int]) -> list[dict[str, Any]]:
    return fn(task_id, trials)


play_task = task(name="play-task", cache_policy=NO_CACHE, task_run_name="play-{task_id}")(_play)


def prefect_mapper(fn: Play, groups: list[tuple[str, list[int]]]) -> Any:
    """One Prefect task per task id, on the flow's task runner; results in input order."""
    futures = [play_task.submit(fn, tid, trials) for tid, trials in groups]
    return [f.result() for f in futures]


def _threads(workers: int) -> TaskRunner[Any]:
    """A thread pool as the task runner Prefect's flow options are typed to take."""
    return ThreadPoolTaskRunner(max_workers=workers)


def _artifact(text: str, key: str) -> None:
    create_markdown_artifact("```\n" + text + "```\n", key=key, description="evaluation report")


@flow(name="evaluate_bundle", task_runner=_threads(4), log_prints=True)
def evaluate_bundle(
    bundle: str,
    registry: str | None = None,
    policy: str | None = None,
    settings: Any | None = None,
    config: dict[str, Any] | None = None,
    trials: int = 1,
    tasks: str | None = None,
    out: str | None = None,
    concurrency: int = 4,
) -> dict[str, Any]:
    """Evaluate ``policy`` (a baseline) or the model in ``settings`` on ``bundle``; resumable."""
    summary = job.evaluate(
        job.Target(bundle, registry),
        policy=policy,
        settings=settings,
        config=EvalConfig.from_dict(config or {}),
        trials=trials,
        tasks=tasks,
        out=out,
        concurrency=concurrency,
        mapper=prefect_mapper,
    )
    _artifact(summary["text"], "evaluation-report")
    return summary


def run_evaluation(concurrency: int = 4, **parameters: Any) -> dict[str, Any]:
    """``evaluate_bundle`` with a thread pool of ``concurrency`` episodes in flight."""
    return evaluate_bundle.with_options(task_runner=_threads(concurrency))(concurrency=concurrency, **parameters)


@flow(name="evaluate_baselines", task_runner=_threads(1), log_prints=True)
def evaluate_baselines(
    bundle: str,
    registry: str | None = None,
    names: list[str] | None = None,
    config: dict[str, Any] | None = None,
    trials: int = 1,
    tasks: str | None = None,
    out: str | None = None,
) -> dict[str, Any]:
    """Every scripted baseline on ``bundle`` (no model needed); their pass rates per level side by side."""
    summary = job.baselines(
        job.Target(bundle, registry),
        names=names,
        trials=trials,
        tasks=tasks,
        out=out,
        config=EvalConfig.from_dict(config or {}),
        mapper=prefect_mapper,
    )
    _artifact(summary["table"], "baseline-report")
    return summary
