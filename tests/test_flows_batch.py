"""The flows wired to Prefect: one temporary server for the module, a few end-to-end runs.

The logic is tested as plain functions (test_batch.py, test_curriculum_loop.py); these
check what only Prefect adds: cached steps reused on a resumed run, failures isolated
by the task runner, the summary artifact, and the procedural and curriculum flows.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pipeline.jobs import batch
from pipeline.registry.registry import Registry

pytestmark = pytest.mark.prefect


@pytest.fixture(scope="module", autouse=True)
def harness() -> Iterator[None]:
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=180):
        yield


def latest_artifact(key: str) -> Any:
    """The newest artifact under ``key``, read through a client that is closed afterwards
    (``prefect.artifacts.Artifact.get`` leaves its client's socket open)."""
    from prefect import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey
    from prefect.client.schemas.sorting import ArtifactSort

    with get_client(sync_client=True) as client:
        found = client.read_artifacts(
            limit=1, sort=ArtifactSort.UPDATED_DESC, artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[key]))
        )
    return found[0] if found else None


def test_generate_batch_isolates_failures_and_resumes_from_cached_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prefect import task

    from flows import batch as flows_batch

    registry = str(tmp_path / "registry")
    populated: list[str] = []
    real_populate = batch.populate_step

    def counting_populate(inputs: Any, *args: Any) -> Any:
        populated.append(inputs.name)
        return real_populate(inputs, *args)

    monkeypatch.setattr(batch, "populate_step", counting_populate)

    @task(name="tasks")
    def interrupted(*_args: Any) -> Any:
        raise ValueError("interrupted half-way")

    params: dict[str, Any] = {
        "n": 3,
        "domains": ["online_store", "no_such_domain"],
        "seed": 0,
        "tasks_per_family": 1,
        "registry": registry,
    }
    real_steps = flows_batch.STEPS
    monkeypatch.setattr(flows_batch, "STEPS", replace(real_steps, tasks=interrupted))
    first = flows_batch.run_batch(workers=2, **params)
    assert first["counts"]["failed"] == 3 and sorted(populated) == ["online-store-s0", "online-store-s2"]
    assert len(list((tmp_path / "registry" / ".work").glob("online-store-*"))) == 2

    monkeypatch.setattr(flows_batch, "STEPS", real_steps)
    second = flows_batch.run_batch(workers=2, **params)
    assert [r["status"] for r in second["results"]] == ["published", "failed", "published"]
    assert len(populated) == 2, "the resumed run reused the cached populate results"
    assert "unknown domain 'no_such_domain'" in second["results"][1]["error"]
    assert not list((tmp_path / "registry" / ".work").glob("online-store-*"))
    entry = Registry(registry).resolve("online-store-s0@1.0.0")
    assert entry.run["flow"] == "generate_batch" and entry.run["flow_run_id"]
    assert json.loads(Path(second["summary_path"]).read_text())["counts"] == second["counts"]
    artifact = latest_artifact("batch-summary")
    assert artifact is not None and "| online-store-s0@1.0.0 | online_store | 0 | published |" in str(artifact.data)

    third = flows_batch.run_batch(workers=1, **params)
    assert [r["status"] for r in third["results"]] == ["skipped", "failed", "skipped"]
    assert [r["digest"] for r in third["results"]] == [r["digest"] for r in second["results"]]


def test_procedural_and_curriculum_flows(tmp_path: Path) -> None:
    from flows.curriculum import update_curriculum
    from flows.procedural import build_procedural

    registry = str(tmp_path / "registry")
    built = build_procedural(
        ["gcd_lcm", "maze"], n=30, seed=2, level={"maze": 1}, out=str(tmp_path / "out"), registry=registry, publish=True
    )
    assert built["published"]["ref"] == "proc-gcd-lcm.maze-lv0_1-n30-s2@1.0.0" and built["published"]["created"]
    ref = built["published"]["ref"]
    tasks = [json.loads(line) for line in Path(built["path"], "tasks.jsonl").read_text().splitlines()]
    rows = [
        {"bundle": ref, "task_id": t["id"], "reward": 1.0 if t["metadata"]["family"] == "maze" else 0.5} for t in tasks
    ] * 3
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = update_curriculum(str(results), registry=registry, min_samples=8)
    assert report["levels_after"] == {"gcd_lcm": 0, "maze": 2}
    assert report["next"] == "proc-gcd-lcm.maze-lv0_1-n30-s2@1.1.0"  # the lineage keeps its name
    assert Registry(registry).resolve(report["next"]).parent == ref


def test_evaluate_flows_play_each_task_as_a_prefect_task_and_resume(store_bundle: Path, tmp_path: Path) -> None:
    from flows.evaluate import evaluate_baselines, run_evaluation

    params = {
        "bundle": str(store_bundle),
        "policy": "reference",
        "trials": 2,
        "tasks": "lookup:1-4",
        "out": str(tmp_path / "r"),
    }
    first = run_evaluation(concurrency=2, **params)
    assert first["timing"]["episodes_played"] == 8 and first["report"]["overall"]["pass_hat_k"] == 1.0
    again = run_evaluation(concurrency=2, **params)
    assert again["timing"]["episodes_played"] == 0 and again["report"] == first["report"]
    artifact = latest_artifact("evaluation-report")
    assert artifact is not None and "pass@1" in str(artifact.data)

    suite = evaluate_baselines(
        str(store_bundle), names=["refuse", "reference"], tasks="infeasible:0,lookup:0", out=str(tmp_path / "b")
    )
    assert suite["reports"]["reference"]["overall"]["pass_at_1"] == 1.0
    assert (tmp_path / "b" / "report.html").is_file()
