"""The declarative verifier on its own: answer checks, natural-key diffs over every table, status."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator

import pytest

from pipeline.runtime.verify import (
    AnswerCheck,
    RowChange,
    Verifier,
    check_answer,
    is_refusal,
    verify,
)
from pipeline.tools.executor import ToolError

SCHEMA = "CREATE TABLE items (id INTEGER PRIMARY KEY, code TEXT UNIQUE, name TEXT, qty INTEGER, price REAL, note TEXT)"
ROWS = [(1, "A-1", "Kettle", 3, 10.0, None), (2, "A-2", "Mug", 0, 4.5, None), (3, "A-3", "Mug", 7, 4.5, "x")]


@pytest.fixture()
def conn() -> Iterator[sqlite3.Connection]:
    c = sqlite3.connect(":memory:", isolation_level=None)
    c.execute("ATTACH DATABASE ':memory:' AS init")
    for db in ("main", "init"):
        c.execute(SCHEMA.replace("TABLE items", f"TABLE {db}.items"))
        c.execute(f"CREATE TABLE {db}.other (id INTEGER PRIMARY KEY, v TEXT)")
        c.executemany(f"INSERT INTO {db}.items VALUES (?, ?, ?, ?, ?, ?)", ROWS)
        c.execute(f"INSERT INTO {db}.other VALUES (1, 'a')")
    yield c
    c.close()


def _ok(check: AnswerCheck, answer: object) -> bool:
    return check_answer(check, answer).passed


@pytest.mark.parametrize(
    "answer, ok",
    [
        (17, True),
        ("17", True),
        ("17.0", True),
        (17.0, True),
        (" 17. ", True),
        ("**17**", True),
        ("Answer: **17**", True),
        ("The answer is 17", True),
        ("`17`", True),
        ("\\boxed{17}", True),
        ([17], True),
        (18, False),
        ("It is 17 or 18", False),
        ("17 or alpha", False),
        ("17, 18", False),
        ([17, 18], False),
        ("seventeen", False),
        (None, False),
        (True, False),
        ("1,7", False),
        ("2017-01-18", False),
        (float("nan"), False),
    ],
)
def test_number_check_takes_exactly_one_number(answer: object, ok: bool) -> None:
    assert _ok(AnswerCheck(kind="number", expected=17), answer) is ok


def test_numbers_are_exact_where_the_instruction_says_how_to_round() -> None:
    """'Rounded to two decimals' means that value: not one cent either way, not more decimals."""
    check = AnswerCheck(kind="number", expected=12.35)
    assert _ok(check, "12.35") and _ok(check, "$12.35") and _ok(check, 12.350)
    for wrong in ("12.34", "12.36", "12.345", 12.351):
        assert not _ok(check, wrong), wrong
    big = AnswerCheck(kind="number", expected=15546073.0)
    assert _ok(big, "15,546,073") and not _ok(big, 15546073.01)
    assert _ok(AnswerCheck(kind="number", expected=1204.5), "$1,204.50")
    assert _ok(AnswerCheck(kind="number", expected=16.5), "\\frac{33}{2}")
    loose = AnswerCheck(kind="number", expected=12.345, tolerance=0.01)
    assert _ok(loose, "12.35") and not _ok(loose, 12.37)


@pytest.mark.parametrize(
    "answer, ok",
    [
        ("Bank Transfer", True),
        ("bank_transfer", True),
        ('"bank transfer".', True),
        ("**bank transfer**", True),
        (["bank transfer"], True),
        ("bank", False),
        ("bank transfer, card", False),
        (["bank transfer", "card"], False),
        (None, False),
    ],
)
def test_text_check_normalises_but_wants_one_value(answer: object, ok: bool) -> None:
    assert _ok(AnswerCheck(kind="text", expected="bank_transfer"), answer) is ok


def test_flags_are_read_as_the_instructions_write_them() -> None:
    check = AnswerCheck(kind="text", expected=True)
    assert all(_ok(check, a) for a in ("yes", "Yes.", "**true**", True, 1, ["yes"]))
    assert not any(_ok(check, a) for a in ("no", "yes or no", "maybe", False, None))


@pytest.mark.parametrize(
    "answer, ok",
    [
        ("2024-10-28", True),
        ("October 28, 2024", True),
        ("Oct 28, 2024", True),
        ("Oct. 28th, 2024", True),
        ("28 October 2024", True),
        ("10/28/2024", True),
        ("**October 28, 2024**", True),
        ("October 29, 2024", False),
        ("2024-10-28 or 2024-10-29", False),
        ("October 2024", False),
        (20241028, False),
    ],
)
def test_dates_are_accepted_in_the_instructions_own_style(answer: object, ok: bool) -> None:
    assert _ok(AnswerCheck(kind="date", expected="2024-10-28"), answer) is ok


NAMES = ["Ortiz, Mercer and Barron", "Smith LLC", "Lee & Sons"]


@pytest.mark.parametrize(
    "answer, ok",
    [
        (["Smith LLC", "Lee & Sons", "Ortiz, Mercer and Barron"], True),
        ("Smith LLC\nLee & Sons\nOrtiz, Mercer and Barron", True),
        ("- Smith LLC\n- Lee & Sons\n- Ortiz, Mercer and Barron", True),
        ("The names:\n1. **Smith LLC**\n2. Lee & Sons\n3. Ortiz, Mercer and Barron", True),
        ('["Lee & Sons", "Smith LLC", "Ortiz, Mercer and Barron"]', True),
        ("Ortiz, Mercer and Barron, Smith LLC and Lee & Sons", True),
        ("Smith LLC; Lee & Sons; Ortiz, Mercer and Barron", True),
        ("Smith LLC\nLee & Sons", False),
        ("Smith LLC\nLee & Sons\nOrtiz, Mercer and Barron\nSmith LLC", False),
        (["Smith LLC", "Lee & Sons", "Ortiz, Mercer and Barron", "Acme"], False),
        ("Ortiz, Mercer, Barron, Smith LLC and Lee & Sons", False),
        ([["Smith LLC"], "Lee & Sons", "Ortiz, Mercer and Barron"], False),
        (None, False),
    ],
)
def test_set_answers_parse_even_when_items_hold_commas(answer: object, ok: bool) -> None:
    assert _ok(AnswerCheck(kind="set", expected=NAMES), answer) is ok


def test_ordered_lists_enforce_the_order_and_sets_forbid_duplicates() -> None:
    ordered = AnswerCheck(kind="list", expected=["B-2", "A-1", "C-3"])
    assert _ok(ordered, "B-2\nA-1\nC-3") and _ok(ordered, "B-2, A-1 and C-3") and _ok(ordered, ["b-2", "a-1", "c-3"])
    for wrong in ("C-3\nA-1\nB-2", ["A-1", "B-2", "C-3"], "A-1, B-2 and C-3", "B-2\nA-1\nC-3\nC-3"):
        assert not _ok(ordered, wrong), wrong
    unordered = AnswerCheck(kind="set", expected=["A-1", "B-2"])
    assert _ok(unordered, "B-2\nA-1") and not _ok(unordered, ["A-1", "B-2", "A-1"])


REFUSAL = {"cannot": "status", "id": 104, "value": "in_transit"}


@pytest.mark.parametrize(
    "answer, ok",
    [
        (json.dumps(REFUSAL), True),
        ('```json\n{"cannot": "status", "id": "104", "value": "In transit"}\n```', True),
        ('I looked it up: {"cannot": "status", "id": 104, "value": "in transit"}', True),
        ("I cannot do that.", False),
        ("This cannot be done: there is no such order.", False),
        ("Done: there is no problem, it has been changed.", False),
        ('{"cannot": "status"}', False),
        ('{"cannot": "missing", "id": 104, "value": "in_transit"}', False),
        ('{"cannot": "status", "id": 105, "value": "in_transit"}', False),
        ('{"cannot": "status", "id": 104, "value": "delivered"}', False),
        ('{"cannot": ["missing", "status", "limit"], "id": 104, "value": "in_transit"}', False),
        ('{"cannot": "missing", "id": 104} {"cannot": "status", "id": 104, "value": "in_transit"}', False),
        ([json.dumps(REFUSAL), '{"cannot": "missing", "id": 104}'], False),
        (None, False),
    ],
)
def test_a_refusal_must_name_the_real_blocker(answer: object, ok: bool) -> None:
    assert _ok(AnswerCheck(kind="refuse", expected=REFUSAL), answer) is ok


def test_limit_and_missing_refusals() -> None:
    limit = AnswerCheck(kind="refuse", expected={"cannot": "limit", "id": 7, "value": 4})
    assert _ok(limit, '{"cannot": "limit", "id": 7, "value": "4.0"}')
    assert not _ok(limit, '{"cannot": "limit", "id": 7, "value": 0}')
    missing = AnswerCheck(kind="refuse", expected={"cannot": "missing", "id": 3, "value": None})
    assert _ok(missing, '{"cannot": "missing", "id": 3}') and not _ok(missing, '{"cannot": "missing", "id": null}')
    assert is_refusal('{"cannot": "limit", "id": 1}') and not is_refusal("Cancelled it.")


def test_old_task_records_are_refused_with_a_clear_message() -> None:
    with pytest.raises(ValueError, match="regenerate the bundle"):
        AnswerCheck(kind="refuse")
    with pytest.raises(ValueError, match="regenerate the bundle"):
        Verifier.model_validate({"answer": None, "changes": [], "watch": ["items"]})


def _verifier(*changes: RowChange, answer: AnswerCheck | None = None) -> Verifier:
    return Verifier(answer=answer, changes=changes)


def _state(verdict) -> list:
    """The state checks (the answer check comes first)."""
    return verdict.checks[1:]


def test_untouched_state_passes_an_empty_diff_and_fails_an_expected_one(conn: sqlite3.Connection) -> None:
    assert verify(conn, _verifier(), None).reward == 1.0
    change = RowChange(table="items", op="update", key={"code": "A-2"}, values={"qty": 5})
    verdict = verify(conn, _verifier(change), None)
    assert verdict.reward == 0.0 and verdict.status == "failed"
    assert _state(verdict)[0].observed == "unchanged"


def test_update_is_found_by_natural_key_and_other_columns_must_stay(conn: sqlite3.Connection) -> None:
    change = RowChange(table="items", op="update", key={"code": "A-2"}, values={"qty": 5})
    conn.execute("UPDATE items SET qty = 5 WHERE code = 'A-2'")
    assert verify(conn, _verifier(change), None).status == "passed"
    conn.execute("UPDATE items SET price = 9 WHERE code = 'A-2'")
    verdict = verify(conn, _verifier(change), None)
    assert verdict.reward == 0.0
    assert _state(verdict)[0].observed["other columns changed"] == {"price": [4.5, 9.0]}


def test_a_write_to_the_wrong_row_fails_both_checks(conn: sqlite3.Connection) -> None:
    change = RowChange(table="items", op="update", key={"code": "A-2"}, values={"qty": 5})
    conn.execute("UPDATE items SET qty = 5 WHERE code = 'A-3'")
    verdict = verify(conn, _verifier(change), None)
    assert [c.passed for c in _state(verdict)] == [False, False]
    assert _state(verdict)[1].observed == [{"table": "items", "updated": {"id": 3, "qty": [7, 5]}}]


def test_a_write_to_any_other_table_fails(conn: sqlite3.Connection) -> None:
    """The state check covers every table, not only the ones the task is about."""
    change = RowChange(table="items", op="update", key={"code": "A-2"}, values={"qty": 5})
    conn.execute("UPDATE items SET qty = 5 WHERE code = 'A-2'")
    conn.execute("UPDATE other SET v = 'b' WHERE id = 1")
    verdict = verify(conn, _verifier(change), None)
    assert verdict.reward == 0.0 and not _state(verdict)[-1].passed
    conn.execute("UPDATE other SET v = 'a' WHERE id = 1")
    conn.execute("INSERT INTO other VALUES (2, 'new')")
    assert verify(conn, _verifier(change), None).reward == 0.0


def test_a_read_only_task_fails_on_any_write_even_one_that_restores_the_value(conn: sqlite3.Connection) -> None:
    answer = AnswerCheck(kind="number", expected=3)
    conn.execute("UPDATE items SET qty = qty WHERE id = 1")
    assert verify(conn, _verifier(answer=answer), 3).reward == 1.0  # without a write log: values only
    verdict = verify(conn, _verifier(answer=answer), 3, touched={"items": {1}})
    assert verdict.reward == 0.0
    assert _state(verdict)[-1].observed == [{"table": "items", "written, unchanged": 1}]


def test_insert_is_matched_by_key_and_must_hold_exactly_the_expected_row(conn: sqlite3.Connection) -> None:
    values = {"code": "A-9", "name": "Lid", "qty": 1, "price": 2.0, "note": None}
    change = RowChange(table="items", op="insert", key={"code": "A-9"}, values=values)
    conn.execute("INSERT INTO items (id, code, name, qty, price) VALUES (40, 'A-9', 'Lid', 1, 2.0)")
    assert verify(conn, _verifier(change), None).reward == 1.0
    conn.execute("UPDATE items SET note = 'junk' WHERE id = 40")
    verdict = verify(conn, _verifier(change), None)
    assert verdict.reward == 0.0 and _state(verdict)[0].observed == {"differs": {"note": "junk"}}


def test_inserting_twice_or_a_wrong_value_fails(conn: sqlite3.Connection) -> None:
    change = RowChange(
        table="items",
        op="insert",
        key={"name": "Lid"},
        values={"code": "A-8", "name": "Lid", "qty": 1, "price": None, "note": None},
    )
    conn.execute("INSERT INTO items (code, name, qty) VALUES ('A-8', 'Lid', 1)")
    conn.execute("INSERT INTO items (code, name, qty) VALUES ('A-9', 'Lid', 1)")
    assert verify(conn, _verifier(change), None).reward == 0.0
    conn.execute("DELETE FROM items WHERE code = 'A-9'")
    assert verify(conn, _verifier(change), None).reward == 1.0
    conn.execute("UPDATE items SET qty = 2 WHERE code = 'A-8'")
    assert verify(conn, _verifier(change), None).reward == 0.0


def test_delete_and_unexpected_delete(conn: sqlite3.Connection) -> None:
    change = RowChange(table="items", op="delete", key={"code": "A-1"})
    conn.execute("DELETE FROM items WHERE code = 'A-1'")
    assert verify(conn, _verifier(change), None).reward == 1.0
    conn.execute("DELETE FROM items WHERE code = 'A-3'")
    assert verify(conn, _verifier(change), None).reward == 0.0


def test_a_key_that_does_not_name_one_initial_row_is_an_error_not_a_failure(conn: sqlite3.Connection) -> None:
    """The initial state is not the agent's doing: such a task is broken, and says so."""
    from pipeline.runtime.verify import VerificationError

    change = RowChange(table="items", op="update", key={"name": "Mug"}, values={"qty": 1})
    with pytest.raises(VerificationError, match="names 2 rows"):
        verify(conn, _verifier(change), None)


