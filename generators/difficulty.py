"""Continuous difficulty: a float in [0, top level] mapped onto a family's knobs.

Levels are six points on a family's difficulty scale; a curriculum that moves in small
steps needs the points in between. ``difficulty`` runs over ``[0, len(LEVELS) - 1]``
(``[0, 5]`` for every family today), on the same scale as the levels, so difficulty
``2.0`` *is* level 2 (byte for byte: the same knobs, hence the same items and digests).

Between levels ``k`` and ``k + 1`` at ``t = difficulty - k``:

* a numeric knob moves linearly from level ``k``'s value to level ``k + 1``'s; an integer
  knob is rounded half up (``floor(x + 0.5)``), a non-decreasing function, so the knob
  stays monotone in ``t``;
* a non-numeric knob (a mode, a flag, an operator set) keeps level ``k``'s value until
  ``t`` reaches 1;
* a knob one level sets and the other does not takes the config's default on that side.

Only the knobs either neighbouring level sets are returned; the rest default from the
config, as for a level. Within one segment each knob moves one way; across levels a knob
may turn back when a level trades it for another (smaller numbers, harder mode), which is
why :func:`level_table_problems` judges a level against its predecessor as a whole.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

__all__ = [
    "check_difficulty",
    "interpolate_knobs",
    "knob_directions",
    "level_table_problems",
    "top_difficulty",
]


def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float))


def top_difficulty(family: Any) -> float:
    """The hardest difficulty of ``family``: its top level (5 for six levels)."""
    return float(len(family.levels) - 1)


def check_difficulty(family: Any, difficulty: Any) -> float:
    """``difficulty`` as a float in ``[0, top]``; ``ValueError`` otherwise (bools, NaN, strings)."""
    top = top_difficulty(family)
    if not _is_number(difficulty) or not math.isfinite(difficulty):
        raise ValueError(f"{family.name}: difficulty must be a finite number in [0, {top:g}], got {difficulty!r}")
    if not 0.0 <= difficulty <= top:
        raise ValueError(f"{family.name}: difficulty must be in [0, {top:g}], got {difficulty!r}")
    return float(difficulty)


def _defaults(config: type) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in dataclasses.fields(config):
        if item.default is not dataclasses.MISSING:
            out[item.name] = item.default
        elif item.default_factory is not dataclasses.MISSING:
            out[item.name] = item.default_factory()
    return out


def _between(low: Any, high: Any, t: float) -> Any:
    if _is_number(low) and _is_number(high):
        value = low + (high - low) * t
        if isinstance(low, int) and isinstance(high, int):
            return math.floor(value + 0.5)
        return value
    return low


RESOLUTION = 64
"""Steps per level: a difficulty is resolved to ``1/64`` of a level (rounded down), so the
search for a valid point below an invalid one (:func:`interpolate_knobs`) stays monotone."""


def _segment(family: Any, lower: int, t: float) -> dict[str, Any]:
    defaults = _defaults(family.config)
    low_level, high_level = family.levels[lower], family.levels[lower + 1]
    out: dict[str, Any] = {}
    for name in [*low_level, *(key for key in high_level if key not in low_level)]:
        out[name] = _between(low_level.get(name, defaults.get(name)), high_level.get(name, defaults.get(name)), t)
    return out


def interpolate_knobs(family: Any, difficulty: float) -> dict[str, Any]:
    """The knob overrides for ``difficulty``: exactly ``LEVELS[k]`` at an integer ``k``.

    An interpolated point the config refuses (a sudoku of size 7, a cross-knob rule) is
    replaced by the highest valid point below it on the same segment, on the
    ``1/RESOLUTION`` grid; the lower level itself is always valid. Taking "the highest
    valid point at or below" of a monotone path keeps the mapping monotone.
    """
    value = check_difficulty(family, difficulty)
    lower = min(math.floor(value), len(family.levels) - 1)
    step = math.floor((value - lower) * RESOLUTION)
    if step == 0:
        return dict(family.levels[lower])
    for point in range(step, 0, -1):
        knobs = _segment(family, lower, point / RESOLUTION)
        if _accepts(family, knobs):
            return knobs
    return dict(family.levels[lower])


def _accepts(family: Any, knobs: Mapping[str, Any]) -> bool:
    try:
        family.config(**knobs)
    except (TypeError, ValueError):
        return False
    return True


def knob_directions(family: Any) -> dict[str, int]:
    """For each numeric knob, +1 when the top level's value is above level 0's, -1 below, 0 equal."""
    defaults = _defaults(family.config)
    first = {**defaults, **family.levels[0]}
    last = {**defaults, **family.levels[-1]}
    return {
        name: (last[name] > first[name]) - (last[name] < first[name])
        for name in first
        if _is_number(first[name]) and _is_number(last.get(name))
    }


def level_table_problems(family: Any) -> list[str]:
    """What makes ``LEVELS`` unusable as a difficulty scale (empty when it is fine).

    Reported: fewer than two levels; a knob not in the config; a knob numeric at one level
    and not at another; a level equal to the one before; a level *easier* than the one
    before, i.e. every knob that changes moves against its overall trend (level 0 to top,
    :func:`knob_directions`) and no other knob changes.
    """
    levels = family.levels
    if len(levels) < 2:
        return [f"{family.name}: needs at least two levels, has {len(levels)}"]
    fields = {item.name for item in dataclasses.fields(family.config)}
    defaults = _defaults(family.config)
    problems: list[str] = []
    for index, level in enumerate(levels):
        unknown = sorted(set(level) - fields)
        if unknown:
            problems.append(f"{family.name}: level {index} sets unknown knob(s) {', '.join(unknown)}")
    if problems:
        return problems
    full = [{**defaults, **level} for level in levels]
    for name in fields:
        kinds = {_is_number(config.get(name)) for config in full}
        if len(kinds) > 1:
            problems.append(f"{family.name}: knob {name} is numeric at some levels and not at others")
    directions = knob_directions(family)
    for index in range(1, len(full)):
        before, after = full[index - 1], full[index]
        changed = [name for name in fields if before.get(name) != after.get(name)]
        if not changed:
            problems.append(f"{family.name}: level {index} is the same as level {index - 1}")
            continue
        against = [
            name
            for name in changed
            if directions.get(name, 0) != 0 and (after[name] - before[name]) * directions[name] < 0
        ]
        if len(against) == len(changed):
            moves = ", ".join(f"{name} {before[name]}->{after[name]}" for name in sorted(against))
            problems.append(f"{family.name}: level {index} is easier than level {index - 1} ({moves})")
    return problems


def describe(levels: tuple[Mapping[str, Any], ...]) -> str:
    """A one-line summary of what the levels change (for the family table)."""
    keys: list[str] = []
    for level in levels:
        keys.extend(key for key in level if key not in keys)
    return ", ".join(keys)
