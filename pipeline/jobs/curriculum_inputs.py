"""Checks on what ``synthenv curriculum update`` is given, so a bad input is a usage error naming
the file and line (or the option) instead of a crash, or a band that silently never moves a level."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any


def check_target(target: Any) -> tuple[float, float]:
    """The band ``(low, high)`` of mean reward to hold, or ValueError: two finite numbers with
    ``0 <= low < high <= 1`` (a reversed or ``nan`` band would never move a level, silently)."""
    try:
        low, high = (float(v) for v in target)
    except (TypeError, ValueError):
        raise ValueError(f"--target must be two numbers LOW,HIGH, got {target!r}") from None
    if not (math.isfinite(low) and math.isfinite(high) and 0.0 <= low < high <= 1.0):
        raise ValueError(f"--target must be LOW,HIGH with 0 <= LOW < HIGH <= 1, got {low},{high}")
    return low, high


def check_jsonl(path: Path) -> None:
    """Every non-blank line of ``path`` is a JSON object, or ValueError naming the file and line.

    DuckDB's own message counts lines differently and quotes its query; this pass names the
    line a person would open.
    """
    try:
        with path.open("rb") as fh:
            for number, raw in enumerate(fh, start=1):
                if not raw.strip():
                    continue
                try:
                    row = json.loads(raw)
                except ValueError as exc:
                    raise ValueError(f"{path}: cannot read results (line {number} is not JSON: {exc})") from None
                if not isinstance(row, dict):
                    raise ValueError(
                        f"{path}: cannot read results (line {number} is a JSON {type(row).__name__}, not an object)"
                    )
    except OSError as exc:
        raise ValueError(f"{path}: cannot read results ({exc.strerror or exc})") from None
