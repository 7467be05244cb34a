"""``generate_environment``: the five steps as Prefect tasks, nothing more."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.runtime import flow_run

from pipeline import steps
from pipeline.bundle import write_run_record

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
