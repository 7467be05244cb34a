"""Task families, always registered in this order (it fixes task ids and seeds).

Each module declares ``NAME``, ``KNOBS`` (the difficulty knobs it turns), ``LEVELS``
(level 0-5 -> knob targets, as data) and ``generate(ctx, rng, level) -> Candidate``,
raising :class:`~pipeline.tasks.model.Skip` with a reason when the state offers no
fitting subject.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from pipeline.tasks.context import Context
from pipeline.tasks.families import (
    aggregate,
    bulk_update,
    case,
    choice,
    conditional,
    count,
    create,
    infeasible,
    lookup,
    multihop,
    quote,
    request,
    sweep,
    topk,
    update,
    workflow,
)
from pipeline.tasks.model import Candidate


@dataclass(frozen=True)
class Family:
    """A registered tool-use task family (it fulfils :class:`pipeline.families.TaskFamily`)."""

    name: str
    knobs: tuple[str, ...]
    levels: dict[int, dict[str, Any]]
    generate: Callable[[Context, random.Random, int], Candidate]
    description: str

    def level_numbers(self) -> tuple[int, ...]:
        """The levels it has (``pipeline.families.TaskFamily``)."""
        return tuple(sorted(self.levels))

    def knobs_at(self, level: int) -> dict[str, Any]:
        """The knob targets ``level`` sets (``ValueError`` for a level the family does not have)."""
        if level not in self.levels:
            raise ValueError(f"{self.name}: levels are {list(self.level_numbers())}, not {level!r}")
        return dict(self.levels[level])

    def level_of(self, slot: int) -> int:
        """The level candidate ``slot`` is asked at: the family's levels in turn (a family's levels are
        contiguous but need not start at 0: the top-only judgment family has level 5 alone)."""
        ordered = sorted(self.levels)
        return ordered[slot % len(ordered)]

    def slots_for(self, level: int, count: int) -> int:
        """How many slots reach ``count`` candidates at ``level`` (the inverse of :meth:`level_of`)."""
        return (count - 1) * len(self.levels) + sorted(self.levels).index(level) + 1


def _family(module: ModuleType) -> Family:
    levels = dict(module.LEVELS)
    first = min(levels, default=0)
    if not levels or sorted(levels) != list(range(first, first + len(levels))) or not 0 <= first <= 5:
        raise ValueError(f"family {module.NAME}: levels must be a run without gaps within 0..5")
    return Family(
        module.NAME, tuple(module.KNOBS), levels, module.generate, (module.__doc__ or "").strip().splitlines()[0]
    )


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in map(
        _family,
        (
            lookup,
            count,
            multihop,
            aggregate,
            topk,
            create,
            update,
            workflow,
            bulk_update,
            conditional,
            infeasible,
            request,
            quote,
            case,
            sweep,
            choice,
        ),
    )
}

JUDGMENT_FAMILIES = ("request", "quote", "case", "sweep", "choice")
"""Families judged against the world's policy: their levels grow in records covered and rules
applied, not in calls (a refusal takes fewer calls than the operation it refuses)."""
