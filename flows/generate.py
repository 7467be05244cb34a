"""``generate_environment``: the five steps as Prefect tasks, nothing more; ``generate_from_scenario``:
the same steps after an LLM designed the blueprint (:mod:`pipeline.jobs.scenario`)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.runtime import flow_run

from pipeline.bundle.format import write_run_record
from pipeline.jobs import scenario, steps
from pipeline.llm.client import LLMSettings
from pipeline.llm.scenario import Scenario

schema_task = task(steps.schema_step, name="1-schema")
populate_task = task(steps.populate_step, name="2-populate", retries=1)
tools_task = task(steps.tools_step, name="3-tools")
tasks_task = task(steps.tasks_step, name="4-tasks")
package_task = task(steps.package_step, name="5-package")


@flow(name="generate_environment", log_prints=True)
def generate_environment(inputs: steps.Inputs, out: str) -> dict[str, Any]:
    """One bundle from a domain template and a seed; returns the summary dict."""
    t = steps.Timings()
    with tempfile.TemporaryDirectory(prefix="synthenv-") as work:
        schema = t.run("schema", schema_task, inputs)
        populated = t.run("populate", populate_task, inputs, schema, Path(work))
        toolset = t.run("tools", tools_task, schema, populated.path, inputs.clock)
        taskset = t.run("tasks", tasks_task, inputs, schema, toolset, populated.path)
        bundle = t.run("package", package_task, inputs, Path(out), schema, populated, toolset, taskset)
    # Which run built it is lineage, not content: a sidecar that publish copies to the index.
    write_run_record(bundle.path, {"flow": "generate_environment", "flow_run_id": str(flow_run.id)})
    return steps.summary(bundle, t.seconds)


def _llm_transient(_task: Any, _run: Any, state: Any) -> bool:
    """Retry an LLM step only when the provider may recover (rate limits, timeouts, outages)."""
    try:
        state.result()
    except Exception as exc:
        return scenario.is_transient(exc)
    return False


design_task = task(
    scenario.design_step, name="0-design", retries=1, retry_delay_seconds=10, retry_condition_fn=_llm_transient
)
refine_task = task(
    scenario.refine_step, name="4b-refine", retries=1, retry_delay_seconds=10, retry_condition_fn=_llm_transient
)
package_scenario_task = task(scenario.package_scenario_step, name="5-package")


@flow(name="generate_from_scenario", log_prints=True)
def generate_from_scenario(
    line: Scenario, settings: LLMSettings, options: scenario.ScenarioOptions, out: str
) -> dict[str, Any]:
    """One bundle from a one-line scenario: the model designs the blueprint, the five steps build it,
    the model's paraphrases and proposals join only once proven. Returns the scenario's summary."""
    t = steps.Timings()
    designed = t.run("design", design_task, line, settings, options)
    if designed.blueprint is None:
        return scenario.report(designed, seconds=t.seconds)
    inputs = scenario.inputs_for(designed, options)
    with tempfile.TemporaryDirectory(prefix="synthenv-") as work:
        schema = t.run("schema", schema_task, inputs)
        populated = t.run("populate", populate_task, inputs, schema, Path(work))
        toolset = t.run("tools", tools_task, schema, populated.path, inputs.clock)
        taskset = t.run("tasks", tasks_task, inputs, schema, toolset, populated.path)
        refined = t.run("refine", refine_task, inputs, schema, toolset, populated.path, taskset, settings, options)
        llm = scenario.lineage(designed, refined, settings, options)
        bundle = t.run(
            "package", package_scenario_task, inputs, Path(out), schema, populated, toolset, refined.taskset, llm
        )
    write_run_record(bundle.path, {"flow": "generate_from_scenario", "flow_run_id": str(flow_run.id)})
    return scenario.report(designed, refined, bundle, t.seconds)
