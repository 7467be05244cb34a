"""What a task family proposes and what generation returns: candidates, skips, task sets.

The record that ships is :class:`pipeline.runtime.task.Task`; a :class:`Candidate` becomes
one only after replay proves it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pipeline.policy.model import Policy
from pipeline.runtime.task import Grounding, Task, ToolCall
from pipeline.runtime.verify import AnswerCheck
from pipeline.tasks.exploits.runner import LibraryCounts


class Skip(Exception):
    """A family cannot build this candidate; ``reason`` is counted in the manifest."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


MAX_REFERENCE_CALLS = 19
"""The longest reference a task may have. The default step budgets (``synthenv evaluate``: 30 steps,
the verifiers adapter: 32 turns) must leave an agent room to read around, recover from a refused
move and answer: a task whose reference alone spends the budget is unsolvable in practice, so it is
never shipped."""


@dataclass
class Candidate:
    """What a family proposes; the generator turns it into a proven :class:`Task`."""

    family: str
    level: int
    knobs: dict[str, Any]
    instruction: str
    solution: list[ToolCall]
    answer: Any = None
    answer_check: AnswerCheck | None = None
    grounding: list[Grounding] = field(default_factory=list)


@dataclass
class TaskSet:
    tasks: list[Task]
    dropped: Counter[str] = field(default_factory=Counter)
    candidates: int = 0
    exploits: LibraryCounts = field(default_factory=LibraryCounts)
    """The exploit library over the shipped tasks (every exploit, every task: all scored 0)."""
    policy: Policy | None = None
    """The world's policy the tasks were generated under (the bundle ships it)."""

    def exploit_counts(self) -> dict[str, dict[str, int]]:
        """Per exploit: shipped tasks it was tried on, attempts, passes (0), candidates it got dropped."""
        table = self.exploits.as_dict()
        for name, row in table.items():
            row["dropped"] = self.dropped.get(f"exploit:{name}", 0)
        return table