def test_answer_and_state_must_both_pass(conn: sqlite3.Connection) -> None:
    v = _verifier(answer=AnswerCheck(kind="refuse", expected={"cannot": "limit", "id": 2, "value": 0}))
    refusal = '{"cannot": "limit", "id": 2, "value": 0}'
    assert verify(conn, v, refusal).reward == 1.0
    assert verify(conn, v, None).reward == 0.0
    conn.execute("UPDATE items SET qty = 0 WHERE code = 'A-1'")
    assert verify(conn, v, refusal).reward == 0.0


def test_a_change_task_fails_when_its_answer_claims_it_could_not_be_done(conn: sqlite3.Connection) -> None:
    change = RowChange(table="items", op="update", key={"code": "A-2"}, values={"qty": 5})
    conn.execute("UPDATE items SET qty = 5 WHERE code = 'A-2'")
    assert verify(conn, _verifier(change), "Done, it now has 5.").reward == 1.0
    assert verify(conn, _verifier(change), '{"cannot": "status", "id": 2, "value": "x"}').reward == 0.0


def test_the_agent_view_holds_no_expected_value(conn: sqlite3.Connection) -> None:
    change = RowChange(table="items", op="update", key={"code": "A-2"}, values={"qty": 5})
    verdict = verify(conn, _verifier(change, answer=AnswerCheck(kind="text", expected="Mug")), "Kettle")
    public = json.dumps(verdict.public())
    for secret in ("A-2", "Mug", "qty", "code", "items", "update"):
        assert secret not in public, secret
    assert [c["passed"] for c in verdict.public()["checks"]] == [False, False, True]
    assert "Mug" in json.dumps(verdict.full())


