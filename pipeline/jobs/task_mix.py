"""The curriculum for tool-use bundles: which families and levels the next version generates more of.

A procedural family has one level at a time and moves it; a tool-use bundle ships every
level of every family, so its curriculum moves *how many* tasks each (family, level)
gets. From the observed success rate of each cell (scored episodes only: infrastructure
errors never count), against the target band ``(low, high)``:

* **frontier** (``low <= rate <= high``): the model is learning here: double it (at least one more);
* **easy** (``rate > high``): little left to learn: halve it, keeping at least one task at
  the family's top level so the family never vanishes;
* **hard** (``rate < low``): unchanged (kept so progress shows, not grown);
* **few** (fewer than ``min_samples`` scored episodes): unchanged: no evidence either way.

Counts stay within ``0..MAX_PER_CELL``. The next version is the parent regenerated from its
own lineage inputs with the new mix (``Inputs.task_mix``), ``lineage.parent`` set; it is
published under the parent's minor bump.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.bundle.format import Bundle

MAX_PER_CELL = 24
DEFAULT_MIN_SAMPLES = 4
"""Scored episodes a cell needs before its count moves (a tool-use cell is often one task × K trials)."""

Mix = dict[str, dict[int, int]]


@dataclass(frozen=True)
class CellStats:
    n: int
    rate: float


def current_mix(bundle: Bundle) -> Mix:
    """The mix the bundle was generated with: its ``task_mix`` knob, else ``tasks_per_family`` spread
    over each family's levels as the generator does (candidate ``i`` at level ``i mod levels``)."""
    from pipeline.tasks.families import FAMILIES

    knobs = bundle.manifest.as_tool_use().knobs
    if knobs.task_mix:
        return {f: {int(lvl): c for lvl, c in levels.items()} for f, levels in sorted(knobs.task_mix.items())}
    per_family = knobs.tasks_per_family
    mix: Mix = {}
    for name, family in FAMILIES.items():
        slots = [family.level_of(i) for i in range(per_family)]
        mix[name] = {lvl: slots.count(lvl) for lvl in sorted(family.levels)}
    return mix


def cell_stats(outcomes: Sequence[Any]) -> dict[tuple[str, int], CellStats]:
    """Success rate per (family, level) over the outcomes (``family``, ``level``, ``reward``)."""
    acc: dict[tuple[str, int], list[float]] = {}
    for o in outcomes:
        acc.setdefault((o.family, int(o.level)), []).append(1.0 if o.reward >= 1.0 else 0.0)
    return {k: CellStats(len(v), round(sum(v) / len(v), 4)) for k, v in sorted(acc.items())}


def verdict(stats: CellStats | None, target: tuple[float, float], min_samples: int) -> str:
    if stats is None or stats.n < min_samples:
        return "few"
    low, high = target
    if stats.rate > high:
        return "easy"
    if stats.rate < low:
        return "hard"
    return "frontier"


def next_mix(
    mix: Mix, stats: Mapping[tuple[str, int], CellStats], target: tuple[float, float], min_samples: int
) -> tuple[Mix, dict[str, dict[str, str]]]:
    """The next mix and each cell's verdict (see the module docstring)."""
    out: Mix = {}
    verdicts: dict[str, dict[str, str]] = {}
    for family, levels in sorted(mix.items()):
        top = max(levels)
        out[family] = {}
        verdicts[family] = {}
        for level, count in sorted(levels.items()):
            v = verdict(stats.get((family, level)), target, min_samples)
            new = count
            if v == "frontier":
                new = min(MAX_PER_CELL, max(count * 2, count + 1))
            elif v == "easy":
                new = max(1 if level == top else 0, count // 2)
            out[family][level] = new
            verdicts[family][str(level)] = v
    return out, verdicts


def as_tuples(mix: Mix) -> tuple[tuple[str, int, int], ...]:
    return tuple((f, lvl, c) for f, levels in sorted(mix.items()) for lvl, c in sorted(levels.items()))


def regenerate(parent: Bundle, mix: Mix, out: Path, version: str) -> Bundle:
    """The parent's world rebuilt from its lineage inputs with ``mix``, as ``version`` (lineage parent set)."""
    import tempfile

    from pipeline.jobs.recipe import run_recipe
    from pipeline.jobs.steps import PLAIN, Inputs

    lineage = parent.manifest.as_tool_use().lineage
    inputs = lineage.inputs
    if lineage.llm:
        raise ValueError(
            f"{parent.ref} was designed by a model (its blueprint is not in the bundle); "
            "regenerate it with synthenv generate --scenario and the same cache"
        )
    fresh = Inputs(
        domain=inputs.domain,
        seed=inputs.seed,
        scale=float(inputs.scale),
        rows=inputs.rows,
        variant=inputs.variant,
        tasks_per_family=inputs.tasks_per_family,
        clock=inputs.clock,
        version=version,
        parent=parent.ref,
        task_mix=as_tuples(mix),
    )
    with tempfile.TemporaryDirectory(prefix="synthenv-mix-") as work:
        return run_recipe(PLAIN, fresh, Path(out), lambda: Path(work)).bundle


def publish_next(parent: Bundle, mix: Mix, out: Path, registry: str | None, run: Mapping[str, Any]) -> dict[str, Any]:
    """Regenerate and publish under the parent's minor bump (the same content again is a no-op;
    other content there moves it to the minor bump of the newest version)."""
    from pipeline.bundle.versions import bump, latest
    from pipeline.registry.registry import Registry

    reg = Registry(registry)
    bundle = regenerate(parent, mix, out, bump(parent.version, "minor"))
    taken = {e.version: e for e in reg.entries(bundle.name)}
    prior = taken.get(bundle.version)
    if prior is not None and reg.manifest(prior)[1] != bundle.file("manifest.json").read_bytes():
        bundle = regenerate(parent, mix, out, bump(latest(list(taken)) or parent.version, "minor"))
    result = reg.publish(bundle.path, run=dict(run))
    return {"ref": result.entry.ref, "digest": result.entry.digest, "created": result.created}


def mix_json(mix: Mix) -> dict[str, dict[str, int]]:
    return {f: {str(lvl): c for lvl, c in sorted(levels.items())} for f, levels in sorted(mix.items())}


def summarise(
    outcomes: Sequence[Any], stats: Mapping[tuple[str, int], CellStats], verdicts: Mapping[str, Mapping[str, str]]
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, dict[str, Any]]]]:
    """Per family (rollouts, mean reward) and per cell (n, rate, verdict), as the update report shows them."""
    families: dict[str, dict[str, float]] = {}
    for o in outcomes:
        f = families.setdefault(o.family, {"rollouts": 0, "recorded": 0, "stale": 0, "mean": 0.0})
        f["rollouts"] += 1
        f["recorded"] += 1
        f["mean"] += o.reward
    for f in families.values():
        f["mean"] = round(f["mean"] / f["rollouts"], 4)
    cells: dict[str, dict[str, dict[str, Any]]] = {}
    for family, levels in verdicts.items():
        cells[family] = {}
        for lvl, v in levels.items():
            st = stats.get((family, int(lvl)))
            cells[family][lvl] = {"n": st.n if st else 0, "rate": st.rate if st else None, "verdict": v}
    return dict(sorted(families.items())), cells
