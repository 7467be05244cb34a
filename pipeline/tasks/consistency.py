"""No two tasks of a bundle may expect opposite outcomes for the same request on the same record.

A task that expects a refusal says that a record cannot reach a status (``{"cannot": "status"}``:
no legal path reaches it; ``{"cannot": "policy"}``: a staff rule forbids it). A task whose
reference moves that record to that status, from the same initial state, says the opposite. An
agent trained on both learns that the same request on the same record is right to do and right
to refuse: one of the two rewards punishes correct behaviour. "Close the claim" refused on a claim
under review while "get it to closed" expects deny, then close, on the same claim is such a pair.

:func:`claims` reads what one task expects of each (table, record, status) from the task record
alone: refusals from its expected answer and the operation it asks for (``knobs["operation"]``, or
for the record of a second request in the same message, that request's, ``knobs["second"]``),
goals reached from every status write of its reference (the steps on the way included: a
refusal to deny a claim is contradicted by a path that denies it on the way to closed).
:func:`conflicts` pairs a refusal with a goal reached on the same record and status by another
task. ``synthenv check`` reports each pair as a failure of the task expecting the refusal.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pipeline.policy.check import goal_of
from pipeline.runtime.task import Task
from pipeline.runtime.verify import expected_refusals
from pipeline.tools.specs import ToolSpec, TransitionTool

REFUSALS_OF_A_GOAL = ("status", "policy")
"""Refusal kinds that deny a status goal (``missing`` and ``limit`` refuse a lookup or a value)."""


@dataclass(frozen=True)
class Claim:
    """What one task expects of one record and status: reached (``refused`` None) or refused."""

    task: str
    table: str
    record: int
    status: str
    refused: str | None = None
    """The refusal kind (``status``, ``policy``) where the task expects the goal refused."""


@dataclass(frozen=True)
class Conflict:
    """Two tasks of one bundle that expect opposite outcomes for the same record and status."""

    refusing: str
    """The task expecting a refusal."""
    reaching: str
    """The task whose reference reaches the status."""
    table: str
    record: int
    status: str
    refused: str

    def reason(self) -> str:
        return (
            f"expects a {self.refused} refusal to bring {self.table} {self.record} to {self.status}, "
            f"which task {self.reaching} expects done"
        )


def claims(task: Task, specs: Mapping[str, ToolSpec]) -> list[Claim]:
    """Every (table, record, status) the task expects refused or reached, from its record alone."""
    out: list[Claim] = []
    op = specs.get(str(task.knobs.get("operation")))
    second = task.knobs.get("second")  # a second request's record is refused its own operation
    other = specs.get(str(second.get("operation"))) if isinstance(second, dict) else None
    for item in expected_refusals(task.verifier.answer):
        kind, record = item.get("cannot"), item.get("id")
        refused = other if isinstance(second, dict) and record == second.get("id") else op
        if isinstance(refused, TransitionTool) and kind in REFUSALS_OF_A_GOAL and isinstance(record, int):
            out.append(Claim(task.id, refused.table, record, str(refused.to), str(kind)))
    for call in task.solution:
        spec = specs.get(call.tool)
        record = call.arguments.get("id")
        if spec is None or spec.mode != "write" or not isinstance(record, int):
            continue
        goal = goal_of(spec, dict(call.arguments))
        if goal is not None:
            out.append(Claim(task.id, spec.table, record, goal))
    return out


def conflicts(tasks: Iterable[Task], specs: Mapping[str, ToolSpec]) -> list[Conflict]:
    """Every pair of tasks where one expects a record's status goal refused and another reaches it
    (each pair once, in task order)."""
    reached: dict[tuple[str, int, str], list[str]] = defaultdict(list)
    refused: list[Claim] = []
    for task in tasks:
        for claim in claims(task, specs):
            if claim.refused is None:
                ids = reached[(claim.table, claim.record, claim.status)]
                if task.id not in ids:
                    ids.append(task.id)
            else:
                refused.append(claim)
    out: list[Conflict] = []
    seen: set[tuple[str, str, str, int, str]] = set()
    for claim in refused:
        for other in reached.get((claim.table, claim.record, claim.status), []):
            key = (claim.task, other, claim.table, claim.record, claim.status)
            if other != claim.task and key not in seen:
                seen.add(key)
                out.append(Conflict(claim.task, other, claim.table, claim.record, claim.status, str(claim.refused)))
    return out


Seen = set[tuple[str, int, str]]
"""(table, record, status) that kept tasks expect reached, or refused."""


def contradicts(task: Task, reached: Seen, refused: Seen, specs: Mapping[str, ToolSpec]) -> bool:
    """Whether ``task`` expects the opposite of what the tasks already kept expect: the build-time
    form of :func:`conflicts`, one pass per candidate rather than a pass over every pair."""
    return any(
        (c.table, c.record, c.status) in (reached if c.refused is not None else refused) for c in claims(task, specs)
    )


def remember(task: Task, reached: Seen, refused: Seen, specs: Mapping[str, ToolSpec]) -> None:
    """Add what a kept task expects to ``reached`` and ``refused``."""
    for c in claims(task, specs):
        (reached if c.refused is None else refused).add((c.table, c.record, c.status))


def conflict_failures(tasks: Iterable[Task], specs: Mapping[str, ToolSpec]) -> dict[str, str]:
    """The conflicts as failures of the tasks expecting the refusal (first conflict per task)."""
    out: dict[str, str] = {}
    for c in conflicts(tasks, specs):
        out.setdefault(c.refusing, c.reason())
    return out
