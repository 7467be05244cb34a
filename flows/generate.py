"""``generate_environment`` and ``generate_from_scenario``: the recipe with Prefect tasks as its steps.

Both run the same function as ``--no-prefect`` (:func:`pipeline.jobs.steps.generate`,
:func:`pipeline.jobs.scenario.generate_scenario`); this module only supplies the steps as tasks
and records which flow run built the bundle.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.runtime import flow_run

from pipeline.bundle.format import write_run_record
from pipeline.jobs import scenario, steps
from pipeline.jobs.recipe import Steps
from pipeline.llm.client import LLMSettings
from pipeline.llm.scenario import Scenario

STEPS = Steps(
    schema=task(name="1-schema")(steps.schema_step),
    populate=task(name="2-populate", retries=1)(steps.populate_step),
    tools=task(name="3-tools")(steps.tools_step),
    tasks=task(name="4-tasks")(steps.tasks_step),
    package=task(name="5-package")(steps.package_step),
)


@flow(name="generate_environment", log_prints=True)
def generate_environment(inputs: steps.Inputs, out: str) -> dict[str, Any]:
    """One bundle from a domain template and a seed; returns the summary dict."""
    with tempfile.TemporaryDirectory(prefix="synthenv-") as work:
        summary = steps.generate(inputs, Path(out), Path(work), STEPS)
    # Which run built it is lineage, not content: a sidecar that publish copies to the index.
    write_run_record(summary["path"], {"flow": "generate_environment", "flow_run_id": str(flow_run.id)})
    return summary


def _llm_transient(_task: Any, _run: Any, state: Any) -> bool:
    """Retry an LLM step only when the provider may recover (rate limits, timeouts, outages)."""
    try:
        state.result()
    except Exception as exc:
        return scenario.is_transient(exc)
    return False


SCENARIO_STEPS = scenario.ScenarioSteps(
    STEPS,
    design=task(name="0-design", retries=1, retry_delay_seconds=10, retry_condition_fn=_llm_transient)(
        scenario.design_step
    ),
    refine=task(name="4b-refine", retries=1, retry_delay_seconds=10, retry_condition_fn=_llm_transient)(
        scenario.refine_step
    ),
)


@flow(name="generate_from_scenario", log_prints=True)
def generate_from_scenario(
    line: Scenario, settings: LLMSettings, options: scenario.ScenarioOptions, out: str
) -> dict[str, Any]:
    """One bundle from a one-line scenario: the model designs the blueprint, the five steps build it,
    the model's paraphrases and proposals join only once proven. Returns the scenario's summary."""
    with tempfile.TemporaryDirectory(prefix="synthenv-") as work:
        summary = scenario.generate_scenario(line, settings, options, Path(out), Path(work), SCENARIO_STEPS)
    if summary["path"] is not None:
        write_run_record(summary["path"], {"flow": "generate_from_scenario", "flow_run_id": str(flow_run.id)})
    return summary
