"""A refusal is expected only where no legal sequence of moves reaches the goal: the search itself,
every shipped status refusal of the test bundles checked with it, and every refusal of the sample
worlds (five domains, three random worlds) proven: status by the search, policy by the blocking
rule, missing by the search that finds no row, limit by the amount that leaves the range."""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sample_bundles import sample_bundles

from pipeline.policy.check import Earlier, blocking_rule, count_write
from pipeline.policy.fees import row_of
from pipeline.policy.model import Policy
from pipeline.runtime.environment import Environment
from pipeline.runtime.task import Task
from pipeline.tasks.check import unsound_refusal
from pipeline.tasks.feasibility import moves, reachable, refusal_is_sound
from pipeline.tools.executor import open_copy
from pipeline.world.schema import Column, Operation, Schema, Table
from pipeline.world.sqlnames import quote_ident

CLAIMS = Table(
    name="claims",
    entity="claim",
    description="A claim.",
    label="claim",
    rows=1,
    columns=(
        Column(name="id", sql_type="INTEGER", semantic="id", primary_key=True),
        Column(
            name="status",
            sql_type="TEXT",
            semantic="status",
            values=("submitted", "under_review", "approved", "denied", "paid", "closed"),
            transitions={"submitted": ("under_review",), "approved": ("paid",), "paid": ("closed",)},
        ),
    ),
)
OPS = (
    Operation(
        name="approve_claim",
        table="claims",
        column="status",
        to="approved",
        allowed_from=("under_review",),
        description="",
    ),
    Operation(
        name="deny_claim", table="claims", column="status", to="denied", allowed_from=("under_review",), description=""
    ),
    Operation(
        name="close_claim",
        table="claims",
        column="status",
        to="closed",
        allowed_from=("denied", "paid"),
        description="",
    ),
)
SCHEMA = Schema(name="s", domain="d", title="t", description="d", tables=(CLAIMS,), operations=OPS)


def test_the_search_follows_transitions_and_operations() -> None:
    graph = moves(CLAIMS, "status", OPS)
    assert reachable(graph, "under_review") == {"under_review": 0, "approved": 1, "denied": 1, "paid": 2, "closed": 2}
    assert reachable(graph, "under_review", horizon=1) == {"under_review": 0, "approved": 1, "denied": 1}
    assert reachable(graph, "closed") == {"closed": 0}


def test_a_refusal_is_sound_only_when_no_path_reaches_the_goal() -> None:
    # "Close the claim" of a claim under review: deny, then close; a refusal would be wrong.
    assert refusal_is_sound(SCHEMA, "claims", "status", "under_review", "closed") == "under_review -> denied -> closed"
    # "Approve the claim" of a closed claim: nothing leaves closed.
    assert refusal_is_sound(SCHEMA, "claims", "status", "closed", "approved") is None
    assert refusal_is_sound(SCHEMA, "claims", "status", "paid", "approved") is None


def test_every_shipped_status_refusal_is_right_under_every_reading(bundles: dict[str, Path]) -> None:
    checked = 0
    for path in bundles.values():
        env = Environment.from_bundle(path)
        for task in env.tasks:
            if task.family != "infeasible" or task.knobs.get("kind") != "forbidden":
                continue
            assert unsound_refusal(env.schema, task) is None, (path.name, task.id, task.instruction)
            checked += 1
    assert checked >= 3


def _refused(task: Task) -> list[dict[str, Any]]:
    check = task.verifier.answer
    if check is None or check.kind != "refuse":
        return []
    expected = check.expected
    return [dict(e) for e in (expected if isinstance(expected, (list, tuple)) else [expected]) if isinstance(e, dict)]


