"""The task data model: what ``tasks.jsonl`` holds and what a family proposes.

A :class:`Task` is plain data (JSON-serialisable, frozen): the instruction, the family
and level with its knob values, a reference solution, the declarative verifier and the
*grounding* of its wording. A grounding is a list-tool call with the number of rows it
must match in the initial state: 1 for every entity the instruction names, 0 for an
entity it claims does not exist, ``k`` for the boundary of a top-k ranking. Replaying
the groundings is how anyone can confirm, from the bundle alone, that each question has
exactly one correct answer.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from pipeline.verify import AnswerCheck, Verifier


class ToolCall(BaseModel):
    """One action of a reference solution, in exactly the shape an agent sends it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str
    arguments: dict[str, Any]


class Grounding(BaseModel):
    """``tool(arguments)`` must report ``total`` matching rows in the initial state."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str
    arguments: dict[str, Any]
    total: int


class Task(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    family: str
    level: int
    knobs: dict[str, Any]
    instruction: str
    solution: tuple[ToolCall, ...]
    answer: Any = None
    verifier: Verifier
    grounding: tuple[Grounding, ...] = ()


class Skip(Exception):
    """A family cannot build this candidate; ``reason`` is counted in the manifest."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


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
    watch: tuple[str, ...] = ()
    """Tables the task could touch; the verifier also watches every table the reference writes."""
    grounding: list[Grounding] = field(default_factory=list)


@dataclass
class TaskSet:
    tasks: list[Task]
    dropped: Counter[str] = field(default_factory=Counter)
    candidates: int = 0

    def figures(self) -> dict[str, Any]:
        """Tasks per family and level, mean reference length per level, wording diversity."""
        from pipeline.taskgen.stats import summary

        return summary(self.tasks)
