"""The policy a world's agent works under: numbered rules, each rendered as one line it reads.

A rule is data with a machine reading beside its text, so the same record writes the line the
agent is shown, tells task generation what the business allows, and lets the verifier and
the exploit library know which writes a policy forbids. ``enforced`` rules are refused by the
tools themselves (a status lifecycle, a cross-field check); the others are left to the
agent's judgment as a real system leaves them to its staff, and only the end state shows
whether they were kept.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

RuleKind = Literal[
    "lifecycle", "check", "threshold", "window", "related", "history", "priority", "fee", "late", "waiver", "cap"
]
STAFF_KINDS: tuple[RuleKind, ...] = ("threshold", "window", "related", "history")
"""Rules the tools do not enforce: the agent applies them, the verifier sees the outcome."""
TIME_FORMAT = "%Y-%m-%dT%H:%M:%S"


class Rule(BaseModel):
    """One numbered policy line and what it means to a program."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(description="The number the agent names in a refusal: P1, P2, ...")
    kind: RuleKind = Field(description="What the rule constrains (see the module docstring)")
    text: str = Field(description="The line the agent reads")
    enforced: bool = Field(description="Whether the tools refuse a call that breaks it")
    table: str = Field(description="The table whose records the rule is about")
    operation: str | None = Field(default=None, description="The operation a lifecycle or staff rule restricts")
    column: str | None = Field(
        default=None,
        description="threshold/window: the row's column; related: the child's column; priority, cap: the time; "
        "late: the record's own time; waiver: the row's time, or the owner's column",
    )
    limit: float | None = Field(
        default=None,
        description="threshold: the amount; window, late, waiver by time: the days; fee: per cent; cap: the most "
        "refunded",
    )
    child: str | None = Field(
        default=None,
        description="related: the table whose rows block the operation; fee: the payments table; waiver: the owner's",
    )
    via: str | None = Field(
        default=None,
        description="related, fee: the child's reference to the row; waiver: the row's reference to its owner",
    )
    value: str | None = Field(
        default=None, description="related: the child's value that blocks the operation; waiver: the owner's value"
    )
    goal: str | None = Field(default=None, description="The status the restricted operation sets")
    count: int | None = Field(
        default=None,
        description="history: how many of the owner's records set to the goal in the days block it; late: the per "
        "cent kept instead of the fee's",
    )


class Policy(BaseModel):
    """Every rule of one world, in the order the agent reads them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    clock: str = Field(description="The world's frozen 'now' that windows are counted to")
    rules: tuple[Rule, ...] = ()

    def text(self) -> str:
        """The policy as the agent reads it: today's date (what windows count to), then one
        numbered line per rule."""
        return "\n".join([f"Today is {self.clock[:10]}.", *(f"{r.id}. {r.text}" for r in self.rules)])

    def rule(self, rule_id: str) -> Rule:
        for r in self.rules:
            if r.id == rule_id:
                return r
        raise KeyError(f"no policy rule {rule_id!r}")

    def staff_rules(self, operation: str) -> list[Rule]:
        """The rules left to the agent that restrict ``operation``."""
        return [r for r in self.rules if r.kind in STAFF_KINDS and r.operation == operation]

    def goal_rules(self, table: str, goal: str) -> list[Rule]:
        """Staff rules that restrict reaching ``goal`` in ``table``: they hold whatever the path (an
        update setting the status is held to them as much as the operation is)."""
        return [r for r in self.rules if r.kind in STAFF_KINDS and r.table == table and r.goal == goal]

    def fee(self, operation: str) -> Rule | None:
        """The refund line of ``operation``, if it refunds anything (see :mod:`pipeline.policy.fees`)."""
        return next((r for r in self.rules if r.kind == "fee" and r.operation == operation), None)

    def late(self, operation: str) -> Rule | None:
        """The line that keeps a larger fee on ``operation``'s records made long ago, if any (see
        :mod:`pipeline.policy.fees`)."""
        return next((r for r in self.rules if r.kind == "late" and r.operation == operation), None)

    def waiver(self, operation: str) -> Rule | None:
        """The line that waives ``operation``'s fee for some records, if any (see :mod:`pipeline.policy.fees`)."""
        return next((r for r in self.rules if r.kind == "waiver" and r.operation == operation), None)

    def cap(self, operation: str) -> Rule | None:
        """The most ``operation`` refunds in one request, if it has a limit (see :mod:`pipeline.policy.fees`)."""
        return next((r for r in self.rules if r.kind == "cap" and r.operation == operation), None)


