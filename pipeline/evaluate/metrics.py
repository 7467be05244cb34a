"""pass@1, pass@k and pass^k with Wilson score intervals, from per-task trial counts.

For a task tried ``n`` times (infrastructure errors excluded: they are not trials) with
``c`` successes:

* pass@1 is ``c / n``;
* pass@k, the chance that at least one of ``k`` trials succeeds, is the unbiased estimator
  ``1 - C(n-c, k) / C(n, k)`` (Chen et al., 2021);
* pass^k, the chance that all ``k`` trials succeed (tau-bench's reliability measure), is
  ``C(c, k) / C(n, k)``.

With exactly ``k`` trials the last two are 1 when any (all) trials passed, else 0. A task
with fewer than ``k`` scored trials (errors took the rest) has no pass@k or pass^k: it is
counted as ``incomplete`` and left out of those two, never guessed.

A group of tasks (a family × level cell, a level, the whole bundle) reports the mean over
its tasks. Intervals are **Wilson score intervals** at 95 %: for pass@1 over the group's
scored episodes (this treats trials of one task as independent, so it is narrower than a
task-clustered interval when tasks differ a lot), for pass@k and pass^k over its tasks
(the estimate summed as the success count). Wilson rather than a bootstrap because cells
are small (often one task × k trials), where a bootstrap interval collapses to a point
and the normal approximation leaves [0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

Z95 = 1.959963984540054


def pass_at_k(n: int, c: int, k: int) -> float:
    """P(at least one of k trials drawn without replacement from n passes), c of n passed."""
    _check(n, c, k)
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """P(all k trials drawn without replacement from n pass), c of n passed."""
    _check(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def _check(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c}, n={n}")
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= n, got k={k}, n={n}")


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for ``successes`` of ``n`` (``successes`` may be fractional)."""
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class TaskOutcome:
    """One task's trials: ``n`` scored, ``c`` passed, ``errors`` masked; summed steps and tool errors."""

    task_id: str
    family: str
    level: int
    n: int
    c: int
    errors: int = 0
    steps: int = 0
    tool_errors: int = 0


@dataclass(frozen=True)
class Cell:
    """Figures for a group of tasks."""

    tasks: int
    episodes: int
    errors: int
    incomplete: int
    pass_at_1: float | None
    pass_at_1_ci: tuple[float, float] | None
    pass_at_k: float | None
    pass_at_k_ci: tuple[float, float] | None
    pass_hat_k: float | None
    pass_hat_k_ci: tuple[float, float] | None
    mean_steps: float | None
    mean_tool_errors: float | None

    def as_dict(self) -> dict[str, object]:
        out = asdict(self)
        for key in ("pass_at_1_ci", "pass_at_k_ci", "pass_hat_k_ci"):
            if out[key] is not None:
                out[key] = [round(v, 4) for v in out[key]]
        return out


def _r(value: float) -> float:
    return round(value, 4)


def cell(outcomes: Iterable[TaskOutcome], k: int) -> Cell:
    """The figures of a group; ``k`` is the run's trials per task."""
    items = list(outcomes)
    scored = [t for t in items if t.n > 0]
    episodes = sum(t.n for t in scored)
    complete = [t for t in scored if t.n >= k]
    p1 = p1_ci = pk = pk_ci = phk = phk_ci = None
    if scored:
        p1 = _r(sum(t.c / t.n for t in scored) / len(scored))
        p1_ci = wilson(sum(t.c for t in scored), episodes)
    if complete:
        at = [pass_at_k(t.n, t.c, k) for t in complete]
        hat = [pass_hat_k(t.n, t.c, k) for t in complete]
        pk, phk = _r(sum(at) / len(at)), _r(sum(hat) / len(hat))
        pk_ci, phk_ci = wilson(min(sum(at), len(at)), len(at)), wilson(min(sum(hat), len(hat)), len(hat))
    return Cell(
        tasks=len(items),
        episodes=episodes,
        errors=sum(t.errors for t in items),
        incomplete=len(scored) - len(complete) + (len(items) - len(scored)),
        pass_at_1=p1,
        pass_at_1_ci=p1_ci,
        pass_at_k=pk,
        pass_at_k_ci=pk_ci,
        pass_hat_k=phk,
        pass_hat_k_ci=phk_ci,
        mean_steps=_r(sum(t.steps for t in scored) / episodes) if episodes else None,
        mean_tool_errors=_r(sum(t.tool_errors for t in scored) / episodes) if episodes else None,
    )


def outcomes_of(rows: Iterable[Mapping[str, Any]]) -> list[TaskOutcome]:
    """Episode rows (``task_id``, ``family``, ``level``, ``status``, ``steps``, ``tool_errors``) per task.

    Steps and tool errors count scored episodes only (an error's partial episode says nothing
    about the agent). Tasks come out sorted by id.
    """
    acc: dict[str, TaskOutcome] = {}
    for row in rows:
        tid = str(row["task_id"])
        t = acc.get(tid) or TaskOutcome(tid, str(row["family"]), int(row["level"]), 0, 0)
        if row["status"] == "error":
            acc[tid] = replace(t, errors=t.errors + 1)
        else:
            acc[tid] = replace(
                t,
                n=t.n + 1,
                c=t.c + int(row["status"] == "passed"),
                steps=t.steps + int(row["steps"]),
                tool_errors=t.tool_errors + int(row["tool_errors"]),
            )
    return [acc[tid] for tid in sorted(acc)]
