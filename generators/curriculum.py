"""A per-family difficulty curriculum driven by recent scores.

Each family keeps its own level and a window of recent scores at that level. When at least
``min_samples`` scores were recorded since the last change and the window's mean leaves the
target band, the level moves one step (up when too easy, down when too hard) and the
window is cleared, so evidence from one level never decides for another.

Hysteresis: a move needs the mean to clear the band by ``hysteresis``, and moving *back*
to the level just left (a reversal) by twice that; the level is only re-evaluated every
``check_every`` samples (half of ``min_samples`` by default). A learner whose success rate
sits inside the band therefore settles at that level instead of bouncing on noise.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from generators.snapshot import Snapshotted, restore_evidence
from generators.snapshot import check_integer as _integer
from generators.snapshot import check_number as _number

__all__ = ["Curriculum", "FamilyState"]

FORMAT = "synthenv-curriculum/1"


@dataclass
class FamilyState:
    """Mutable state of one family: level, recent scores and what the last move was."""

    level: int
    max_level: int
    scores: deque[float]
    since_change: int = 0
    total: int = 0
    previous_level: int | None = None
    changes: list[tuple[int, int, int]] = field(default_factory=list)
    """(sample count at the change, old level, new level)."""


class Curriculum(Snapshotted):
    """Adaptive levels per family.

    ``families`` is a list of family names, or a mapping ``{name: number_of_levels}`` to
    avoid importing families (a list looks the level count up in the registry).
    ``target=(low, high)`` is the band of mean score to stay in.
    """

    FORMAT = FORMAT
    WHAT = "a curriculum"

    def __init__(
        self,
        families: Iterable[str] | Mapping[str, int],
        target: tuple[float, float] = (0.5, 0.8),
        window: int = 64,
        min_samples: int = 32,
        start_level: int | Mapping[str, int] = 0,
        hysteresis: float = 0.05,
        check_every: int | None = None,
    ) -> None:
        if isinstance(families, (str, bytes)):
            raise ValueError("families must be a list of names or a {name: levels} mapping, not a string")
        if isinstance(families, Mapping):
            level_counts = {str(name): _integer(f"levels of {name}", count, 1) for name, count in families.items()}
        else:
            from generators.registry import get_family

            level_counts = {}
            for name in families:
                level_counts[name] = len(get_family(name).levels)
        if not level_counts:
            raise ValueError("a curriculum needs at least one family")
        if not isinstance(target, (tuple, list)) or len(target) != 2:
            raise ValueError(f"target must be a (low, high) pair, got {target!r}")
        low, high = (_number("target", value) for value in target)
        if not 0.0 <= low < high <= 1.0:
            raise ValueError(f"target must satisfy 0 <= low < high <= 1, got {target!r}")
        self.target = (low, high)
        self.window = _integer("window", window, 1)
        self.min_samples = _integer("min_samples", min_samples, 1)
        if self.min_samples > self.window:
            raise ValueError(f"min_samples ({min_samples}) cannot exceed window ({window})")
        self.hysteresis = _number("hysteresis", hysteresis)
        if not 0.0 <= self.hysteresis < 1.0:
            raise ValueError(f"hysteresis must be in [0, 1), got {hysteresis!r}")
        default_check = max(1, self.min_samples // 2)
        self.check_every = _integer("check_every", default_check if check_every is None else check_every, 1)
        starts = dict(start_level) if isinstance(start_level, Mapping) else {}
        unknown = sorted(set(starts) - set(level_counts))
        if unknown:
            raise ValueError(f"start_level given for unknown families: {', '.join(unknown)}")
        self._states: dict[str, FamilyState] = {}
        for name in sorted(level_counts):
            start = starts.get(name, start_level if not isinstance(start_level, Mapping) else 0)
            max_level = level_counts[name] - 1
            start = _integer(f"start_level of {name}", start, 0)
            if start > max_level:
                raise ValueError(f"start_level {start} of {name} exceeds its top level {max_level}")
            self._states[name] = FamilyState(start, max_level, deque(maxlen=self.window))

    @property
    def families(self) -> list[str]:
        return list(self._states)

    def level(self, family: str) -> int:
        return self._state(family).level

    def state(self, family: str) -> FamilyState:
        return self._state(family)

    def _state(self, family: Any) -> FamilyState:
        state = self._states.get(family) if isinstance(family, str) else None
        if state is None:
            raise ValueError(f"family {family!r} is not in this curriculum ({', '.join(self._states)})")
        return state

    def next_levels(self) -> dict[str, int]:
        """The level to sample next for every family."""
        return {name: state.level for name, state in self._states.items()}

    @staticmethod
    def _parse(result: Any) -> tuple[Any, float]:
        """The family as given (``record`` checks it through ``_state``) and the score, checked."""
        if isinstance(result, Mapping):
            family = result.get("family")
            if family is None and isinstance(result.get("metadata"), Mapping):
                family = result["metadata"].get("family")
            value = result.get("score", result.get("reward"))
        elif isinstance(result, (tuple, list)) and len(result) == 2:
            family, value = result
        else:
            raise ValueError(
                f"a result must be (family, score) or a mapping with family and score/reward, got {result!r}"
            )
        score = _number("score", value)
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"score must be in [0, 1], got {value!r}")
        return family, score

    def record(self, results: Iterable[Any]) -> dict[str, int]:
        """Record scores and update levels; returns :meth:`next_levels`.

        Every result is validated before any is applied, so a bad batch changes nothing.
        """
        if isinstance(results, Mapping) or (
            isinstance(results, tuple) and len(results) == 2 and isinstance(results[0], str)
        ):
            results = [results]
        parsed = [self._parse(result) for result in results]
        states = [(self._state(family), value) for family, value in parsed]
        for state, value in states:
            self._observe(state, value)
        return self.next_levels()

    def _observe(self, state: FamilyState, value: float) -> None:
        state.scores.append(value)
        state.since_change += 1
        state.total += 1
        if state.since_change < self.min_samples or (state.since_change - self.min_samples) % self.check_every:
            return
        mean = sum(state.scores) / len(state.scores)
        low, high = self.target
        up_margin = self.hysteresis * (2 if state.previous_level == state.level + 1 else 1)
        down_margin = self.hysteresis * (2 if state.previous_level == state.level - 1 else 1)
        if mean > high + up_margin and state.level < state.max_level:
            self._move(state, state.level + 1)
        elif mean < low - down_margin and state.level > 0:
            self._move(state, state.level - 1)

    @staticmethod
    def _move(state: FamilyState, new_level: int) -> None:
        state.changes.append((state.total, state.level, new_level))
        state.previous_level = state.level
        state.level = new_level
        state.scores.clear()
        state.since_change = 0

    # -- persistence (generators.snapshot) -----------------------------------------------

    def _settings(self) -> dict[str, Any]:
        return {
            "target": list(self.target),
            "window": self.window,
            "min_samples": self.min_samples,
            "hysteresis": self.hysteresis,
            "check_every": self.check_every,
        }

    def _family_json(self, state: FamilyState) -> dict[str, Any]:
        return {
            "level": state.level,
            "levels": state.max_level + 1,
            "previous_level": state.previous_level,
            "changes": [list(change) for change in state.changes],
        }

    @classmethod
    def _restore(cls, data: Mapping[str, Any]) -> Curriculum:
        families = data["families"]
        curriculum = cls(
            {name: entry["levels"] for name, entry in families.items()},
            target=tuple(data["target"]),
            window=data["window"],
            min_samples=data["min_samples"],
            start_level={name: entry["level"] for name, entry in families.items()},
            hysteresis=data["hysteresis"],
            check_every=data["check_every"],
        )
        for name, entry in families.items():
            state = curriculum._states[name]
            restore_evidence(state, entry)
            previous = entry["previous_level"]
            state.previous_level = None if previous is None else _integer("previous_level", previous, 0)
            # Written by _family_json as [total, from level, to level]; read back as given.
            state.changes = [cast(tuple[int, int, int], tuple(int(v) for v in change)) for change in entry["changes"]]
        return curriculum