def test_verification_is_read_only(conn: sqlite3.Connection) -> None:
    before = conn.execute("SELECT * FROM items ORDER BY id").fetchall()
    verify(conn, _verifier(RowChange(table="items", op="delete", key={"code": "A-1"})), "x")
    assert conn.execute("SELECT * FROM items ORDER BY id").fetchall() == before
    assert conn.execute("PRAGMA query_only").fetchone()[0] == 0


def test_session_reports_an_error_status_when_verification_cannot_run(store_bundle) -> None:
    from pipeline import Environment

    env = Environment.from_bundle(store_bundle)
    task = env.tasks[0]
    env.reset(task_id=task.id)
    # Inside the session's transaction, foreign keys can only be deferred (to a commit that never comes).
    env._session.conn.execute("PRAGMA defer_foreign_keys = ON")
    env._session.conn.execute(f'DROP TABLE "{env.schema.tables[0].name}"')  # a corrupt state
    env._session.conn.execute("INSERT INTO synthenv_touched (tbl, id) VALUES (?, 1)", (env.schema.tables[0].name,))
    _, reward, terminated, _, info = env.step({"answer": task.answer})
    assert info["verification"]["status"] == "error" and reward == 0.0 and terminated
    assert "no such table" in env.verdict.error
    env.reset(task_id=task.id)
    env._session.conn.close()
    assert env._session.verify(task.verifier, task.answer).status == "error"


