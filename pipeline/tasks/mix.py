"""The task mix: how many proven tasks each (family, level) gets when a curriculum asks for a mix.

A bundle normally generates ``tasks_per_family`` candidates per family, spread over its levels;
a curriculum's next version asks instead for ``(family, level, tasks)`` cells
(``Inputs.task_mix``). The tasks step (``pipeline.jobs.steps.tasks_step``) calls
:func:`mixed_tasks` then; the manifest records the mix as :func:`mix_knob` shapes it.
"""

from __future__ import annotations

from typing import Protocol

from pipeline.tasks.generate import generate_tasks
from pipeline.tasks.model import TaskSet
from pipeline.tools.executor import Executor
from pipeline.tools.specs import Toolset
from pipeline.world.schema import Schema

Mix = tuple[tuple[str, int, int], ...]
"""(family, level, tasks) cells."""


class MixInputs(Protocol):
    """What :func:`mixed_tasks` reads of the generation inputs (``pipeline.jobs.steps.Inputs`` is one)."""

    @property
    def task_mix(self) -> Mix | None: ...

    @property
    def seed(self) -> int: ...

    @property
    def clock(self) -> str: ...


def check_mix(mix: tuple[tuple[str, int, int], ...]) -> None:
    """Refuse, naming the cell, a mix the generator cannot honour (unknown family or level, a count
    outside 0..100, a cell twice): ``Inputs`` checks it, so a bad mix fails before any step runs."""
    from pipeline.families import families

    known = families("tool_use")
    seen = set()
    for family, level, count in mix:
        if family not in known:
            raise ValueError(f"task_mix: unknown family {family!r}; known: {', '.join(known)}")
        if level not in known[family].level_numbers():
            raise ValueError(f"task_mix: {family} has levels {list(known[family].level_numbers())}, not {level}")
        if not 0 <= count <= 100:
            raise ValueError(f"task_mix: {family} level {level}: count must be in 0..100, got {count}")
        if (family, level) in seen:
            raise ValueError(f"task_mix: {family} level {level} appears twice")
        seen.add((family, level))


def mix_knob(mix: tuple[tuple[str, int, int], ...]) -> dict[str, dict[str, int]]:
    """The mix as the manifest records it: ``{family: {level: tasks}}``."""
    out: dict[str, dict[str, int]] = {}
    for family, level, count in sorted(mix):
        out.setdefault(family, {})[str(level)] = count
    return out


def mixed_tasks(inputs: MixInputs, schema: Schema, toolset: Toolset, initial: bytes, executor: Executor) -> TaskSet:
    """``count`` proven tasks per (family, level) of the mix.

    Candidate ``i`` of a family is asked at level ``i mod levels`` (as always), so a family is
    generated far enough to reach each level's count and the tasks past a level's count are
    left out: the kept tasks are exactly those a larger ``tasks_per_family`` would have made.
    """
    from pipeline.tasks.families import FAMILIES

    if inputs.task_mix is None:
        raise ValueError("mixed_tasks needs inputs with a task_mix")
    wanted: dict[str, dict[int, int]] = {}
    for wanted_family, level, count in inputs.task_mix:
        wanted.setdefault(wanted_family, {})[level] = count
    out = TaskSet(tasks=[])
    for name, family in FAMILIES.items():
        counts = {lvl: c for lvl, c in wanted.get(name, {}).items() if c > 0}
        if not counts:
            continue
        per_family = max(family.slots_for(lvl, c) for lvl, c in counts.items())
        part = generate_tasks(schema, toolset, initial, executor, inputs.seed, inputs.clock, per_family, (name,))
        kept: dict[int, int] = {}
        for task in part.tasks:
            if kept.get(task.level, 0) < counts.get(task.level, 0):
                kept[task.level] = kept.get(task.level, 0) + 1
                out.tasks.append(task)
        out.candidates += part.candidates
        out.dropped.update(part.dropped)
        out.policy = part.policy
    return out
