"""A refusal is expected only where no legal sequence of moves reaches the goal: the search itself,
and every shipped status refusal of the test bundles checked with it."""

from __future__ import annotations

from pathlib import Path

from pipeline.runtime.environment import Environment
from pipeline.tasks.check import unsound_refusal
from pipeline.tasks.feasibility import moves, reachable, refusal_is_sound
from pipeline.world.schema import Column, Operation, Schema, Table

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
