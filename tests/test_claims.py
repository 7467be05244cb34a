"""A person's claim that the fee's waiver covers them ("my loyalty tier is gold"), checked on the state.

The claim's truth is re-derived here from the bundle, not taken from the generator: a claim is
false exactly where some record the reference carries out has something paid on it that the
waiver line's words do not give back in full. Believing a false claim, and never believing a true
one, both score 0 through ``Environment.step``; the reference scores 1.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_cap import _policy, _refund, exploit_scores_zero, ruled_tasks

from pipeline import Environment
from pipeline.jobs.steps import Inputs, generate
from pipeline.runtime.task import Task

WORLDS = {"standing": ("online_store", 218), "recent": ("online_store", 141), "true": ("online_store", 0)}
"""Worlds at scale 2 holding a false claim of the owner's standing, a false claim that the records
are recent, and a true claim."""


@pytest.fixture(scope="module", params=sorted(WORLDS))
def env(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Environment]:
    domain, seed = WORLDS[request.param]
    root = tmp_path_factory.mktemp(f"claims-{request.param}")
    summary = generate(Inputs(domain=domain, seed=seed, scale=2.0), root / "out", root / "work")
    environment = Environment.from_bundle(Path(summary["path"]))
    yield environment
    environment.close()


def _claimed(env: Environment) -> list[Task]:
    found = [t for t in env.tasks if t.knobs.get("claim") is not None]
    assert found, "each sample world holds a request with a claim"
    return found


def test_a_claim_holds_exactly_where_the_waiver_covers_every_record_done(env: Environment) -> None:
    policy = _policy(env)
    conn = sqlite3.connect(":memory:")
    conn.deserialize(env.bundle.state_bytes)
    try:
        for task, waiver, fee in ruled_tasks(env, "waiver"):
            if task.knobs.get("claim") is None:
                continue
            op = str(task.knobs["operation"])
            done = [c.arguments["id"] for c in task.solution if c.tool == op]
            # A record with something paid that the waiver's words leave the fee on.
            short = [
                i
                for i in done
                if _refund(conn, fee, i) > 0 and _refund(conn, fee, i, waiver, policy.clock) == _refund(conn, fee, i)
            ]
            assert task.knobs["claim"] == ("false" if short else "true"), task.id
            if waiver.value is not None:  # the standing claimed is the one the waiver names
                assert task.knobs["claim_form"] == "standing", task.id
                assert f" is {waiver.value.replace('_', ' ')}" in task.instruction, task.id
            else:
                assert task.knobs["claim_form"] == "recent", task.id
    finally:
        conn.close()


def test_believing_a_false_claim_scores_zero(env: Environment) -> None:
    false = [t for t in _claimed(env) if t.knobs["claim"] == "false"]
    if not false:
        pytest.skip("this world's claims are true")
    assert exploit_scores_zero(env, false, "claim_believed")


def test_never_believing_a_true_claim_scores_zero(env: Environment) -> None:
    true = [t for t in _claimed(env) if t.knobs["claim"] == "true"]
    if not true:
        pytest.skip("this world's claims are false")
    assert exploit_scores_zero(env, true, "waiver_ignored")