def _limit_proven(env: Environment, conn: sqlite3.Connection, task: Task, record: int, value: Any) -> bool:
    """Some amount the request names takes a bounded column holding ``value`` on the record out of
    its range (a change by that amount, up or down, the tools refuse), on a record no final status
    locks (else the change is refused for its status as well)."""
    amounts = [float(x) for x in re.findall(r"(?<![\w-])\d+(?:\.\d+)?(?![\w-])", task.instruction)]
    for table in env.schema.tables:
        row = conn.execute(f"SELECT * FROM {quote_ident(table.name)} WHERE id = ?", (record,)).fetchone()
        if row is None:
            continue
        values = dict(zip([d[0] for d in conn.execute(f"SELECT * FROM {quote_ident(table.name)}").description], row))
        if env.executor.guard.final_status(table, values) is not None:
            continue  # a final status locks it: "status" would be as right, and "limit" not the one answer
        for column in table.columns:
            if values.get(column.name) != value or not isinstance(value, (int, float)):
                continue
            for d in amounts:
                if (column.min is not None and value - d < column.min) or (
                    column.max is not None and value + d > column.max
                ):
                    return True
    return False


def _earlier(policy: Policy, conn: sqlite3.Connection, task: Task, op: Operation, record: Any) -> Earlier:
    """What a history rule counts for ``record`` beyond the state: the records the reference sets to the
    operation's status that the line takes before it (more recent by the priority line's time, ties
    by id), each of its owner's counted once."""
    when = next((r.column for r in policy.rules if r.kind == "priority" and r.table == op.table), None)
    earlier: Earlier = {}
    if when is None:
        return earlier

    def rank(row: dict[str, Any]) -> tuple[str, Any]:
        return (str(row[str(when)]), row["id"])

    target = row_of(conn, op.table, record)
    if target is None:
        return earlier
    for call in task.solution:
        row = row_of(conn, op.table, call.arguments.get("id")) if call.tool == op.name else None
        if row is not None and row["id"] != record and rank(row) > rank(target):
            count_write(policy, op.table, op.to, row, earlier)
    return earlier


def infeasibility_proofs(path: Path) -> Counter[str]:
    """Every refusal a bundle's tasks expect, proven: a status refusal by the search (no legal
    sequence of moves reaches the goal), a policy refusal by the rule that blocks the record, a
    missing record by the search that finds no row, a limit by the amount that leaves the range.
    Returns how many of each were proven; fails on the first that is not."""
    env = Environment.from_bundle(path)
    conn = open_copy(env.bundle.state_bytes)
    rules = env.bundle.manifest.as_tool_use().policy_rules
    policy = Policy.model_validate(rules) if rules else None
    proven: Counter[str] = Counter()
    try:
        for task in env.tasks:
            op = next((o for o in env.schema.operations if o.name == task.knobs.get("operation")), None)
            for item in _refused(task):
                kind, record, value = item.get("cannot"), item.get("id"), item.get("value")
                where = (path.name, task.id, item, task.instruction)
                if kind == "status":
                    assert op is not None, where
                    assert refusal_is_sound(env.schema, op.table, op.column, str(value), op.to) is None, where
                elif kind == "policy":
                    assert op is not None and policy is not None, where
                    rule = blocking_rule(
                        policy, conn, op.table, op.to, record, _earlier(policy, conn, task, op, record)
                    )
                    assert rule is not None and rule.id == value, where
                elif kind == "missing":
                    empty = [g for g in task.grounding if g.total == 0]
                    assert empty, where
                    for g in empty:
                        assert env.executor.call(conn, g.tool, {**g.arguments, "limit": 1})["total"] == 0, where
                else:
                    assert kind == "limit" and _limit_proven(env, conn, task, int(str(record)), value), where
                proven[str(kind)] += 1
    finally:
        conn.close()
        env.close()
    return proven


def test_every_refusal_of_the_test_bundles_is_proven(bundles: dict[str, Path]) -> None:
    total: Counter[str] = Counter()
    for path in bundles.values():
        total += infeasibility_proofs(path)
    assert total["status"] >= 3 and total["missing"] >= 1 and total["limit"] >= 1, total


@pytest.mark.slow
def test_every_refusal_of_the_sample_worlds_is_proven() -> None:
    """Five domains and three random worlds: every infeasible task (and every refused part of a
    request) proven infeasible, a status goal by the search over legal moves."""
    total: Counter[str] = Counter()
    for path in sample_bundles().values():
        total += infeasibility_proofs(path)
    assert total["status"] >= 8, total