def days_between(earlier: str, later: str) -> int:
    """Calendar days from one stored date or time to another (the time of day is not counted: "3 days
    before today" means the same to a person and to the verifier)."""
    return _days(str(earlier)[:10], str(later)[:10])


@lru_cache(maxsize=1 << 16)
def _days(earlier: str, later: str) -> int:
    """:func:`days_between` on two dates: a world holds a few thousand distinct days, and a pass over a
    million records' times would parse each one again."""
    return (datetime.fromisoformat(later) - datetime.fromisoformat(earlier)).days


def blocks(
    rule: Rule, row: dict[str, Any], clock: str, children: list[dict[str, Any]] | None = None, earlier: int = 0
) -> bool:
    """Whether a staff rule forbids its operation on ``row`` (``children``: the rows of
    ``rule.child`` that reference it, for a ``related`` rule; the owner's records of the same table,
    for a ``history`` rule, with ``earlier``: how many of them the same request has already set to
    the rule's goal, which the state read before it does not show)."""
    if rule.kind == "threshold":
        value = row.get(str(rule.column))
        return value is not None and float(value) > float(rule.limit or 0)
    if rule.kind == "window":
        value = row.get(str(rule.column))
        return value is not None and days_between(str(value), clock) > float(rule.limit or 0)
    if rule.kind == "related":
        return any(str(c.get(str(rule.column))) == rule.value for c in children or [])
    if rule.kind == "history":
        return recent(rule, children or [], clock) + earlier >= int(rule.count or 1)
    return False


def recent(rule: Rule, records: list[dict[str, Any]], clock: str) -> int:
    """How many of ``records`` a ``history`` rule counts: set to its goal (their stamp ``rule.column``
    written) within its days up to today, today's included. A record the same request set to the goal
    counts for the next one (``blocks``' ``earlier``): records of one request interact, so a person
    asking for several is told no for the ones past the rule's count, taken from the most recent down."""
    stamps = [r.get(str(rule.column)) for r in records]
    return sum(s is not None and in_period(days_between(str(s), clock), float(rule.limit or 0)) for s in stamps)


def in_period(age: int, days: float) -> bool:
    """Whether a time ``age`` calendar days before today falls in "the ``days`` days up to today":
    today is in it (a later time is not). One reading for the derivation that sets a history rule's
    period and for the rule's check."""
    return 0 <= age <= days


def is_late(rule: Rule, row: dict[str, Any], clock: str) -> bool:
    """Whether a ``late`` rule's larger fee falls on ``row``: its own time (``rule.column``) is more than
    the rule's days before today, counted in calendar days."""
    value = row.get(str(rule.column))
    return value is not None and days_between(str(value), clock) > float(rule.limit or 0)


def waives(rule: Rule, row: dict[str, Any], clock: str, owner: dict[str, Any] | None = None) -> bool:
    """Whether a ``waiver`` rule lets ``row`` go back in full: its time within the rule's days of today,
    or its owner's (``owner``: the row ``rule.via`` references) column at the rule's value."""
    if rule.via is None:
        value = row.get(str(rule.column))
        return value is not None and days_between(str(value), clock) <= float(rule.limit or 0)
    return owner is not None and str(owner.get(str(rule.column))) == rule.value