def test_touched_rows_diff_equals_the_full_table_diff(bundles) -> None:
    """The session's write triggers see every change the full comparison sees."""
    from pipeline import Environment
    from pipeline.runtime.diff import table_diff
    from pipeline.runtime.session import Session

    env = Environment.from_bundle(bundles["online_store"])
    writes = [t for t in env.tasks if t.verifier.changes]
    assert writes
    for task in writes:
        env.reset(task_id=task.id)
        # A private copy replays the same calls: the full comparison attaches the initial state to
        # its connection, which the shared session's open transaction does not allow.
        session = Session(env._initial, env.executor)
        for call in task.solution + task.solution:
            env.step(call.model_dump())
            with contextlib.suppress(ToolError):
                session.call(call.tool, call.arguments)
        touched = session.touched()
        assert touched == env._session.touched(), task.id
        session.conn.execute("ATTACH DATABASE ':memory:' AS init")
        session.conn.deserialize(session._initial, name="init")
        try:
            for table in env.schema.tables:
                full = table_diff(session.conn, table.name, "init")
                fast = table_diff(session.conn, table.name, "init", touched)
                assert {k: v for k, v in fast.items() if k != "written"} == {
                    k: v for k, v in full.items() if k != "written"
                }, (task.id, table.name)
        finally:
            session.close()


