"""The staff sweep (level 5): the most recent records matching conditions, each judged by the policy.

Played through ``Environment.step`` as an agent sends it: the reference scores 1.0 in both answer
forms the instruction allows (the object or its JSON text), and every shortcut scores 0: doing every
record asked about (the literal reading), every record the conditions match, the first records a
plain listing returns, the records the request said to leave alone, half the report, or nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline import Environment
from pipeline.runtime.task import Task
from pipeline.tasks.exploits import REGISTRY
from pipeline.tasks.exploits.base import Probe, scratch_for


@pytest.fixture(scope="module")
def env(store_bundle: Path) -> Any:
    environment = Environment.from_bundle(store_bundle)
    yield environment
    environment.close()


def _sweeps(env: Any) -> list[Task]:
    found = [t for t in env.tasks if t.family == "sweep"]
    assert found, "online_store seed 0 holds sweeps"
    return found


def _play(env: Any, task: Task, calls: Any, answer: Any) -> float:
    env.reset(task_id=task.id)
    for call in calls:
        env.step(call.model_dump())
    return float(env.step({"answer": answer})[1])


def test_a_sweep_is_long_ranked_and_judged(env: Any) -> None:
    for task in _sweeps(env):
        ranked = task.solution[0]
        assert ranked.arguments["order_by"] and ranked.arguments["descending"] is True, task.id
        assert ranked.arguments["limit"] == task.knobs["records"] < task.knobs["candidates"], task.id
        report = task.verifier.answer.expected if task.verifier.answer else None
        assert report is not None and report["refused"], task.id
        assert all(r["cannot"] == "policy" for r in report["refused"]), task.id
        done = [c for c in task.solution if c.tool == task.knobs["operation"]]
        spared = set(task.knobs["excepted"])
        assert not spared & ({c.arguments["id"] for c in done} | {r["id"] for r in report["refused"]}), task.id
        assert len(done) + len(report["refused"]) + len(spared) == task.knobs["records"], task.id
    assert max(len(t.solution) for t in _sweeps(env)) >= 10


def test_an_exception_is_read_on_a_third_kind_of_record(env: Any) -> None:
    """A request that leaves some records alone names them by a related record: the reference reads
    that record's table (a third kind beside the swept records and their amounts)."""
    excepting = [t for t in _sweeps(env) if t.knobs["excepted"]]
    assert excepting, "online_store seed 0 holds a sweep with an exception"
    for task in excepting:
        tables = {env.executor.spec(c.tool).table for c in task.solution}
        assert len(tables) >= 3, (task.id, tables)
        assert task.solution[1].tool != task.solution[0].tool, task.id


def test_the_reference_scores_one_in_each_answer_form(env: Any) -> None:
    for task in _sweeps(env):
        report = task.verifier.answer.expected if task.verifier.answer else None
        assert _play(env, task, task.solution, report) == 1.0, task.id
        assert _play(env, task, task.solution, json.dumps(report)) == 1.0, task.id
        shuffled = {"refused": list(reversed(report["refused"])), "total": report["total"]}
        assert _play(env, task, task.solution, json.dumps(shuffled)) == 1.0, task.id


@pytest.mark.parametrize(
    "name",
    [
        "literal_compliance",
        "every_match",
        "exception_ignored",
        "first_candidate",
        "refusal_only",
        "report_parts",
        "copied_amount",
    ],
)
def test_every_shortcut_scores_zero(env: Any, name: str) -> None:
    scratch = scratch_for(env.bundle.state_bytes)
    tried = 0
    try:
        for task in _sweeps(env):
            probe = Probe(task, env.executor, env.bundle.state_bytes, scratch)
            for attempt in REGISTRY[name].attempts(probe):
                tried += 1
                assert _play(env, task, attempt.calls, attempt.answer) == 0.0, (task.id, name, attempt)
    finally:
        scratch.close()
    assert tried, name


def test_doing_nothing_or_refusing_scores_zero(env: Any) -> None:
    for task in _sweeps(env):
        report = task.verifier.answer.expected if task.verifier.answer else None
        reads = [c for c in task.solution if not c.tool.startswith(task.knobs["operation"])]
        assert _play(env, task, [], report) == 0.0, task.id
        assert _play(env, task, reads, json.dumps(report)) == 0.0, task.id
        assert _play(env, task, [], json.dumps(report["refused"])) == 0.0, task.id


def test_an_exception_is_named_only_where_every_path_to_it_agrees(bundles: dict[str, Path]) -> None:
    """A library fine reaches a branch through its member's home branch and through its loan's copy:
    "the fines of branches with city X" has two readings, so the paths an exception is checked on go
    three references deep, not only the one or two it is read along."""
    from pipeline.tasks.families.sweep import _paths
    from pipeline.world.schema import Schema

    schema = Schema.model_validate_json((bundles["library_loans"] / "schema.json").read_text())

    class Ctx:
        def parent_of(self, fk: Any) -> Any:
            return schema.table(str(fk.references))

    found = _paths(Ctx(), schema.table("fines"))  # type: ignore[arg-type]
    routes = {tuple(c.name for c in p) for p in found["branches"]}
    assert ("loan_id", "copy_id", "branch_id") in routes and len(routes) >= 2, routes
