"""The declarative verifier on its own: answer checks, natural-key diffs, read-only."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from pipeline.verify import AnswerCheck, RowChange, Verifier, check_answer, is_refusal, normalise_text, verify

SCHEMA = ("CREATE TABLE items (id INTEGER PRIMARY KEY, code TEXT UNIQUE, name TEXT, qty INTEGER, "
          "price REAL, note TEXT)")
ROWS = [(1, "A-1", "Kettle", 3, 10.0, None), (2, "A-2", "Mug", 0, 4.5, None), (3, "A-3", "Mug", 7, 4.5, "x")]


@pytest.fixture()
def conn() -> Iterator[sqlite3.Connection]:
    c = sqlite3.connect(":memory:", isolation_level=None)
    for db in ("main", "init"):
        if db == "init":
            c.execute("ATTACH DATABASE ':memory:' AS init")
        c.execute(SCHEMA.replace("TABLE items", f"TABLE {db}.items"))
        c.executemany(f"INSERT INTO {db}.items VALUES (?, ?, ?, ?, ?, ?)", ROWS)
    yield c
    c.close()


@pytest.mark.parametrize("answer, ok", [
    (17, True), ("17", True), ("17.0", True), (" 17. ", True), ("It is 17.", True), ([17], True),
    (18, False), ("17 or 18", False), ([17, 18], False), ("seventeen", False), (None, False), (True, False),
    ("1,7", False), ("17,18", False), ("2017-01-18", False), (float("nan"), False),
])
def test_number_check_takes_one_number(answer: object, ok: bool) -> None:
    assert check_answer(AnswerCheck(kind="number", expected=17), answer).passed is ok


def test_number_tolerance_is_absolute() -> None:
    check = AnswerCheck(kind="number", expected=12.345, tolerance=0.01)
    assert check_answer(check, "12.35").passed and check_answer(check, "$12.34").passed
    assert not check_answer(check, 12.37).passed
    assert check_answer(AnswerCheck(kind="number", expected=1204.5), "$1,204.50").passed


@pytest.mark.parametrize("answer, ok", [
    ("Bank Transfer", True), ("bank_transfer", True), ('"bank transfer".', True), (["bank transfer"], True),
    ("bank", False), ("bank transfer, card", False), (["bank transfer", "card"], False), (None, False),
])
def test_text_check_normalises_but_wants_one_value(answer: object, ok: bool) -> None:
    assert check_answer(AnswerCheck(kind="text", expected="bank_transfer"), answer).passed is ok


@pytest.mark.parametrize("answer, ok", [
    (["B-2", "a-1"], True), ("A-1, B-2", True), ("B-2;A-1", True), (["A-1"], False),
    (["A-1", "B-2", "C-3"], False), ("A-1", False), (None, False), ([["A-1"], "B-2"], False),
])
def test_set_check_is_exact(answer: object, ok: bool) -> None:
    assert check_answer(AnswerCheck(kind="set", expected=["A-1", "B-2"]), answer).passed is ok


def test_refusal_needs_an_explicit_refusal() -> None:
    check = AnswerCheck(kind="refuse")
    assert check_answer(check, "This cannot be done: there is no such order.").passed
    assert check_answer(check, "I'm unable to do that, the order does not exist").passed
    for answer in (None, "Done.", "", 0, ["cannot"]):
        assert not check_answer(check, answer).passed, answer
    assert is_refusal("Not allowed: it has shipped") and not is_refusal("Cancelled it.")


def test_normalise_text() -> None:
    assert normalise_text("  'Walnut   Kettle'. ") == "walnut kettle"


def _verifier(*changes: RowChange, answer: AnswerCheck | None = None) -> Verifier:
    return Verifier(answer=answer, changes=changes, watch=("items",))


def test_untouched_state_passes_an_empty_diff_and_fails_an_expected_one(conn: sqlite3.Connection) -> None:
    assert verify(conn, _verifier(), None).reward == 1.0
    change = RowChange(table="items", op="update", key={"code": "A-2"}, values={"qty": 5})
    verdict = verify(conn, _verifier(change), None)
    assert verdict.reward == 0.0
    assert verdict.checks[0].observed == "unchanged"


def test_update_is_found_by_natural_key_and_other_columns_must_stay(conn: sqlite3.Connection) -> None:
    change = RowChange(table="items", op="update", key={"code": "A-2"}, values={"qty": 5})
    conn.execute("UPDATE items SET qty = 5 WHERE code = 'A-2'")
    assert verify(conn, _verifier(change), None).reward == 1.0
    conn.execute("UPDATE items SET price = 9 WHERE code = 'A-2'")
    verdict = verify(conn, _verifier(change), None)
    assert verdict.reward == 0.0
    assert verdict.checks[0].observed["other columns changed"] == {"price": [4.5, 9.0]}


def test_a_write_to_the_wrong_row_fails_both_checks(conn: sqlite3.Connection) -> None:
    change = RowChange(table="items", op="update", key={"code": "A-2"}, values={"qty": 5})
    conn.execute("UPDATE items SET qty = 5 WHERE code = 'A-3'")
    verdict = verify(conn, _verifier(change), None)
    assert [c.passed for c in verdict.checks] == [False, False]
    assert verdict.checks[1].observed == [{"updated": {"id": 3, "qty": [7, 5]}}]


def test_insert_is_matched_by_key_not_by_auto_id(conn: sqlite3.Connection) -> None:
    change = RowChange(table="items", op="insert", key={"code": "A-9"}, values={"code": "A-9", "name": "Lid", "qty": 1})
    conn.execute("INSERT INTO items (id, code, name, qty, price) VALUES (40, 'A-9', 'Lid', 1, 2.0)")
    assert verify(conn, _verifier(change), None).reward == 1.0


def test_inserting_twice_or_a_wrong_value_fails(conn: sqlite3.Connection) -> None:
    change = RowChange(table="items", op="insert", key={"name": "Lid"}, values={"name": "Lid", "qty": 1})
    conn.execute("INSERT INTO items (code, name, qty) VALUES ('A-8', 'Lid', 1)")
    conn.execute("INSERT INTO items (code, name, qty) VALUES ('A-9', 'Lid', 1)")
    assert verify(conn, _verifier(change), None).reward == 0.0
    conn.execute("DELETE FROM items WHERE code = 'A-9'")
    conn.execute("UPDATE items SET qty = 2 WHERE code = 'A-8'")
    verdict = verify(conn, _verifier(change), None)
    assert verdict.reward == 0.0 and verdict.checks[0].observed == {"name": "Lid", "qty": 2}


def test_delete_and_unexpected_delete(conn: sqlite3.Connection) -> None:
    change = RowChange(table="items", op="delete", key={"code": "A-1"})
    conn.execute("DELETE FROM items WHERE code = 'A-1'")
    assert verify(conn, _verifier(change), None).reward == 1.0
    conn.execute("DELETE FROM items WHERE code = 'A-3'")
    assert verify(conn, _verifier(change), None).reward == 0.0


def test_a_key_that_names_several_rows_is_never_satisfied(conn: sqlite3.Connection) -> None:
    change = RowChange(table="items", op="update", key={"name": "Mug"}, values={"qty": 1})
    conn.execute("UPDATE items SET qty = 1 WHERE name = 'Mug'")
    assert verify(conn, _verifier(change), None).reward == 0.0


def test_answer_and_state_must_both_pass(conn: sqlite3.Connection) -> None:
    v = _verifier(answer=AnswerCheck(kind="refuse"))
    assert verify(conn, v, "I cannot do that.").reward == 1.0
    assert verify(conn, v, None).reward == 0.0
    conn.execute("UPDATE items SET qty = 0 WHERE code = 'A-1'")
    assert verify(conn, v, "I cannot do that.").reward == 0.0


def test_unwatched_tables_are_not_checked(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE other (id INTEGER PRIMARY KEY)")
    conn.execute("CREATE TABLE init.other (id INTEGER PRIMARY KEY)")
    conn.execute("INSERT INTO other VALUES (1)")
    assert verify(conn, _verifier(), None).reward == 1.0


def test_verification_is_read_only(conn: sqlite3.Connection) -> None:
    before = conn.execute("SELECT * FROM items ORDER BY id").fetchall()
    verify(conn, _verifier(RowChange(table="items", op="delete", key={"code": "A-1"})), "x")
    assert conn.execute("SELECT * FROM items ORDER BY id").fetchall() == before
    assert conn.execute("PRAGMA query_only").fetchone()[0] == 0


def test_touched_rows_diff_equals_the_full_table_diff(bundles) -> None:
    """The session's write triggers see every change the full comparison sees."""
    from pipeline import Environment
    from pipeline.verify import table_diff

    env = Environment.from_bundle(bundles["online_store"])
    writes = [t for t in env.tasks if t.verifier.changes]
    assert writes
    for task in writes:
        env.reset(task_id=task.id)
        for call in task.solution + task.solution:
            env.step(call.model_dump())
        session = env._session  # noqa: SLF001 - white-box comparison of the two diff paths
        touched = session.touched()
        session.conn.execute("ATTACH DATABASE ':memory:' AS init")
        session.conn.deserialize(session._initial, name="init")  # noqa: SLF001
        try:
            for table in env.schema.tables:
                full = table_diff(session.conn, table.name, "init")
                fast = table_diff(session.conn, table.name, "init", touched)
                assert full == fast, (task.id, table.name)
        finally:
            session.conn.execute("DETACH DATABASE init")
