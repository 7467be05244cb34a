"""The recipe written once: the order of the steps, what each receives, refine, timing, and that
every entry runs :func:`pipeline.jobs.recipe.run_recipe` instead of its own copy of the chain."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pipeline.bundle.manifest import ToolUseManifest
from pipeline.jobs import recipe, steps
from pipeline.jobs.recipe import Refine, Steps, Timings, run_recipe
from pipeline.jobs.steps import Inputs

ROOT = Path(__file__).resolve().parents[1]


POPULATED = SimpleNamespace(path=Path("state.sqlite"))


def recording_steps(calls: list[tuple[Any, ...]]) -> Steps[str]:
    """Steps that record their arguments and return a token standing for their product."""

    def step(name: str, product: Any) -> Any:
        def run(*args: Any) -> Any:
            calls.append((name, *args))
            return product

        return run

    return Steps(
        schema=step("schema", "SCHEMA"),
        populate=step("populate", POPULATED),
        tools=step("tools", "TOOLS"),
        tasks=step("tasks", "TASKS"),
        package=step("package", "BUNDLE"),
    )


def test_the_steps_run_once_each_in_order_on_the_products_before_them(tmp_path: Path) -> None:
    calls: list[tuple[Any, ...]] = []
    inputs = Inputs("online_store", seed=3, clock="2026-02-01T00:00:00")

    def workdir() -> str:
        calls.append(("workdir",))
        return "WORK"

    result = run_recipe(recording_steps(calls), inputs, tmp_path, workdir)
    assert calls == [
        ("schema", inputs),
        ("workdir",),
        ("populate", inputs, "SCHEMA", "WORK"),
        ("tools", "SCHEMA", Path("state.sqlite"), "2026-02-01T00:00:00"),
        ("tasks", inputs, "SCHEMA", "TOOLS", Path("state.sqlite")),
        ("package", inputs, tmp_path, "SCHEMA", POPULATED, "TOOLS", "TASKS", None),
    ]
    assert result.bundle == "BUNDLE" and result.refined is None
    assert list(result.seconds) == ["schema", "populate", "tools", "tasks", "package"]


def test_a_failing_schema_step_asks_for_no_work_directory_and_raises_unchanged(tmp_path: Path) -> None:
    asked: list[str] = []

    def no_world(_inputs: Inputs) -> Any:
        raise ValueError("unknown domain 'nope'")

    broken = replace(recording_steps([]), schema=no_world)
    with pytest.raises(ValueError, match="unknown domain 'nope'"):
        run_recipe(broken, Inputs("nope"), tmp_path, lambda: asked.append("asked") or "WORK")
    assert asked == []


def test_refine_runs_between_tasks_and_package_and_its_lineage_reaches_the_manifest(tmp_path: Path) -> None:
    calls: list[tuple[Any, ...]] = []
    refined = SimpleNamespace(taskset="REFINED TASKS")

    def refine_step(*args: Any) -> Any:
        calls.append(("refine", *args))
        return refined

    refine = Refine(step=refine_step, lineage=lambda r: {"model": "m", "kept": r.taskset})
    timings = Timings({"design": 1.5})
    result = run_recipe(recording_steps(calls), Inputs("x"), tmp_path, lambda: "WORK", refine=refine, timings=timings)
    assert [c[0] for c in calls] == ["schema", "populate", "tools", "tasks", "refine", "package"]
    assert calls[4][1:] == (Inputs("x"), "SCHEMA", "TOOLS", Path("state.sqlite"), "TASKS")
    assert calls[5][-2:] == ("REFINED TASKS", {"model": "m", "kept": "REFINED TASKS"})
    assert result.refined is refined and result.seconds is timings.seconds
    assert list(result.seconds) == ["design", "schema", "populate", "tools", "tasks", "refine", "package"]


def test_each_step_is_reported_when_it_starts_and_ends(tmp_path: Path) -> None:
    seen: list[tuple[str, bool]] = []
    token = recipe.reporter.set(lambda step, seconds: seen.append((step, seconds is None)))
    try:
        run_recipe(recording_steps([]), Inputs("x"), tmp_path, lambda: "WORK")
    finally:
        recipe.reporter.reset(token)
    names = ["schema", "populate", "tools", "tasks", "package"]
    assert seen == [pair for name in names for pair in ((name, True), (name, False))]
    assert steps.reporter is recipe.reporter, "the CLI sets the reporter through jobs.steps"


def _tool_use_manifest(domain: str, seed: int, counts: dict[str, Any]) -> ToolUseManifest:
    """The smallest tool-use manifest the model accepts, with these fields."""
    inputs = {"domain": domain, "seed": seed, "scale": 1.0, "rows": None, "variant": False, "tasks_per_family": 1}
    return ToolUseManifest.model_validate(
        {
            "name": "b",
            "version": "1.0.0",
            "kind": "tool_use",
            "title": "B",
            "description": "b",
            "domain": domain,
            "seed": seed,
            "frozen_clock": "2026-01-01T00:00:00",
            "generator_version": "0",
            "knobs": {k: v for k, v in inputs.items() if k not in ("domain", "seed")},
            "counts": {"rows_per_table": {}, "candidates": counts["tasks"], **counts},
            "realism": {},
            "reward_weights": {"outcome": 1.0},
            "tool_probes": {},
            "lineage": {
                "generator": "synthenv",
                "generator_version": "0",
                "inputs": {**inputs, "clock": "2026-01-01T00:00:00"},
                "parent": None,
            },
        }
    )


def test_generate_is_the_recipe_with_the_steps_it_is_given(tmp_path: Path) -> None:
    bundle = SimpleNamespace(
        path=tmp_path / "b" / "1.0.0",
        name="b",
        version="1.0.0",
        digest="sha256:0",
        manifest=_tool_use_manifest(
            domain="d", seed=1, counts={"tables": 1, "rows": 2, "tools": 3, "tasks": 4, "dropped": {}}
        ),
    )
    calls: list[tuple[Any, ...]] = []
    summary = steps.generate(
        Inputs("x"), tmp_path, tmp_path / "w", replace(recording_steps(calls), package=lambda *a: bundle)
    )
    assert calls[1] == ("populate", Inputs("x"), "SCHEMA", tmp_path / "w")
    assert summary["digest"] == "sha256:0" and summary["tasks"] == 4
    assert list(summary["seconds"]) == ["schema", "populate", "tools", "tasks", "package"]


def test_the_chain_is_written_only_in_the_recipe() -> None:
    """The steps are called in sequence in one place; every entry (generate, batch, scenario, scenario
    batch, the curriculum's regeneration and the flows) goes through ``run_recipe``."""
    chain = re.compile(r"""\.run\(\s*["'](schema|populate|tools|tasks|package)["']""")
    writers = {
        str(path.relative_to(ROOT))
        for folder in ("pipeline", "flows")
        for path in (ROOT / folder).rglob("*.py")
        if chain.search(path.read_text(encoding="utf-8"))
    }
    assert writers == {"pipeline/jobs/recipe.py"}
    for entry in ("steps", "batch", "scenario", "scenario_batch", "task_mix"):
        assert "run_recipe(" in (ROOT / "pipeline" / "jobs" / f"{entry}.py").read_text(encoding="utf-8"), entry


@pytest.fixture
def default_collection() -> Any:
    """Python's default collector thresholds for the test, the process's own put back after."""
    import gc

    found = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield (700, 10, 10)
    gc.set_threshold(*found)


def test_the_steps_run_with_the_build_s_collector_pacing_and_the_caller_s_comes_back(
    tmp_path: Path, default_collection: tuple[int, int, int]
) -> None:
    import gc

    seen: list[tuple[int, ...]] = []
    paced = replace(recording_steps([]), tasks=lambda *args: seen.append(gc.get_threshold()) or "TASKS")
    run_recipe(paced, Inputs("online_store", seed=3), tmp_path, lambda: "WORK")
    assert seen == [recipe.BUILD_GC_THRESHOLD]
    assert gc.get_threshold() == default_collection

    def failing(*args: Any) -> Any:
        raise RuntimeError("tasks failed")

    with pytest.raises(RuntimeError, match="tasks failed"):
        run_recipe(replace(paced, tasks=failing), Inputs("online_store", seed=3), tmp_path, lambda: "WORK")
    assert gc.get_threshold() == default_collection


def test_builds_that_overlap_leave_the_thresholds_they_found_whatever_order_they_end_in(
    default_collection: tuple[int, int, int],
) -> None:
    """Two builds in two threads: the first to begin ends last, and the other way round."""
    import gc

    for first_ends_first in (True, False):
        one, two = recipe.build_collection(), recipe.build_collection()
        one.__enter__()
        two.__enter__()
        assert gc.get_threshold() == recipe.BUILD_GC_THRESHOLD
        (one if first_ends_first else two).__exit__(None, None, None)
        assert gc.get_threshold() == recipe.BUILD_GC_THRESHOLD  # the other build still runs
        (two if first_ends_first else one).__exit__(None, None, None)
        assert gc.get_threshold() == default_collection
