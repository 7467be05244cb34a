"""What ``synthenv curriculum update`` is given: rollout rows read and checked, so a bad input is a
usage error naming the file and line (or the option) instead of a crash, or a band that silently
never moves a level."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

COLUMNS = ("bundle", "task_id", "reward")
"""Present together in a trajectory log: then only final, non-error rows are rollouts."""
READERS = {".jsonl": "read_json", ".ndjson": "read_json", ".json": "read_json", ".parquet": "read_parquet"}


@dataclass(frozen=True)
class Rollout:
    """One row of the results file."""

    bundle: str
    task_id: str
    reward: float


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


def results_digest(path: str | Path) -> str:
    path = Path(path)
    path = path / EVALUATION_ROWS if path.is_dir() else path
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return "sha256:" + h.hexdigest()


EVALUATION_ROWS = "episodes.jsonl"


def read_results(path: str | Path) -> list[Rollout]:
    """Rows ``{bundle, task_id, reward}`` from a JSONL or Parquet file (or an evaluation run
    directory), in file order, checked; rows whose ``status`` is not passed/failed are left out."""
    import duckdb

    path = Path(path)
    if path.is_dir():
        if not (path / EVALUATION_ROWS).is_file():
            raise ValueError(f"{path}: a results directory must be an evaluation run (no {EVALUATION_ROWS})")
        path = path / EVALUATION_ROWS
    reader = READERS.get(path.suffix.lower())
    if reader is None:
        raise ValueError(f"{path}: results must be .jsonl, .ndjson, .json or .parquet")
    if not path.is_file():
        raise ValueError(f"{path}: no such results file")
    if reader == "read_json" and path.suffix.lower() != ".json":
        check_jsonl(path)
    con = duckdb.connect(config={"autoinstall_known_extensions": "false"})
    try:
        source = f"{reader}(?)"
        try:
            columns = [row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {source}", [str(path)]).fetchall()]
        except duckdb.Error as exc:
            raise ValueError(f"{path}: cannot read results ({exc})") from None
        missing = [c for c in COLUMNS if c not in columns]
        if missing:
            raise ValueError(
                f"{path}: results need columns {', '.join(COLUMNS)}; missing {', '.join(missing)} "
                f"(found {', '.join(columns) or 'none'})"
            )
        scored = " WHERE status IN ('passed', 'failed')" if "status" in columns else ""
        try:
            rows = con.execute(
                f"SELECT CAST(bundle AS VARCHAR), CAST(task_id AS VARCHAR), "
                f"TRY_CAST(reward AS DOUBLE), CAST(reward AS VARCHAR) FROM {source}{scored}",
                [str(path)],
            ).fetchall()
        except duckdb.Error as exc:
            raise ValueError(f"{path}: cannot read results ({exc})") from None
    finally:
        con.close()
    if not rows:
        raise ValueError(f"{path}: no results")
    out = []
    for number, (bundle, task_id, reward, raw) in enumerate(rows, start=1):
        if not bundle or not task_id:
            raise ValueError(f"{path}: row {number} lacks a bundle or a task_id")
        if reward is None or not 0.0 <= reward <= 1.0:
            raise ValueError(f"{path}: row {number}: reward must be a number in [0, 1], got {raw!r}")
        out.append(Rollout(bundle, task_id, float(reward)))
    return out
