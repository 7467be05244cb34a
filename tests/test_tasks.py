"""Step 4 over whole generated bundles: families, knobs, wording, proofs, determinism.

Runs on the session's three bundles (online_store, clinic_appointments, library_loans),
so each property is checked on real, different schemas rather than on a toy one.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from pipeline import Environment
from pipeline.runtime.session import Session
from pipeline.runtime.task import Task
from pipeline.runtime.verify import normalise_text
from pipeline.tasks.families import FAMILIES, JUDGMENT_FAMILIES
from pipeline.tasks.families.infeasible import reachable_statuses
from pipeline.tasks.phrasing import Phrasebook
from pipeline.tasks.proof import fingerprint, replay
from tests.conftest import TEST_DOMAINS

TOP = ("case", "sweep", "choice")
"""The top-level families, level 5 alone, in registration order."""

REFUSAL_FORMS = tuple(v.format() for v in Phrasebook.load().variants("common", "refusal_form"))


def request(instruction: str) -> str:
    """The instruction without the refusal sentence every task ends with."""
    for form in REFUSAL_FORMS:
        if instruction.endswith(" " + form):
            return instruction[: -len(form) - 1]
    raise AssertionError(f"no refusal form at the end of {instruction!r}")


ALL_KNOBS = {"reference_calls", "writes"}


@pytest.fixture(scope="module")
def envs(bundles: dict[str, Path]) -> dict[str, Environment]:
    return {d: Environment.from_bundle(p) for d, p in bundles.items()}


def test_levels_zero_to_four_are_the_ramp_and_level_five_is_judgment_only() -> None:
    assert len(FAMILIES) >= 10
    for family in FAMILIES.values():
        expected = [5] if family.name in TOP else list(range(5))
        assert sorted(family.levels) == expected, family.name
        assert family.knobs and family.description
    assert [f.name for f in FAMILIES.values() if 5 in f.levels] == list(TOP)
    assert set(TOP) <= set(JUDGMENT_FAMILIES)


@pytest.mark.parametrize("domain", TEST_DOMAINS)
def test_every_family_ships_tasks_at_several_levels(envs: dict[str, Environment], domain: str) -> None:
    by_family: dict[str, set[int]] = defaultdict(set)
    for t in envs[domain].tasks:
        by_family[t.family].add(t.level)
    # The top level needs people with several records a rule refuses in part: small worlds may have none.
    # A library's only amounts are fines, which belong to a member two ways that disagree in the
    # generated state (the fine's member, the member of its loan): no quote has one reading there.
    absent = set(TOP) | ({"quote"} if domain == "library_loans" else set())
    assert set(by_family) >= set(FAMILIES) - absent, set(FAMILIES) - set(by_family)
    for family, levels in by_family.items():
        assert len(levels) >= (1 if family in TOP else 3), (family, levels)


@pytest.mark.parametrize("domain", TEST_DOMAINS)
def test_reference_length_grows_with_level(envs: dict[str, Environment], domain: str) -> None:
    """Per family the mean tool calls never drop from one level to the next, and overall they grow."""
    calls: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for t in envs[domain].tasks:
        calls[t.family][t.level].append(len(t.solution))
    records: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for t in envs[domain].tasks:
        if t.family in JUDGMENT_FAMILIES:
            records[t.family][t.level].append(t.knobs["records"])
    for family, levels in calls.items():
        means = [sum(v) / len(v) for _, v in sorted(levels.items())]
        if family in JUDGMENT_FAMILIES:
            # Judgment, not length: harder levels cover more records and refuse some of them, which
            # can take fewer calls; what grows is the records covered.
            covered = [sum(v) / len(v) for _, v in sorted(records[family].items())]
            assert covered == sorted(covered), (family, dict(records[family]))
            assert len(covered) == 1 or covered[-1] > covered[0], (family, dict(records[family]))
            continue
        assert means == sorted(means), (family, dict(levels))
        assert means[-1] > means[0], (family, dict(levels))
    overall = defaultdict(list)
    for t in envs[domain].tasks:
        overall[t.level].append(len(t.solution))
    low, high = min(overall), max(overall)
    assert sum(overall[high]) / len(overall[high]) >= 2 * sum(overall[low]) / len(overall[low])


@pytest.mark.parametrize("domain", TEST_DOMAINS)
def test_knobs_are_declared_and_recorded(envs: dict[str, Environment], domain: str) -> None:
    for t in envs[domain].tasks:
        family = FAMILIES[t.family]
        assert set(family.knobs) <= set(t.knobs), (t.id, family.knobs, t.knobs)
        assert set(t.knobs) >= ALL_KNOBS
        assert t.knobs["reference_calls"] == len(t.solution)


@pytest.mark.parametrize("domain", TEST_DOMAINS)
def test_every_question_has_exactly_one_answer_in_the_initial_state(envs: dict[str, Environment], domain: str) -> None:
    """The groundings (every entity the wording names, every ranking boundary) hold on a fresh copy."""
    env = envs[domain]
    session = Session(env.bundle.state_bytes, env.executor)
    try:
        for t in env.tasks:
            for g in t.grounding:
                total = session.call(g.tool, {**g.arguments, "limit": 1})["total"]
                assert total == g.total, (t.id, g)
            names_rows = not t.knobs.get("ids_given") and t.knobs.get("references", 1) > 0
            if t.family == "bulk_update":
                assert t.grounding[-1].total == t.knobs["writes"], t.id
            elif t.family == "sweep":  # names no record: the conditions' matches, of which it takes the latest
                assert t.grounding[-1].total == t.knobs["candidates"] > t.knobs["records"], t.id
            elif names_rows and t.family not in ("count", "aggregate", "topk", "infeasible"):
                assert any(g.total == 1 for g in t.grounding), t.id
    finally:
        session.close()


@pytest.mark.parametrize("domain", TEST_DOMAINS)
def test_instructions_are_distinct_and_name_no_ids_unless_the_level_says(
    envs: dict[str, Environment], domain: str
) -> None:
    tasks = envs[domain].tasks
    keys = [normalise_text(request(t.instruction)) for t in tasks]
    assert len(set(keys)) == len(keys)
    for t in tasks:
        asked = request(t.instruction).split('{"total"')[0]  # the top level's answer form is a JSON object
        mentions_id = " id " in f" {asked} " or "#" in asked
        assert mentions_id == bool(t.knobs.get("ids_given")), t.instruction
        assert "{" not in asked and "  " not in t.instruction, t.instruction


@pytest.mark.parametrize("domain", TEST_DOMAINS)
def test_refusing_blindly_scores_zero_everywhere_and_the_right_refusal_only_where_it_is_right(
    envs: dict[str, Environment], domain: str
) -> None:
    env = envs[domain]
    refusals = {t.id: t.answer for t in env.tasks if t.family == "infeasible"}
    assert refusals
    some_refusal = next(iter(refusals.values()))
    for t in env.tasks:
        env.reset(task_id=t.id)
        assert env.step({"answer": "I cannot do that: the request cannot be carried out."})[1] == 0.0, t.id
        if t.id not in refusals:
            env.reset(task_id=t.id)
            assert env.step({"answer": some_refusal})[1] == 0.0, t.id


@pytest.mark.parametrize("domain", TEST_DOMAINS)
def test_infeasible_tasks_name_a_blocker_that_holds_and_change_nothing(
    envs: dict[str, Environment], domain: str
) -> None:
    env = envs[domain]
    infeasible = [t for t in env.tasks if t.family == "infeasible"]
    assert {t.knobs["kind"] for t in infeasible} >= {"forbidden", "missing"}
    session = Session(env.bundle.state_bytes, env.executor)
    try:
        for t in infeasible:
            check = t.verifier.answer
            assert check is not None and check.kind == "refuse" and not t.verifier.changes
            assert all(env.executor.spec(c.tool).mode == "read" for c in t.solution)
            expected = check.expected
            assert t.answer == json.dumps(expected)
            if t.knobs["kind"] == "forbidden":
                op = env.executor.spec(t.knobs["operation"])
                row = session.call(f"get_{env.schema.table(op.table).entity}", {"id": expected["id"]})
                status = row[str(op.status_column)]
                assert status == expected["value"] and status not in op.allowed_from, t.id
                # The request's goal does not already hold: the row is not at or past the target status.
                reached = reachable_statuses(env.schema.table(op.table), str(op.status_column), str(op.to))
                assert status not in reached, t.id
    finally:
        session.close()


def test_every_instruction_ends_with_the_refusal_form(envs: dict[str, Environment]) -> None:
    for env in envs.values():
        for t in env.tasks:
            request(t.instruction)


def _state_after(env: Environment, solution: list) -> tuple:
    session = Session(env.bundle.state_bytes, env.executor)
    try:
        replay(session, solution, tolerate=True)
        return fingerprint(session.conn, env.schema)
    finally:
        session.close()


@pytest.mark.parametrize("domain", TEST_DOMAINS)
def test_repeating_the_writes_fails_whenever_it_changes_the_outcome(envs: dict[str, Environment], domain: str) -> None:
    """Idempotent repeats (a refused second insert or operation, an update to the same value)
    leave the same state and so the same score; any repeat that changes the state scores 0."""
    env = envs[domain]
    for t in (t for t in env.tasks if t.verifier.changes):
        once = _state_after(env, list(t.solution))
        twice_solution = list(t.solution) * 2
        session = Session(env.bundle.state_bytes, env.executor)
        try:
            replay(session, twice_solution, tolerate=True)
            reward = session.verify(t.verifier, t.answer).reward
            differs = fingerprint(session.conn, env.schema) != once
        finally:
            session.close()
        if differs:
            assert reward == 0.0, t.id
        else:
            assert reward == 1.0, t.id


@pytest.mark.parametrize("domain", TEST_DOMAINS)
def test_a_second_copy_of_a_created_row_fails(envs: dict[str, Environment], domain: str) -> None:
    """Unique fields refuse a literal repeat; a repeat with fresh unique values is an extra row."""
    env = envs[domain]
    creates = [t for t in env.tasks if t.family == "create"]
    assert creates
    for t in creates:
        call = t.solution[-1]
        table = env.schema.table(env.executor.spec(call.tool).table)
        unique = {c.name for c in table.columns if c.unique}
        again = {k: (f"{v}-2" if k in unique and isinstance(v, str) else v) for k, v in call.arguments.items()}
        session = Session(env.bundle.state_bytes, env.executor)
        try:
            replay(session, [*t.solution, type(call)(tool=call.tool, arguments=again)], tolerate=True)
            if fingerprint(session.conn, env.schema) != _state_after(env, list(t.solution)):
                assert session.verify(t.verifier, t.answer).reward == 0.0, t.id
        finally:
            session.close()


def test_generation_is_deterministic(bundles: dict[str, Path], tmp_path: Path) -> None:
    from pipeline.tasks.generate import generate_tasks
    from pipeline.tools.executor import Executor

    env = Environment.from_bundle(bundles["library_loans"])
    manifest = env.bundle.manifest.as_tool_use()
    clock = str(manifest.frozen_clock)
    again = generate_tasks(
        env.schema,
        env.toolset,
        env.bundle.state_bytes,
        Executor(env.schema, env.toolset, clock),
        manifest.seed,
        clock,
        manifest.knobs.tasks_per_family,
    )
    assert [t.model_dump() for t in again.tasks] == [t.model_dump() for t in env.tasks]


def test_tasks_round_trip_through_json(bundles: dict[str, Path]) -> None:
    for line in (bundles["online_store"] / "tasks.jsonl").read_text().splitlines():
        data = json.loads(line)
        assert Task.model_validate(data).model_dump(mode="json") == data


def test_manifest_records_task_figures(bundles: dict[str, Path]) -> None:
    counts = json.loads((bundles["clinic_appointments"] / "manifest.json").read_text())["counts"]
    figures = counts["task_figures"]
    assert sum(figures["per_family"].values()) == counts["tasks"]
    assert set(figures["reference_calls"]["per_level"]) >= {str(i) for i in range(5)}
    assert 0 < figures["instruction_diversity"]["distinct_3"] <= 1
    assert counts["candidates"] == counts["tasks"] + sum(counts["dropped"].values())
    from pipeline.tasks.exploits import REGISTRY

    exploits = counts["exploits"]
    assert set(exploits) == set(REGISTRY)
    assert all(row["passed"] == 0 for row in exploits.values())
    assert sum(row["attempts"] for row in exploits.values()) > counts["tasks"] * 10
    for name, row in exploits.items():
        assert row["dropped"] == counts["dropped"].get(f"exploit:{name}", 0)
