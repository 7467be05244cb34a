"""Sessions over one shared base: exact isolation, exact reset, refused commits, one validation."""

from __future__ import annotations

import random
import sqlite3
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from pipeline import Environment
from pipeline.bundle.format import load_bundle
from pipeline.runtime.session import Session


def _state(conn: sqlite3.Connection, tables: list[str]) -> dict[str, list[tuple[Any, ...]]]:
    return {t: conn.execute(f'SELECT * FROM "{t}" ORDER BY id').fetchall() for t in tables}


def _writing_task(env: Environment) -> Any:
    return next(t for t in env.tasks if t.verifier.changes and t.solution)


def test_writes_in_one_session_are_invisible_in_another_and_reset_restores_exactly(store_bundle) -> None:
    bundle = load_bundle(store_bundle)
    a, b = Environment(bundle), Environment(bundle)
    tables = [t.name for t in a.schema.tables]
    task = _writing_task(a)
    a.reset(task_id=task.id)
    b.reset(task_id=task.id)
    initial = _state(b._session.conn, tables)
    for call in task.solution:
        obs, *_ = a.step(call.model_dump())
        assert obs["type"] == "tool_result", obs
    written = a._session.touched()
    assert written
    assert _state(a._session.conn, tables) != initial
    assert _state(b._session.conn, tables) == initial  # b sees nothing of a's writes
    assert b._session.touched() == {}
    # A third session opened while a holds its writes starts from the initial state too.
    c = Environment(bundle)
    c.reset(task_id=task.id)
    assert _state(c._session.conn, tables) == initial
    # Verdicts: a (reference solution replayed) passes, b (nothing written) fails.
    _, reward_a, *_ = a.step({"answer": task.answer})
    _, reward_b, *_ = b.step({"answer": task.answer})
    assert (reward_a, reward_b) == (1.0, 0.0)
    a.reset(task_id=task.id)
    assert _state(a._session.conn, tables) == initial
    assert a._session.touched() == {}
    # After the reset the same episode scores the same again.
    for call in task.solution:
        a.step(call.model_dump())
    assert a.step({"answer": task.answer})[1] == 1.0
    for env in (a, b, c):
        env.close()


def test_a_shared_session_cannot_commit_its_writes_into_the_base(store_bundle) -> None:
    env = Environment.from_bundle(store_bundle)
    task = _writing_task(env)
    env.reset(task_id=task.id)
    conn = env._session.conn
    table = env.schema.tables[0].name
    with pytest.raises(sqlite3.DatabaseError, match="not authorized"):
        conn.execute("COMMIT")
    before = conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
    conn.execute("PRAGMA defer_foreign_keys = ON")
    conn.execute(f'DELETE FROM "{table}"')
    with pytest.raises(sqlite3.DatabaseError, match="not authorized"):
        conn.execute("END")
    other = Environment(env.bundle)
    other.reset(task_id=task.id)
    assert other._session.conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] == before
    env.reset(task_id=task.id)
    assert env._session.conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] == before
    # A transaction that ended anyway (ROLLBACK by hand) is reopened before the next call.
    env._session.conn.execute("ROLLBACK")
    obs, *_ = env.step(task.solution[0].model_dump())
    assert env._session.conn.in_transaction and obs["type"] in ("tool_result", "tool_error")


def test_private_and_shared_sessions_see_the_same_episode(store_bundle) -> None:
    env = Environment.from_bundle(store_bundle)
    tables = [t.name for t in env.schema.tables]
    for task in [t for t in env.tasks if t.solution][:5]:
        shared = Session(env._initial, env.executor, shared=True)
        private = Session(env._initial, env.executor)
        for call in task.solution:
            assert shared.call(call.tool, call.arguments) == private.call(call.tool, call.arguments)
        assert _state(shared.conn, tables) == _state(private.conn, tables)
        assert shared.touched() == private.touched()
        verdicts = [s.verify(task.verifier, task.answer).full() for s in (shared, private)]
        assert verdicts[0] == verdicts[1] and verdicts[0]["status"] == "passed"
        shared.close()
        private.close()


def test_environments_of_one_bundle_share_their_parsed_parts(store_bundle) -> None:
    bundle = load_bundle(store_bundle)
    a, b = Environment(bundle), Environment(bundle)
    assert a.executor is b.executor and a.tasks is b.tasks and a._initial is b._initial


def _mutations(rng: random.Random, value: Any) -> Any:
    choices: list[Any] = [None, True, 0, -1, 1.5, 2**40, "", "x" * 300, [], {}, ["a"], {"k": 1}, "2024-01-01"]
    return rng.choice(choices)


def test_the_compiled_validator_accepts_only_what_jsonschema_accepts(store_bundle) -> None:
    """The fast path only accepts; it must never accept arguments the reference validator refuses."""
    env = Environment.from_bundle(store_bundle)
    rng = random.Random(7)
    samples = [c.arguments for t in env.tasks for c in t.solution] + [
        g.arguments for t in env.tasks for g in t.grounding
    ]
    checked = 0
    for tool in env.toolset.tools:
        fast = env.executor._fast[tool.name]
        slow = Draft202012Validator(tool.parameters)
        names = list((tool.parameters.get("properties") or {}).keys())
        base = [dict(s) for s in samples] + [{}]
        for _ in range(150):
            args = dict(rng.choice(base))
            for _ in range(rng.randint(1, 3)):
                if names and rng.random() < 0.8:
                    args[rng.choice(names)] = _mutations(rng, None)
                elif args and rng.random() < 0.5:
                    args.pop(rng.choice(list(args)))
                else:
                    args[rng.choice(["zzz", "id", "limit"])] = _mutations(rng, None)
            assert fast.is_valid(args) == slow.is_valid(args), (tool.name, args)
            checked += 1
    assert checked > 1000


def test_a_copied_environment_gets_its_own_session(store_bundle) -> None:
    import copy

    env = Environment.from_bundle(store_bundle)
    task = _writing_task(env)
    env.reset(task_id=task.id)
    for call in task.solution:
        env.step(call.model_dump())
    fork = copy.copy(env)
    assert fork.task is None and fork._session is None
    fork.reset(task_id=task.id)
    assert fork._session is not env._session and fork._session.touched() == {}
    assert env._session.touched()  # the original episode is untouched by the fork's reset
    assert env.step({"answer": task.answer})[1] == 1.0