def test_a_verdict_names_its_task_and_a_mismatch_is_an_error() -> None:
    from pipeline.runtime.verify import Check, Verdict, for_task

    passed = Verdict(status="passed", reward=1.0, checks=[Check(name="answer", passed=True, expected=3, observed=3)])
    same = for_task(passed, "t-1", "t-1")
    assert same.passed and same.reward == 1.0
    assert same.public()["task_id"] == same.public()["assigned_task_id"] == "t-1"
    assert same.full()["task_id"] == "t-1" and "expected" not in str(same.public())
    swapped = for_task(passed, "t-2", "t-1")
    assert (swapped.status, swapped.reward, swapped.passed) == ("error", 0.0, False)
    assert swapped.public()["task_id"] == "t-2" and swapped.public()["assigned_task_id"] == "t-1"
    assert swapped.public()["error"] and swapped.checks == passed.checks  # the checks stay, for the trainer


def test_a_goal_accepts_every_legal_path_stamp_and_nothing_else(conn: sqlite3.Connection) -> None:
    """ "Make sure it ends up closed": the path that stamps a decision time and the one that does not
    both pass; a stamp with another value, or another column changed, does not."""
    stamp = "2026-01-15T12:00:00"
    change = RowChange(table="items", op="update", key={"code": "A-2"}, values={"qty": 5}, stamps={"note": stamp})
    conn.execute("UPDATE items SET qty = 5 WHERE code = 'A-2'")
    assert verify(conn, _verifier(change), None).status == "passed"  # the path without the stamp
    conn.execute("UPDATE items SET note = ? WHERE code = 'A-2'", (stamp,))
    assert verify(conn, _verifier(change), None).status == "passed"  # the path that stamps it
    conn.execute("UPDATE items SET note = '2026-01-14T09:00:00' WHERE code = 'A-2'")
    assert verify(conn, _verifier(change), None).reward == 0.0  # a value no legal path writes
    conn.execute("UPDATE items SET note = ?, price = 9 WHERE code = 'A-2'", (stamp,))
    assert verify(conn, _verifier(change), None).reward == 0.0  # anything else still judged
    plain = RowChange(table="items", op="update", key={"code": "A-2"}, values={"qty": 5})
    assert "stamps" not in plain.model_dump(mode="json")  # records without a goal keep their bytes
