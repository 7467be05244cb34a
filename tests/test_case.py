"""The top level (family ``case``): a person's request judged by the policy, with a sum to compute.

The reference scores 1.0 through the real environment, in every answer form the instruction uses;
doing everything asked, taking the first records listed, copying one amount, forgetting the
refund fee, or giving half the report scores 0.0. The report answer, the fee rule and a family whose
levels start above 0 are checked on their own too.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from pipeline import Environment
from pipeline.jobs.steps import Inputs, generate, schema_step
from pipeline.policy.fees import amount_source, fee_rule, refund
from pipeline.runtime.answers import as_report, report_matches
from pipeline.runtime.task import Task
from pipeline.runtime.verify import AnswerCheck, check_answer
from pipeline.tasks.families import FAMILIES
from pipeline.tools.executor import open_copy

EXPECTED = {
    "total": 412.5,
    "refused": [{"cannot": "policy", "id": 7, "value": "P5"}, {"cannot": "status", "id": 9, "value": "shipped"}],
}


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Environment:
    root = tmp_path_factory.mktemp("case")
    summary = generate(Inputs(domain="insurance_claims", seed=4, scale=3), root / "out", root / "work")
    return Environment.from_bundle(Path(summary["path"]))


def _cases(env: Environment) -> list[Task]:
    tasks = [t for t in env.tasks if t.family == "case"]
    assert len(tasks) >= 3
    return tasks


def _play(env: Environment, task: Task, calls: list[tuple[str, dict[str, Any]]], answer: Any) -> float:
    env.reset(task_id=task.id)
    for tool, args in calls:
        env.step({"tool": tool, "arguments": args})
    return env.step({"answer": answer})[1]


def _reference(task: Task) -> list[tuple[str, dict[str, Any]]]:
    return [(c.tool, dict(c.arguments)) for c in task.solution]


def test_the_report_answer_is_read_in_every_form_the_instruction_uses() -> None:
    shuffled = {"refused": list(reversed(EXPECTED["refused"])), "total": "$412.50", "note": "done"}
    for answer in (EXPECTED, json.dumps(EXPECTED), f"```json\n{json.dumps(EXPECTED)}\n```", shuffled):
        assert report_matches(EXPECTED, answer), answer
    for wrong in (
        {**EXPECTED, "total": 412.51},
        {"total": 412.5, "refused": EXPECTED["refused"][:1]},
        {"total": 412.5, "refused": [*EXPECTED["refused"], EXPECTED["refused"][0]]},
        {"total": [412.5, 400], "refused": EXPECTED["refused"]},
        {"total": 412.5},  # refusals expected: leaving them out is half the report
        EXPECTED["refused"],
        "412.50",
        None,
    ):
        assert not report_matches(EXPECTED, wrong), wrong
    nothing_refused = {"total": 10, "refused": []}
    assert report_matches(nothing_refused, {"total": "10.00", "refused": []})
    assert report_matches(nothing_refused, {"total": 10})  # nothing refused: the list may be left out
    assert not report_matches(nothing_refused, {"refused": []}) and as_report({"refused": []}) is None
    assert not report_matches(nothing_refused, {"total": 10, "refused": EXPECTED["refused"][:1]})
    assert as_report("not json {") is None and as_report("[" * 5000) is None
    assert check_answer(AnswerCheck(kind="report", expected=EXPECTED), json.dumps(EXPECTED)).passed
    with pytest.raises(ValueError):
        AnswerCheck(kind="report", expected={"total": 1})


def test_a_refund_keeps_back_the_policy_fee_rounded_per_record() -> None:
    schema = schema_step(Inputs(domain="online_store", seed=0))
    cancel = next(op for op in schema.operations if op.name == "cancel_order")
    ship = next(op for op in schema.operations if op.name == "ship_order")
    rule = fee_rule(schema, cancel, 0)
    assert rule is not None and rule.kind == "fee" and rule.child == "payments" and rule.limit in (5, 10, 15, 20, 25)
    assert "less a fee of" in rule.text and "payments" in rule.text
    assert fee_rule(schema, ship, 0) is None  # shipping refunds nothing
    assert fee_rule(schema, cancel, 0) == rule  # the same seed, the same line
    assert refund(Decimal("19.99"), rule.model_copy(update={"limit": 10.0})) == Decimal("17.99")  # 17.991
    assert refund(Decimal("0.05"), rule.model_copy(update={"limit": 10.0})) == Decimal("0.05")  # 0.045 half up
    orders = schema.table("orders")
    source = amount_source(schema, orders)
    assert source is not None and source.table.name == "payments"  # not order items' unit prices


def test_the_top_level_is_one_family_whose_levels_start_at_five() -> None:
    case = FAMILIES["case"]
    assert sorted(case.levels) == [5] and [case.level_of(i) for i in range(3)] == [5, 5, 5]
    assert case.slots_for(5, 4) == 4
    lookup = FAMILIES["lookup"]
    assert [lookup.level_of(i) for i in range(6)] == [0, 1, 2, 3, 4, 0]
    assert lookup.slots_for(4, 1) == 5 and lookup.slots_for(0, 2) == 6


def test_the_reference_scores_one_in_each_answer_form(env: Environment) -> None:
    for task in _cases(env):
        expected = json.loads(str(task.answer))
        assert _play(env, task, _reference(task), task.answer) == 1.0, task.id
        assert _play(env, task, _reference(task), expected) == 1.0, task.id  # the object itself
        assert task.knobs["partial"] and task.knobs["computed"] == 1 and task.knobs["policy_rules"] >= 2


def test_every_shortcut_without_judgment_scores_zero(env: Environment) -> None:
    for task in _cases(env):
        expected = json.loads(str(task.answer))
        forbidden = [(_op(task, r["id"]), {"id": r["id"]}) for r in expected["refused"] if r["cannot"] == "policy"]
        assert forbidden, task.id  # at least one record a staff rule protects
        reference = _reference(task)
        # Doing everything asked (the tools let it), with either total.
        assert _play(env, task, reference + forbidden, task.answer) == 0.0, task.id
        assert _play(env, task, reference + forbidden, task.knobs["literal_answer"]) == 0.0, task.id
        # The right calls, a wrong report: first records' total, one amount copied, the fee forgotten,
        # no refusals, the refusals alone.
        for wrong in (task.knobs["first_answer"], task.knobs["gross_answer"]):
            if json.loads(wrong)["total"] != expected["total"]:
                assert _play(env, task, reference, wrong) == 0.0, (task.id, wrong)
        assert _play(env, task, reference, {**expected, "refused": []}) == 0.0, task.id
        assert _play(env, task, reference, json.dumps(expected["refused"])) == 0.0, task.id
        # Refusing only: none of the allowed part done.
        reads = [(t, a) for t, a in reference if env.executor.spec(t).mode == "read"]
        assert _play(env, task, reads, task.answer) == 0.0, task.id
        # Doing nothing.
        assert _play(env, task, [], None) == 0.0, task.id


def _op(task: Task, record: int) -> str:
    """The operation the request asks for on ``record`` (the second request's own, for its record)."""
    second = task.knobs.get("second")
    return str(second["operation"] if second and second["id"] == record else task.knobs["operation"])


def test_a_second_request_in_the_message_is_part_of_the_task(env: Environment) -> None:
    """Where the person owns another kind of record, the message also asks for an operation on
    their latest one: leaving it out, or doing it where the policy forbids, scores 0."""
    seconds = [t for t in _cases(env) if t.knobs.get("second")]
    assert seconds, "no level-5 task of this world asks for a second operation"
    for task in seconds:
        second = task.knobs["second"]
        reference = _reference(task)
        mine = [
            i
            for i, (tool, args) in enumerate(reference)
            if tool == second["operation"] and args.get("id") == second["id"]
        ]
        refused = [r for r in json.loads(str(task.answer))["refused"] if r["id"] == second["id"]]
        assert len(mine) + len(refused) == 1, task.id  # done or refused, never both
        if mine:  # the second operation left out
            without = [c for i, c in enumerate(reference) if i not in mine]
            assert _play(env, task, without, task.answer) == 0.0, task.id
        else:  # done although a rule forbids it (a status the tools refuse is refused either way)
            extra = [(second["operation"], {"id": second["id"]})]
            if refused[0]["cannot"] == "policy":
                assert _play(env, task, reference + extra, task.answer) == 0.0, task.id
        assert _play(env, task, reference, task.answer) == 1.0, task.id


def test_the_first_records_listed_are_not_the_ones_the_priority_rule_means(env: Environment) -> None:
    for task in _cases(env):
        if task.knobs["all_records"]:
            continue  # every record the person has: no choice among them
        first = json.loads(task.knobs["first_answer"])
        expected = json.loads(str(task.answer))
        ids = {r["id"] for r in expected["refused"]} | {
            c.arguments["id"] for c in task.solution if c.tool == task.knobs["operation"]
        }
        first_ids = {r["id"] for r in first["refused"]}
        assert first != expected or not first_ids <= ids, task.id


def test_records_a_person_holds_two_ways_are_never_asked_about_as_theirs() -> None:
    """A transfer belongs to the customer of its source account and of its destination account:
    "my transfers" has two readings, so no request is built on it; cards (one account) are fine."""
    from pipeline.policy.derive import ownership
    from pipeline.tasks.families.request import _two_ways

    schema = schema_step(Inputs(domain="banking", seed=3))
    transfers, cards = ownership(schema, schema.table("transfers")), ownership(schema, schema.table("cards"))
    assert len(transfers) == 2 and all(_two_ways(p, transfers) for p in transfers)
    assert cards and not any(_two_ways(p, cards) for p in cards)


def test_the_fee_line_says_how_a_half_cent_rounds() -> None:
    schema = schema_step(Inputs(domain="online_store", seed=0))
    rule = fee_rule(schema, next(op for op in schema.operations if op.name == "cancel_order"), 0)
    assert rule is not None and "half a cent up" in rule.text and "what was paid on it" in rule.text


def test_a_fine_is_owed_by_the_member_who_had_the_loan_and_fines_are_asked_about(tmp_path: Path) -> None:
    """A library fine names its member and the loan it is on; the blueprint derives the member from
    the loan, so the two ways agree on every row and "my fines" has one reading: requests about a
    person's latest fine are built."""
    import sqlite3

    summary = generate(Inputs(domain="library_loans", seed=11), tmp_path / "out", tmp_path / "work")
    path = Path(summary["path"])
    conn = sqlite3.connect(path / "state.sqlite")
    try:
        fines, disagree = conn.execute(
            "SELECT count(*), sum(f.member_id != l.member_id) FROM fines f JOIN loans l ON f.loan_id = l.id"
        ).fetchone()
    finally:
        conn.close()
    assert fines > 0 and disagree == 0
    env = Environment.from_bundle(path)
    try:
        asked = [t for t in env.tasks if t.family in ("request", "case", "quote")]
        latest_fine = [any(c.tool == "list_fines" and "order_by" in c.arguments for c in t.solution) for t in asked]
        about_fines = [t for t, ok in zip(asked, latest_fine, strict=True) if ok]
        assert about_fines, [t.instruction for t in asked]
    finally:
        env.close()


def test_records_a_person_owns_two_ways_that_disagree_are_never_asked_about(tmp_path: Path) -> None:
    """Where a fine's member and its loan's member differ, "my fines" has two readings: the person
    is not asked about, while a person whose two ways agree is."""
    from pipeline.policy.derive import ownership
    from pipeline.policy.model import Policy
    from pipeline.tasks.context import Context
    from pipeline.tasks.families.request import agrees
    from pipeline.tasks.phrasing import Phrasebook

    summary = generate(Inputs(domain="library_loans", seed=11), tmp_path / "out", tmp_path / "work")
    env = Environment.from_bundle(Path(summary["path"]))
    conn = open_copy(env.bundle.state_bytes)
    try:
        fines = env.schema.table("fines")
        own, through = sorted(ownership(env.schema, fines), key=len)
        fine_id, member, other = conn.execute(
            "SELECT f.id, f.member_id, (SELECT min(id) FROM members WHERE id != f.member_id) FROM fines f "
            "WHERE (SELECT count(*) FROM fines g WHERE g.member_id = f.member_id) = 1 ORDER BY f.id LIMIT 1"
        ).fetchone()

        def context() -> Context:
            policy = Policy.model_validate(env.bundle.manifest.policy_rules)
            return Context(env.schema, env.toolset, env.executor, conn, policy.clock, 11, Phrasebook.load(), policy)

        assert agrees(context(), fines, own, member) and agrees(context(), fines, through, member)
        conn.execute("UPDATE fines SET member_id = ? WHERE id = ?", (other, fine_id))
        assert not agrees(context(), fines, own, member) and not agrees(context(), fines, through, member)
        assert not agrees(context(), fines, own, other)
    finally:
        conn.close()
        env.close()


def test_amounts_summed_all_hold_their_table_s_usual_status(tmp_path: Path) -> None:
    """A claim's payments may be cleared, scheduled or voided: a total is asked only where every
    payment summed holds the table's usual status, so "the total of the payments" has one reading."""
    from pipeline.policy.model import Policy
    from pipeline.tasks.context import Context
    from pipeline.tasks.families._settle import paid_on
    from pipeline.tasks.model import Skip
    from pipeline.tasks.phrasing import Phrasebook

    summary = generate(Inputs(domain="insurance_claims", seed=23), tmp_path / "out", tmp_path / "work")
    env = Environment.from_bundle(Path(summary["path"]))
    conn = open_copy(env.bundle.state_bytes)
    try:
        policy = Policy.model_validate(env.bundle.manifest.policy_rules)
        ctx = Context(env.schema, env.toolset, env.executor, conn, policy.clock, 23, Phrasebook.load(), policy)
        source = amount_source(env.schema, env.schema.table("claims"))
        assert source is not None and source.table.name == "claim_payments"
        usual = conn.execute("SELECT status FROM claim_payments GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1")
        usual_status = usual.fetchone()[0]
        kinds = conn.execute(
            "SELECT claim_id, count(DISTINCT status) = 1 AND min(status) = ? FROM claim_payments GROUP BY 1",
            (usual_status,),
        ).fetchall()
        clean = next(c for c, ok in kinds if ok)
        mixed = next(c for c, ok in kinds if not ok)
        claim = {r["id"]: r for r in ctx.rows(env.schema.table("claims"))}
        assert paid_on(ctx, source, claim[clean])[0]
        with pytest.raises(Skip):
            paid_on(ctx, source, claim[mixed])
        assert paid_on(ctx, source, claim[mixed], strict=False)[0]  # a shortcut's answer still comes to a sum
    finally:
        conn.close()
        env.close()


@pytest.mark.slow
def test_where_no_record_is_refused_by_a_rule_the_second_request_is(tmp_path: Path) -> None:
    """A person whose latest records no staff rule refuses still gets a top-level request when their
    latest record of another kind is refused by one: the message as a whole needs the policy, so a
    policy that does everything asked (the literal reading) answers otherwise."""
    from pipeline.bundle.format import serialise
    from pipeline.jobs.steps import populate_step, tools_step
    from pipeline.tasks.generate import generate_tasks
    from pipeline.tools.executor import Executor

    inputs = Inputs(domain="library_loans", seed=11, scale=3.0)
    schema = schema_step(inputs)
    state = populate_step(inputs, schema, tmp_path)
    toolset = tools_step(schema, state.path, inputs.clock)
    executor = Executor(schema, toolset, inputs.clock)
    out = generate_tasks(schema, toolset, serialise(state.path), executor, 11, inputs.clock, 6, families=("case",))
    found = []
    for task in out.tasks:
        second = task.knobs["second"]
        assert task.verifier.answer is not None
        refused = task.verifier.answer.expected["refused"]
        by_rule = [r for r in refused if r["cannot"] == "policy"]
        if second is not None and by_rule == refused[-1:] and refused[-1]["id"] == second["id"]:
            found.append(task)
    assert found, [t.knobs["second"] for t in out.tasks]
    for task in found:
        assert json.loads(task.knobs["literal_answer"]) != task.verifier.answer.expected


def test_in_a_small_world_a_person_may_ask_about_every_record_they_have(tmp_path: Path) -> None:
    """Where nobody has more records than a request covers, a person asks about all of theirs ("both of
    my dues payments"), never "my latest" (which would hint at others); the rules, the sum and the
    refusals still decide, the first records listed are the ones meant, and the reference scores 1."""
    summary = generate(Inputs(domain="fitness_club", seed=0), tmp_path / "out", tmp_path / "work")
    env = Environment.from_bundle(Path(summary["path"]))
    try:
        every = [t for t in env.tasks if t.family == "case" and t.knobs["all_records"]]
        assert every, "the small world asks about every record of someone"
        for task in every:
            wish = task.instruction.split(". ")[1]  # after the greeting: the request itself
            assert "latest" not in wish and "most recent" not in wish, task.id
            assert re.search(r"\b(both|all)\b", wish), task.id
            assert json.loads(task.knobs["first_answer"]) == json.loads(str(task.answer)), task.id
            assert task.knobs["refused"] >= 1 and task.knobs["computed"] == 1, task.id
            assert _play(env, task, _reference(task), str(task.answer)) == 1.0, task.id
    finally:
        env.close()
