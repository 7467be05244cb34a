"""``update_curriculum``: rollout results in, curriculum state updated, next bundle published."""

from __future__ import annotations

from typing import Any

from prefect import flow, runtime, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE

from flows.batch import transient
from pipeline.jobs import curriculum as curriculum_loop
from pipeline.jobs import task_mix

STEPS = curriculum_loop.LoopSteps(
    read=task(name="read-results", cache_policy=NO_CACHE)(curriculum_loop.read_results),
    open=task(
        name="open-bundles", cache_policy=NO_CACHE, retries=2, retry_delay_seconds=1, retry_condition_fn=transient
    )(curriculum_loop.open_bundles),
    publish=task(
        name="build-and-publish-next",
        cache_policy=NO_CACHE,
        retries=2,
        retry_delay_seconds=1,
        retry_condition_fn=transient,
    )(curriculum_loop.publish_next),
    publish_mix=task(
        name="regenerate-and-publish-next",
        cache_policy=NO_CACHE,
        retries=2,
        retry_delay_seconds=1,
        retry_condition_fn=transient,
    )(task_mix.publish_next),
)


@flow(name="update_curriculum", log_prints=True)
def update_curriculum(
    results: str,
    state: str | None = None,
    registry: str | None = None,
    work: str | None = None,
    target: tuple[float, float] = curriculum_loop.DEFAULT_TARGET,
    min_samples: int | None = None,
) -> dict[str, Any]:
    """Apply a results file (once) to the curriculum and publish the next version if a level moved."""
    run = {"flow": "update_curriculum", "flow_run_id": str(runtime.flow_run.id)}
    report = curriculum_loop.update(results, state, registry, work, STEPS, run, target, min_samples).as_dict()
    create_markdown_artifact(
        curriculum_loop.report_markdown(report), key="curriculum-update", description="update_curriculum report"
    )
    return report
