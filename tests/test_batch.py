"""Batch generation as plain functions: planning, isolation of failures, skip-if-published, summary."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pipeline.cli.main import app
from pipeline.jobs import batch
from pipeline.jobs.steps import Inputs
from pipeline.registry.registry import Registry

runner = CliRunner()
SMALL = {"tasks_per_family": 1}


def test_plan_takes_domains_in_turn_with_consecutive_seeds() -> None:
    plan = batch.plan_batch(5, ["online_store", "library_loans"], seed=10, **SMALL)
    assert [(p.domain, p.seed) for p in plan] == [
        ("online_store", 10),
        ("library_loans", 11),
        ("online_store", 12),
        ("library_loans", 13),
        ("online_store", 14),
    ]
    assert len({p.name for p in plan}) == 5 and all(p.tasks_per_family == 1 for p in plan)


def test_plan_samples_domains_by_seed_deterministically() -> None:
    a, b = batch.plan_batch(8, seed=3), batch.plan_batch(8, seed=3)
    assert [p.domain for p in a] == [p.domain for p in b]
    assert len({p.domain for p in a}) > 1


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n": 0}, "n must be"),
        ({"n": 2, "domains": "online_store"}, "list of names"),
        ({"n": 2, "domains": []}, "non-empty"),
        ({"n": 2, "domains": ["online_store", " "]}, "non-empty"),
        ({"n": 2, "seed": -1}, "seed"),
    ],
)
def test_plan_rejects_bad_input(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        batch.plan_batch(**kwargs)


def test_inputs_key_follows_every_input() -> None:
    a = Inputs("online_store", seed=1)
    assert batch.inputs_key(a) == batch.inputs_key(Inputs("online_store", seed=1))
    assert (
        len(
            {
                batch.inputs_key(x)
                for x in (
                    a,
                    Inputs("online_store", seed=2),
                    Inputs("online_store", seed=1, scale=2.0),
                    Inputs("online_store", seed=1, version="1.0.1"),
                )
            }
        )
        == 4
    )


def test_workdir_token_lives_exactly_as_long_as_the_directory(tmp_path: Path) -> None:
    inputs = Inputs("online_store", seed=0)
    first = batch.prepare_workdir(tmp_path, inputs)
    assert batch.prepare_workdir(tmp_path, inputs) == first
    assert Path(first.path).name.startswith("online-store-s0-")
    Path(first.path, batch.TOKEN_FILE).unlink()
    Path(first.path).rmdir()
    again = batch.prepare_workdir(tmp_path, inputs)
    assert again.path == first.path and again.token != first.token


def test_default_work_root_sits_in_a_local_registry(tmp_path: Path) -> None:
    assert batch.default_work_root(str(tmp_path)) == tmp_path / ".work"
    assert batch.default_work_root(f"file://{tmp_path}") == tmp_path / ".work"
    assert batch.default_work_root("memory://reg") == Path("artifacts/.work")


def test_transient_errors_are_io_and_busy_databases() -> None:
    assert batch.is_transient(OSError("disk")) and batch.is_transient(sqlite3.OperationalError("locked"))
    assert not batch.is_transient(ValueError("unknown domain")) and not batch.is_transient(KeyError("x"))


@pytest.fixture(scope="module")
def first_batch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[batch.EnvResult]]:
    registry = tmp_path_factory.mktemp("registry")
    plan = batch.plan_batch(3, ["online_store", "no_such_domain"], seed=0, **SMALL)
    return registry, batch.run_batch(plan, registry / ".work", str(registry), run={"flow": "test"})


def test_a_failing_environment_does_not_stop_the_others(first_batch: tuple[Path, list[batch.EnvResult]]) -> None:
    registry, results = first_batch
    assert [r.status for r in results] == ["published", "failed", "published"]
    assert "unknown domain 'no_such_domain'" in (results[1].error or "")
    entries = {e.ref: e for e in Registry(str(registry)).entries()}
    assert set(entries) == {"online-store-s0@1.0.0", "online-store-s2@1.0.0"}
    entry = entries["online-store-s0@1.0.0"]
    assert entry.digest == results[0].digest and entry.run["flow"] == "test"
    assert entry.run["inputs_key"] == batch.inputs_key(batch.plan_batch(1, ["online_store"], 0, **SMALL)[0])
    assert results[0].tasks > 0 and set(results[0].seconds) == {
        "schema",
        "populate",
        "tools",
        "tasks",
        "package",
        "publish",
    }
    assert sorted(p.name for p in (registry / ".work").iterdir()) == [], "published work dirs are removed"


def test_a_rerun_skips_what_the_registry_holds(first_batch: tuple[Path, list[batch.EnvResult]]) -> None:
    registry, results = first_batch
    plan = batch.plan_batch(3, ["online_store", "no_such_domain"], seed=0, **SMALL)
    calls: list[str] = []

    def counting_schema(inputs: Inputs) -> Any:
        calls.append(inputs.name)
        return batch.schema_step(inputs)

    again = batch.run_batch(plan, registry / ".work", str(registry), replace(batch.STEPS, schema=counting_schema))
    assert [r.status for r in again] == ["skipped", "failed", "skipped"]
    assert calls == ["no-such-domain-s1"]
    assert [r.digest for r in again] == [r.digest for r in results]
    assert again[0].tasks == results[0].tasks and again[0].dropped == results[0].dropped


def test_same_bytes_published_outside_a_batch_count_as_unchanged(tmp_path: Path) -> None:
    inputs = batch.plan_batch(1, ["online_store"], seed=1, **SMALL)[0]
    first = batch.run_batch([inputs], tmp_path / "a" / ".work", str(tmp_path / "a"))[0]
    bundle = Registry(str(tmp_path / "a")).pull(first.ref or "", to=tmp_path / "pulled")
    Registry(str(tmp_path / "b")).publish(bundle, run={})  # no inputs key: the batch cannot skip it
    second = batch.run_batch([inputs], tmp_path / "b" / ".work", str(tmp_path / "b"))[0]
    assert second.status == "unchanged" and second.digest == first.digest


def test_a_failed_environment_keeps_its_work_dir_for_the_resume(tmp_path: Path) -> None:
    inputs = batch.plan_batch(1, ["online_store"], seed=3, **SMALL)[0]

    def interrupted(*_args: Any) -> Any:
        raise OSError("killed half-way")

    result = batch.run_batch([inputs], tmp_path / ".work", str(tmp_path), replace(batch.STEPS, tasks=interrupted))[0]
    assert result.status == "failed" and "killed half-way" in (result.error or "")
    (workdir,) = (tmp_path / ".work").iterdir()
    assert (workdir / "state.sqlite").is_file() and (workdir / batch.TOKEN_FILE).is_file()
    token = (workdir / batch.TOKEN_FILE).read_text()
    assert batch.prepare_workdir(tmp_path / ".work", inputs).token == token
    assert batch.run_batch([inputs], tmp_path / ".work", str(tmp_path))[0].status == "published"
    assert not workdir.exists()


def test_summary_counts_and_markdown(first_batch: tuple[Path, list[batch.EnvResult]]) -> None:
    _, results = first_batch
    failing = batch.EnvResult("x", "x", 9, "failed", error="ValueError: a | b\nc")
    s = batch.summarise([*results, failing], 30.0, "reg")
    assert s["counts"] == {"published": 2, "unchanged": 0, "skipped": 0, "failed": 2} and not s["ok"]
    assert s["tasks"] == results[0].tasks + results[2].tasks
    assert s["built_per_minute"] == 4.0
    dropped: Counter[str] = Counter()
    for r in results:
        dropped.update(r.dropped)
    assert s["dropped"] == dict(sorted(dropped.items()))
    md = batch.summary_markdown(s)
    assert "| online-store-s0@1.0.0 | online_store | 0 | published |" in md
    assert "ValueError: a \\| b c" in md and md.count("\n| ") == 1 + len(s["results"])
    json.dumps(s)


def test_batch_cli_without_prefect(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "batch",
            "--n",
            "2",
            "--domains",
            "online_store,nope",
            "--seed",
            "20",
            "--tasks-per-family",
            "1",
            "--registry",
            str(tmp_path),
            "--no-prefect",
            "--json",
        ],
    )
    assert result.exit_code == 1, result.output
    summary = json.loads(result.stdout)
    assert summary["counts"]["published"] == 1 and summary["counts"]["failed"] == 1
    assert json.loads(Path(summary["summary_path"]).read_text())["counts"] == summary["counts"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--n", "2", "--domains", ","], "non-empty"),
        (["--n", "1", "--no-prefect", "--dask-address", "local"], "drop --no-prefect"),
    ],
)
def test_batch_cli_rejects_bad_options(args: list[str], message: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["batch", *args, "--registry", str(tmp_path)])
    assert result.exit_code == 2 and message in result.output
