"""The top level in a world that keeps no money on the records staff sweep: a measure the batch adds up.

Where a world has no measure either (a helpdesk's tickets), the sweep counts the records of another
kind that reference the ones that went through ("how many ticket comments they have in all").

Parcel, laboratory and factory worlds hold no payments on a shipment, a sample or a work order, so a
sweep there asks what the ones that went through weigh, hold or number ("tell me the total weight
(kg) of those that went through"). The total is re-derived here from the state: the measure's
column added up over exactly the records the reference's operation wrote. Copying one record's
measure, and the sum over every record taken (the policy's refusals done anyway), score 0 through
``Environment.step``; the reference scores 1.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from test_cap import exploit_scores_zero

from pipeline import Environment
from pipeline.jobs.steps import Inputs, generate
from pipeline.policy.fees import measure_column
from pipeline.runtime.task import Task
from pipeline.tasks.words import field_words
from pipeline.world.blueprint import domains_dir, load_blueprint_file
from pipeline.world.schema import Column, Table, build_schema

WORLDS = {
    "logistics": ("logistics_shipping", 0),
    "manufacturing": ("manufacturing_work_orders", 1),
    "helpdesk": ("helpdesk_ticketing", 0),
}
"""Worlds whose level 5 was empty before measures (no money on any table an operation moves); the
helpdesk has no measure either, so its sweeps count the comments on the tickets that went through."""


def _table(domain: str, name: str) -> Table:
    return build_schema(load_blueprint_file(domains_dir() / f"{domain}.yaml")).table(name)


@pytest.mark.parametrize(
    ("domain", "table", "expected"),
    [
        ("logistics_shipping", "shipments", "weight_kg"),
        ("lab_samples", "samples", "volume_ml"),
        ("manufacturing_work_orders", "work_orders", "quantity_planned"),
        ("lab_samples", "analyses", None),  # a dilution factor adds up to nothing
        ("lab_samples", "results", None),  # nor do measured values and their uncertainties
        ("sports_league", "fixtures", None),  # goals, rounds and attendance are integers, not measures
    ],
)
def test_a_measure_is_a_count_or_a_quantity_in_a_unit(domain: str, table: str, expected: str | None) -> None:
    found = measure_column(_table(domain, table))
    assert (found.name if found is not None else None) == expected


@pytest.fixture(scope="module", params=sorted(WORLDS))
def env(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Environment]:
    domain, seed = WORLDS[request.param]
    root = tmp_path_factory.mktemp(f"measure-{request.param}")
    summary = generate(Inputs(domain=domain, seed=seed), root / "out", root / "work")
    environment = Environment.from_bundle(Path(summary["path"]))
    yield environment
    environment.close()


def _measured(env: Environment) -> list[Task]:
    found = [t for t in env.tasks if t.family == "sweep" and (t.knobs.get("measure") or t.knobs.get("counted"))]
    assert found, "the world's top level holds sweeps over a measure"
    return found


def test_the_total_is_the_measure_of_exactly_the_records_done(env: Environment) -> None:
    conn = sqlite3.connect(":memory:")
    conn.deserialize(env.bundle.state_bytes)
    try:
        for task in _measured(env):
            op = str(task.knobs["operation"])
            table = env.toolset.get(op).table
            done = [c.arguments["id"] for c in task.solution if c.tool == op]
            if task.knobs.get("counted"):  # the rows of that kind referencing each record done
                child = env.schema.table(str(task.knobs["counted"]))
                (fk,) = [c.name for c in child.foreign_keys if c.references == table]
                query = f'SELECT count(*) FROM "{child.name}" WHERE "{fk}" = ?'
            else:
                query = f'SELECT "{task.knobs["measure"]}" FROM "{table}" WHERE id = ?'
            total = sum((Decimal(str(conn.execute(query, (i,)).fetchone()[0])) for i in done), Decimal(0))
            expected = task.verifier.answer.expected if task.verifier.answer else {}
            assert Decimal(str(expected["total"])) == total.quantize(Decimal("0.01")), task.id
            assert len(done) >= 2 and task.knobs["refused"] >= 1, task.id  # a sum, and a rule applied
            assert "to the cent" not in task.instruction and "TOTAL" in task.instruction, task.id
            if task.knobs.get("counted"):
                assert "whole number" in task.instruction and child.plural in task.instruction, task.id
    finally:
        conn.close()


def test_copying_one_measure_or_doing_every_record_scores_zero(env: Environment) -> None:
    tasks = _measured(env)
    assert exploit_scores_zero(env, tasks, "copied_amount") >= len(tasks)
    assert exploit_scores_zero(env, tasks, "literal_compliance") >= len(tasks)
    for task in tasks:  # the literal reading's total is another number than the policy's
        literal = json.loads(str(task.knobs["literal_answer"]))
        expected = task.verifier.answer.expected if task.verifier.answer else {}
        assert literal["total"] != expected["total"], task.id


@pytest.mark.parametrize(
    ("name", "semantic", "reads"),
    [
        ("weight_kg", "decimal", "weight (kg)"),
        ("resolution_hours", "integer", "resolution (hours)"),
        ("quantity_planned", "quantity", "quantity planned"),
        ("unit_m", "text", "unit m"),  # a text field's last word is no unit
    ],
)
def test_a_number_s_unit_reads_apart(name: str, semantic: str, reads: str) -> None:
    assert field_words(Column(name=name, sql_type="REAL", semantic=semantic)) == reads


def test_before_anything_is_paid_a_sweep_totals_the_records_own_amount(tmp_path: Path) -> None:
    """Checked-in visits have no payments yet: "what was paid" would be 0 for every one, so the sweep
    asks for their own total charge instead, added up over exactly the visits that went through."""
    summary = generate(Inputs(domain="veterinary_clinic", seed=1, scale=2.0), tmp_path / "out", tmp_path / "work")
    env = Environment.from_bundle(Path(summary["path"]))
    conn = sqlite3.connect(":memory:")
    conn.deserialize(env.bundle.state_bytes)
    try:
        unpaid = [t for t in env.tasks if t.family == "sweep" and t.knobs.get("unpaid")]
        assert unpaid, "the world holds a sweep over records nothing is paid on yet"
        for task in unpaid:
            op = str(task.knobs["operation"])
            table = env.toolset.get(op).table
            done = [c.arguments["id"] for c in task.solution if c.tool == op]
            (fk,) = [c.name for c in env.schema.table("payments").foreign_keys if c.references == table]
            marks = ",".join("?" * len(done))
            assert conn.execute(f'SELECT count(*) FROM payments WHERE "{fk}" IN ({marks})', done).fetchone()[0] == 0
            query = f'SELECT total_charge FROM "{table}" WHERE id = ?'
            own = sum((Decimal(str(conn.execute(query, (i,)).fetchone()[0])) for i in done), Decimal(0))
            expected = task.verifier.answer.expected if task.verifier.answer else {}
            assert Decimal(str(expected["total"])) == own.quantize(Decimal("0.01")), task.id
        assert exploit_scores_zero(env, unpaid, "copied_amount") >= len(unpaid)
    finally:
        conn.close()
        env.close()
