"""A read the replay session makes on the initial state is run once per build and handed out as a
copy; once a replay has written, every read runs again and sees the writes."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

from pipeline import Environment
from pipeline.tasks.replay import Replayer
from pipeline.tools.executor import Executor
from pipeline.tools.specs import ToolSpec


def _lists(env: Environment) -> list[ToolSpec]:
    return [t for t in env.toolset.tools if t.kind == "list"]


def test_reads_on_the_initial_state_are_shared_copies_and_reads_after_a_write_are_not(store_bundle: Path) -> None:
    env = Environment.from_bundle(store_bundle)
    try:
        lists = {t.table: t for t in env.toolset.tools if t.kind == "list"}
        task = next(
            t
            for t in env.tasks
            if any(
                env.executor.spec(c.tool).mode == "write" and env.executor.spec(c.tool).table in lists
                for c in t.solution
            )
        )
        with closing(Replayer(env.bundle.state_bytes, env.executor)) as rep:
            rep.enter("gold", task.solution, required=None)
            touched = {table: sorted(ids) for table, ids in rep.session.touched().items() if table in lists}
            rep.enter("nothing", ())
            before = {}
            for table, ids in touched.items():
                for i in ids:
                    first = rep.session.call(lists[table].name, {"id": i})
                    before[table, i] = Executor.run(rep.executor, rep.conn, lists[table], {"id": i})
                    first["items"].clear()  # the caller's own copy: the next caller is not affected
                    assert rep.session.call(lists[table].name, {"id": i}) == before[table, i]
            rep.enter("gold", task.solution, required=None)
            changed = 0
            for table, ids in touched.items():
                for i in ids:
                    after = rep.session.call(lists[table].name, {"id": i})
                    assert after == Executor.run(rep.executor, rep.conn, lists[table], {"id": i})
                    changed += after != before[table, i]
            assert changed  # the reads after the writes saw them
    finally:
        env.close()
