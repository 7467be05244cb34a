"""The task record a bundle ships in ``tasks.jsonl`` and the runtime runs.

A :class:`Task` is plain data (JSON-serialisable, frozen): the instruction, the family
and level with its knob values, a reference solution, the declarative verifier and the
*grounding* of its wording. A grounding is a list-tool call with the number of rows it
must match in the initial state: 1 for every entity the instruction names, 0 for an
entity it claims does not exist, ``k`` for the boundary of a top-k ranking. Replaying
the groundings is how anyone can confirm, from the bundle alone, that each question has
exactly one correct answer. Generation (:mod:`pipeline.tasks`) writes these records.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from pipeline.runtime.verify import Verifier


class ToolCall(BaseModel):
    """One action of a reference solution, in exactly the shape an agent sends it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str
    arguments: dict[str, Any]

    def key(self) -> str:
        """This call as a hashable key (:func:`call_key`)."""
        return call_key(self.tool, self.arguments)


def call_key(tool: str, arguments: Mapping[str, Any]) -> str:
    """A call as a hashable key: two calls are the same read exactly when their keys are equal
    (arguments in any order; a date or a decimal by its text). Memoised reads and the reference's
    "read once" both go by it."""
    return json.dumps([tool, arguments], sort_keys=True, default=str)


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
