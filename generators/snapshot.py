"""The one snapshot code both curricula share: validation, JSON form, atomic save and load.

``Curriculum`` (whole levels) and ``AdaptiveCurriculum`` (continuous windows) keep the
same kind of evidence per family (recent scores, samples since the last move, total
samples) and are persisted the same way: a JSON object with a ``format`` tag, the
controller's settings and one entry per family, written atomically so a crash mid-save
never leaves half a state behind. Each class says only what is its own (its settings, its
per-family fields) through :class:`Snapshotted`'s three hooks.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections import deque
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Protocol, Self

__all__ = ["Evidence", "Snapshotted", "check_integer", "check_number", "restore_evidence", "save_json_atomic"]


def check_number(name: str, value: Any) -> float:
    """``value`` as a float, refusing bools, non-numbers, NaN and infinities by name."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def check_integer(name: str, value: Any, low: int) -> int:
    """``value`` if it is a plain int ``>= low``, else a ``ValueError`` naming it."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return value


def save_json_atomic(path: str | os.PathLike[str], data: Mapping[str, Any]) -> None:
    """Write ``data`` as sorted, indented JSON through a temp file and a rename."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=target.parent, delete=False, suffix=".tmp", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, sort_keys=True)
        temp = Path(handle.name)
    temp.replace(target)


class Evidence(Protocol):
    """The per-family fields both curricula keep between moves."""

    scores: deque[float]
    since_change: int
    total: int


def evidence_json(state: Evidence) -> dict[str, Any]:
    """The shared per-family fields of a snapshot entry."""
    return {"scores": list(state.scores), "since_change": state.since_change, "total": state.total}


def restore_evidence(state: Evidence, entry: Mapping[str, Any]) -> None:
    """Put a snapshot entry's scores and counters back into ``state`` (validated)."""
    for value in entry["scores"]:
        state.scores.append(check_number("score", value))
    state.since_change = check_integer("since_change", entry["since_change"], 0)
    state.total = check_integer("total", entry["total"], 0)


class Snapshotted:
    """``to_json`` / ``from_json`` / ``save`` / ``load`` over three hooks.

    A subclass sets ``FORMAT`` and ``WHAT`` (its name in error messages) and implements
    ``_settings`` (its constructor settings as JSON), ``_family_json`` (one family's own
    fields besides the shared evidence) and ``_restore`` (a new instance from a snapshot
    already checked for its format). Any missing key or wrong type in a snapshot becomes a
    ``ValueError`` saying the snapshot is malformed.
    """

    FORMAT: ClassVar[str]
    WHAT: ClassVar[str]
    _states: Mapping[str, Any]

    def _settings(self) -> dict[str, Any]:
        raise NotImplementedError

    def _family_json(self, state: Any) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def _restore(cls, data: Mapping[str, Any]) -> Self:
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready snapshot that :meth:`from_json` restores exactly."""
        return {
            "format": self.FORMAT,
            **self._settings(),
            "families": {
                name: {**self._family_json(state), **evidence_json(state)} for name, state in self._states.items()
            },
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str) -> Self:
        if isinstance(data, str):
            data = json.loads(data)
        if not isinstance(data, Mapping) or data.get("format") != cls.FORMAT:
            raise ValueError(f"not {cls.WHAT} snapshot (expected format {cls.FORMAT!r})")
        try:
            return cls._restore(data)
        except (KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"malformed {cls.WHAT.split(' ', 1)[1]} snapshot: {error!r}") from error

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the snapshot atomically (temp file + rename)."""
        save_json_atomic(path, self.to_json())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Self:
        return cls.from_json(Path(path).read_text(encoding="utf-8"))
