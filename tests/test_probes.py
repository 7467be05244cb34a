"""Build-time probes: every tool proven on a scratch copy; a bad tool fails naming itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.bundle.format import serialise
from pipeline.data.populate import populate
from pipeline.tools.probe_plan import plan, summary
from pipeline.tools.probes import ProbeFailure, run_probes
from pipeline.tools.specs import build_toolset
from pipeline.world.blueprint import load_blueprint
from pipeline.world.schema import build_schema

CLOCK = "2026-01-15T12:00:00"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):
    schema = build_schema(load_blueprint("online_store"))
    toolset = build_toolset(schema)
    state = populate(schema, 2, tmp_path_factory.mktemp("probes") / "s.sqlite").path
    return schema, toolset, serialise(state)


def test_every_tool_passes_and_counts_match_the_plan(world) -> None:
    schema, toolset, initial = world
    report = run_probes(schema, toolset, initial, CLOCK)
    counts = report.as_dict(len(toolset.tools))
    assert counts == summary(schema, toolset)
    assert counts["failed"] == 0 and counts["valid"] >= len(toolset.tools)
    by_tool = {t.name: plan(t, schema) for t in toolset.tools}
    for spec in toolset.tools:
        cases = by_tool[spec.name]
        assert any(c.startswith("valid") for c in cases) and "wrong_type" in cases
        if spec.kind in ("get", "update", "delete", "transition"):
            assert "unknown_id" in cases
        if spec.kind == "transition":
            assert "forbidden_transition" in cases
    assert "unknown_reference" in by_tool["create_order_item"] and "duplicate_unique" in by_tool["create_category"]


def test_a_result_schema_that_lies_fails_naming_the_tool(world) -> None:
    schema, toolset, initial = world
    spec = toolset.get("get_order")
    lying = {**spec.result, "properties": {**spec.result["properties"], "total": {"type": "string"}}}
    broken = toolset.model_copy(update={"tools": (spec.model_copy(update={"result": lying}),)})
    with pytest.raises(ProbeFailure, match=r"tool get_order \(valid\).*result schema"):
        run_probes(schema, broken, initial, CLOCK)


def test_arguments_the_state_cannot_satisfy_fail_naming_the_tool(world) -> None:
    schema, toolset, initial = world
    spec = toolset.get("create_category")
    props = {**spec.parameters["properties"], "name": {"type": "string", "maxLength": 1}}
    narrow = spec.model_copy(update={"parameters": {**spec.parameters, "properties": props}})
    with pytest.raises(ProbeFailure, match="tool create_category"):
        run_probes(schema, toolset.model_copy(update={"tools": (narrow,)}), initial, CLOCK)


def test_a_transition_that_accepts_everything_fails(world, monkeypatch: pytest.MonkeyPatch) -> None:
    import pipeline.tools.probes as probes

    schema, toolset, initial = world
    spec = toolset.get("cancel_order")
    expected = plan(spec, schema)
    lax = spec.model_copy(update={"allowed_from": tuple(schema.table("orders").column("status").values or ())})
    # The plan of the real spec expects a forbidden transition the lax spec never refuses.
    monkeypatch.setattr(probes, "plan", lambda s, sc: expected)
    with pytest.raises(ProbeFailure, match=r"tool cancel_order \(forbidden_transition\)"):
        run_probes(schema, toolset.model_copy(update={"tools": (lax,)}), initial, CLOCK)


def test_manifest_records_the_probe_counts(store_bundle: Path) -> None:
    manifest = json.loads((store_bundle / "manifest.json").read_text(encoding="utf-8"))
    probes = manifest["tool_probes"]
    assert probes["tools"] == manifest["counts"]["tools"] and probes["failed"] == 0
    assert probes["calls"] == probes["valid"] + probes["invalid"] and probes["invalid"] > probes["tools"]


def test_a_tiny_world_s_refusals_each_keep_their_own_subject(tmp_path: Path) -> None:
    """Every refusal's subject is prepared before any runs: at ``--rows 10`` the one stock batch a
    forbidden move was prepared on was then put in a final status for the final-record case, and the
    build failed (exit 70). Each prepared case now holds its record, so the tiny world builds."""
    from pipeline.jobs.steps import Inputs, generate
    from pipeline.world.variants import pick_domain

    summary = generate(
        Inputs(domain=pick_domain(6), seed=6, rows=10, variant=True), tmp_path / "out", tmp_path / "work"
    )
    assert summary["tasks"] > 0
