"""The curriculum loop as plain functions: results in (JSONL/Parquet), state updated, next version out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pipeline.bundle.format import Bundle, load_bundle
from pipeline.cli.main import app
from pipeline.jobs import curriculum as loop
from pipeline.package.procedural import build_procedural_bundle
from pipeline.registry.registry import Registry

runner = CliRunner()
FAMILIES = ["gcd_lcm", "maze"]


@pytest.fixture
def parent(tmp_path: Path) -> tuple[str, Bundle]:
    """``proc-gcd-lcm.maze-lv0-n40-s0@1.0.0`` published to a fresh registry."""
    registry = str(tmp_path / "registry")
    bundle = build_procedural_bundle(FAMILIES, tmp_path / "build", n=40, seed=0)
    Registry(registry).publish(bundle.path)
    return registry, bundle


def write_results(path: Path, bundle: Bundle, reward: dict[str, float], repeat: int = 1) -> Path:
    rows = [
        {"bundle": bundle.ref, "task_id": t["id"], "reward": reward[t["metadata"]["family"]]}
        for t in bundle.read_jsonl("tasks.jsonl")
    ] * repeat
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_read_results_jsonl_and_parquet_agree(tmp_path: Path, parent: tuple[str, Bundle]) -> None:
    import duckdb

    jsonl = write_results(tmp_path / "r.jsonl", parent[1], {"gcd_lcm": 1.0, "maze": 0.25})
    parquet = tmp_path / "r.parquet"
    duckdb.sql(f"COPY (SELECT * FROM read_json('{jsonl}')) TO '{parquet}' (FORMAT parquet)")
    rows = loop.read_results(jsonl)
    assert rows == loop.read_results(parquet)
    assert (
        len(rows) == 40
        and rows[0].bundle == "proc-gcd-lcm.maze-lv0-n40-s0@1.0.0"
        and {r.reward for r in rows} == {1.0, 0.25}
    )


@pytest.mark.parametrize(
    "content, suffix, message",
    [
        ('{"bundle": "b@1.0.0", "task_id": "t"}\n', ".jsonl", "missing reward"),
        ('{"bundle": "b@1.0.0", "task_id": "t", "reward": 1.5}\n', ".jsonl", r"reward must be a number in \[0, 1\]"),
        ('{"bundle": "b@1.0.0", "task_id": "t", "reward": "high"}\n', ".jsonl", "reward must be"),
        ('{"bundle": "b@1.0.0", "task_id": null, "reward": 1}\n', ".jsonl", "lacks a bundle or a task_id"),
        ("bundle,task_id,reward\n", ".csv", "must be .jsonl"),
        ("not json\n", ".jsonl", "cannot read results"),
    ],
)
def test_bad_results_are_explained(tmp_path: Path, content: str, suffix: str, message: str) -> None:
    path = tmp_path / f"results{suffix}"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        loop.read_results(path)


def test_an_easy_family_moves_up_and_the_next_version_follows_its_parent(
    tmp_path: Path, parent: tuple[str, Bundle]
) -> None:
    registry, bundle = parent
    results = write_results(tmp_path / "r1.jsonl", bundle, {"gcd_lcm": 1.0, "maze": 0.6}, repeat=2)
    report = loop.update(results, registry=registry, min_samples=8, run={"flow": "test"})
    assert report.levels_before == {"gcd_lcm": 0, "maze": 0} and report.levels_after == {"gcd_lcm": 1, "maze": 0}
    assert report.changed and report.created and report.next == "proc-gcd-lcm.maze-lv0-n40-s0@1.1.0"
    assert report.families["maze"]["recorded"] == report.families["maze"]["rollouts"]
    assert report.families["gcd_lcm"]["stale"] > 0, "scores at level 0 after the move are not evidence for level 1"
    entry = Registry(registry).resolve(report.next)
    assert entry.parent == bundle.ref and entry.run["flow"] == "test"
    nxt = load_bundle(Registry(registry).pull(report.next, to=tmp_path / "pulled"))
    assert nxt.manifest.lineage.parent == bundle.ref and nxt.manifest.as_procedural().knobs.level == report.levels_after
    assert {
        t["metadata"]["family"]: t["metadata"]["level"] for t in nxt.read_jsonl("tasks.jsonl")
    } == report.levels_after
    state = Path(report.state)
    assert state == Path(registry) / "curricula" / "proc-gcd-lcm.maze-lv0-n40-s0.json" and state.is_file()
    assert not (Path(registry) / ".work" / "curriculum" / bundle.name).exists()

    saved = state.read_text()
    again = loop.update(results, registry=registry)
    assert again.already_applied and again.next == report.next
    assert state.read_text() == saved
    assert len(Registry(registry).entries(bundle.name)) == 2


def test_no_level_moved_means_no_new_version(tmp_path: Path, parent: tuple[str, Bundle]) -> None:
    registry, bundle = parent
    results = write_results(tmp_path / "r.jsonl", bundle, {"gcd_lcm": 0.7, "maze": 0.6})
    report = loop.update(results, state=tmp_path / "cur.json", registry=registry, min_samples=4)
    assert not report.changed and report.next is None and report.levels_after == {"gcd_lcm": 0, "maze": 0}
    assert (tmp_path / "cur.json").is_file() and loop.history_path(tmp_path / "cur.json").is_file()
    assert [e.version for e in Registry(registry).entries(bundle.name)] == ["1.0.0"]


def test_a_taken_minor_bump_moves_to_the_next_free_version(tmp_path: Path, parent: tuple[str, Bundle]) -> None:
    registry, bundle = parent
    other = build_procedural_bundle(
        FAMILIES,
        tmp_path / "other",
        n=40,
        seed=0,
        level={"gcd_lcm": 3, "maze": 3},
        version="1.1.0",
        parent=bundle.ref,
        name=bundle.name,  # another branch of the lineage: a curriculum step keeps its parent's name
    )
    Registry(registry).publish(other.path)
    published = loop.publish_next(bundle, {"gcd_lcm": 1, "maze": 0}, tmp_path / "out", registry, {})
    assert published["ref"] == "proc-gcd-lcm.maze-lv0-n40-s0@1.2.0" and published["created"]
    again = loop.publish_next(bundle, {"gcd_lcm": 3, "maze": 3}, tmp_path / "out", registry, {})
    assert again == {"ref": "proc-gcd-lcm.maze-lv0-n40-s0@1.1.0", "digest": other.digest, "created": False}


def test_unknown_task_and_mixed_bundles_are_refused(tmp_path: Path, parent: tuple[str, Bundle]) -> None:
    registry, bundle = parent
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"bundle": bundle.ref, "task_id": "maze-99999", "reward": 1}) + "\n")
    with pytest.raises(ValueError, match="maze-99999"):
        loop.update(bad, registry=registry)
    other = build_procedural_bundle(["sort_numbers"], tmp_path / "b2", n=5, seed=0)
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(
        json.dumps({"bundle": bundle.ref, "task_id": "maze-00000", "reward": 1})
        + "\n"
        + json.dumps({"bundle": str(other.path), "task_id": "sort_numbers-00000", "reward": 1})
        + "\n"
    )
    with pytest.raises(ValueError, match="versions of one bundle"):
        loop.update(mixed, registry=registry)


def test_a_state_for_other_families_is_refused(tmp_path: Path, parent: tuple[str, Bundle]) -> None:
    from generators import Curriculum

    registry, bundle = parent
    Curriculum(["sort_numbers"]).save(tmp_path / "cur.json")
    results = write_results(tmp_path / "r.jsonl", bundle, {"gcd_lcm": 1.0, "maze": 1.0})
    with pytest.raises(ValueError, match="tracks sort_numbers"):
        loop.update(results, state=tmp_path / "cur.json", registry=registry)


def test_procedural_level_mapping_and_parent_are_recorded(tmp_path: Path) -> None:
    b = build_procedural_bundle(FAMILIES, tmp_path, n=20, seed=1, level={"maze": 2}, parent="proc-x@1.0.0")
    assert b.manifest.lineage.parent == "proc-x@1.0.0" and b.manifest.as_procedural().knobs.level == {"maze": 2}
    assert loop.bundle_levels(b) == {"gcd_lcm": 0, "maze": 2}
    with pytest.raises(ValueError, match="parent must be"):
        build_procedural_bundle(FAMILIES, tmp_path, n=5, parent="not a ref")


def test_report_markdown_lists_each_family(tmp_path: Path, parent: tuple[str, Bundle]) -> None:
    registry, bundle = parent
    results = write_results(tmp_path / "r.jsonl", bundle, {"gcd_lcm": 1.0, "maze": 0.0}, repeat=2)
    md = loop.report_markdown(loop.update(results, registry=registry, min_samples=8).as_dict())
    assert "| gcd_lcm | 0 | 1 |" in md and "| maze | 0 | 0 |" in md and "@1.1.0" in md


def test_curriculum_cli_without_prefect(tmp_path: Path, parent: tuple[str, Bundle]) -> None:
    registry, bundle = parent
    results = write_results(tmp_path / "r.jsonl", bundle, {"gcd_lcm": 1.0, "maze": 0.6}, repeat=2)
    args = [
        "curriculum",
        "update",
        "--results",
        str(results),
        "--registry",
        registry,
        "--min-samples",
        "8",
        "--no-prefect",
    ]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    assert report["next"] == "proc-gcd-lcm.maze-lv0-n40-s0@1.1.0" and report["levels_after"]["gcd_lcm"] == 1
    text = runner.invoke(app, args)
    assert text.exit_code == 0 and "already applied" in text.output
    bad = runner.invoke(app, ["curriculum", "update", "--results", str(tmp_path / "none.jsonl"), "--no-prefect"])
    assert bad.exit_code == 2 and "no such results file" in bad.output
