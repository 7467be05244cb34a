"""The task half of ``report.html``: what an agent will be asked, and what was dropped.

Tables only (no scripts, no external files), computed from the tasks and the manifest, so
the page is deterministic. The bar charts that repeated the tables above them (tasks per
family, drops by reason) are gone, and the per-family line chart of reference length is the
table's shading.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pipeline.bundle.manifest import ToolUseManifest
from pipeline.package.report.render import render
from pipeline.runtime.task import Task
from pipeline.tasks.phrasing import split_refusal_form
from pipeline.tasks.stats import DEPTH_KNOBS, depth, diversity, reference_calls

SHADE = "74,127,181"
"""Cells of the reference-length table are shaded by their value (the table reads as a chart): one
line per family in a line chart was 12 overlapping lines that no one could tell apart."""


def _shade(value: float, top: float) -> str:
    return f"background:rgba({SHADE},{0.06 + 0.5 * value / top:.2f})" if top else ""


def _matrix(tasks: list[Task]) -> dict[str, Any]:
    per = Counter((t.family, t.level) for t in tasks)
    levels = sorted({t.level for t in tasks})
    rows = []
    for f in sorted({t.family for t in tasks}):
        counts = [per.get((f, lvl), 0) for lvl in levels]
        rows.append((f, counts, sum(counts)))
    return {"levels": levels, "rows": rows}


def _lengths(figures: dict[str, Any]) -> dict[str, Any]:
    """Mean reference calls per level, overall and per family, each cell with its shade."""
    levels = sorted(figures["per_level"], key=int)
    per_family: dict[str, dict[str, float]] = figures["per_family"]
    top = max([*figures["per_level"].values(), *(v for per in per_family.values() for v in per.values())], default=0)
    return {
        "levels": levels,
        "overall": [(f"{figures['per_level'][lvl]:g}", _shade(figures["per_level"][lvl], top)) for lvl in levels],
        "rows": [
            (family, [(f"{per[lvl]:g}", _shade(per[lvl], top)) if lvl in per else None for lvl in levels])
            for family, per in per_family.items()
        ],
    }


def _depth(tasks: list[Task]) -> dict[str, Any]:
    """Per level: reference calls (mean, max), entity types, disambiguations, pages past the first, recoveries."""
    names = ("calls_mean", "calls_max", *DEPTH_KNOBS)
    return {
        "names": [n.replace("_", " ") for n in names],
        "rows": [(lvl, int(row["tasks"]), [f"{row[n]:g}" for n in names]) for lvl, row in depth(tasks).items()],
    }


def _examples(tasks: list[Task]) -> dict[str, Any]:
    """The first task of each family at each of its levels, as the request an agent reads, and the
    refusal paragraph the instructions end with, said once: it is the same 60 words on every task,
    and repeated on every example it buried the requests (``split_refusal_form`` knows its wordings)."""
    chosen: dict[tuple[str, int], Task] = {}
    for t in tasks:
        chosen.setdefault((t.family, t.level), t)
    wordings: Counter[str] = Counter()
    for t in tasks:
        wordings[split_refusal_form(t.instruction)[1]] += 1
    groups = []
    for family in sorted({t.family for t in tasks}):
        rows = []
        for level in sorted(lvl for f, lvl in chosen if f == family):
            t = chosen[(family, level)]
            rows.append((level, len(t.solution), split_refusal_form(t.instruction)[0]))
        groups.append((family, rows))
    forms = sorted(((text, n) for text, n in wordings.items() if text), key=lambda x: (-x[1], x[0]))
    return {"groups": groups, "forms": forms, "without": wordings.get("", 0), "tasks": len(tasks)}


def tasks_section(manifest: ToolUseManifest, tasks: list[Task]) -> str:
    counts = manifest.counts
    dropped = sorted(counts.dropped.items(), key=lambda kv: (-kv[1], kv[0]))
    figures = reference_calls(tasks)
    return render(
        "tasks.html.j2",
        tasks=len(tasks),
        candidates=counts.candidates,
        dropped_total=sum(n for _, n in dropped),
        matrix=_matrix(tasks),
        lengths=_lengths(figures),
        depth=_depth(tasks),
        dropped=dropped,
        diversity=", ".join(f"{n.split('_')[1]}-grams {v:.3f}" for n, v in diversity(tasks).items()),
        examples=_examples(tasks),
    )
