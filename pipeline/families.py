"""One contract for a task family, procedural or tool-use: what the CLI, a curriculum and a task mix read.

A procedural family (``generators/``: a config per level, ``generate(config, rng)``) and a tool-use
task family (``pipeline/tasks/families/``: knob targets per level, ``generate(ctx, rng, level)``)
make items in different ways, but a user choosing levels for either asks the same things of it:
its name, what it is, which levels it has and what each level sets. :class:`TaskFamily` is that
contract; both registries' ``Family`` records fulfil it, so :func:`families` lists either kind the
same way (``synthenv families``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Protocol, runtime_checkable

Kind = Literal["procedural", "tool_use"]


@runtime_checkable
class TaskFamily(Protocol):
    """A family of tasks with difficulty levels, whatever makes its items."""

    @property
    def name(self) -> str:
        """The registry name a mix, a curriculum or ``--family`` uses."""
        ...

    @property
    def description(self) -> str:
        """One line on what its tasks ask."""
        ...

    def level_numbers(self) -> tuple[int, ...]:
        """The levels it has, a run without gaps within 0..5 (the top-only ``case`` has 5 alone)."""
        ...

    def knobs_at(self, level: int) -> dict[str, Any]:
        """What ``level`` sets (``ValueError`` for a level it does not have)."""
        ...


def families(kind: Kind) -> Mapping[str, TaskFamily]:
    """Every registered family of ``kind``, by name, in registry order."""
    if kind == "procedural":
        import generators

        return {name: generators.get_family(name) for name in generators.list_families()}
    if kind == "tool_use":
        from pipeline.tasks.families import FAMILIES

        return dict(FAMILIES)
    raise ValueError(f"kind must be procedural or tool_use, got {kind!r}")
