"""The task half of ``report.html``: what an agent will be asked, and what was dropped.

Tables and inline SVG charts only (no scripts, no external files), computed from the
tasks and the manifest, so the page is deterministic and never changes the digest.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pipeline.package.report.render import render
from pipeline.runtime.task import Task
from pipeline.tasks.phrasing import split_refusal_form
from pipeline.tasks.stats import DEPTH_KNOBS, depth, diversity, reference_calls

PALETTE = (
    "#4269d0",
    "#efb118",
    "#ff725c",
    "#6cc5b0",
    "#3ca951",
    "#ff8ab7",
    "#a463f2",
    "#97bbf5",
    "#9c6b4e",
    "#9498a0",
    "#1b9e77",
    "#d95f02",
)


def _hbars(items: list[tuple[str, float]], title: str, width: int = 520) -> dict[str, Any] | None:
    """Horizontal bar chart, one labelled bar per item (drawn by the ``hbars`` macro)."""
    if not items:
        return None
    top = max(v for _, v in items) or 1
    row, left = 18, 170
    bars = []
    for i, (label, value) in enumerate(items):
        w = (width - left - 50) * value / top
        bars.append(
            {"label": label, "y": 24 + i * row, "w": f"{w:.1f}", "wx": f"{left + w + 4:.1f}", "value": f"{value:g}"}
        )
    return {
        "title": title,
        "width": width,
        "height": row * len(items) + 30,
        "row": row,
        "left": left,
        "fill": PALETTE[0],
        "bars": bars,
    }


def _lines(
    series: dict[str, dict[str, float]], title: str, width: int = 560, height: int = 260
) -> dict[str, Any] | None:
    """Mean reference length per level: one polyline per family, the overall mean in black."""
    levels = sorted({int(lvl) for s in series.values() for lvl in s})
    if not levels:
        return None
    top = max(v for s in series.values() for v in s.values()) or 1
    left, bottom, right, upper = 40, height - 30, width - 150, 24

    def x(level: int) -> float:
        span = max(levels[-1] - levels[0], 1)
        return left + (right - left) * (level - levels[0]) / span

    def y(value: float) -> float:
        return bottom - (bottom - upper) * value / top

    lines = []
    for i, (name, points) in enumerate(series.items()):
        coords = " ".join(f"{x(int(lvl)):.1f},{y(v):.1f}" for lvl, v in sorted(points.items(), key=lambda p: int(p[0])))
        lines.append(
            {
                "name": name,
                "colour": "#000" if name == "all families" else PALETTE[i % len(PALETTE)],
                "stroke": 3 if name == "all families" else 1.5,
                "coords": coords,
                "y": upper + 12 * i + 4,
            }
        )
    return {
        "title": title,
        "width": width,
        "height": height,
        "left": left,
        "bottom": bottom,
        "right": right,
        "upper": upper,
        "top": f"{top:g}",
        "ticks": [(f"{x(lvl):.1f}", lvl) for lvl in levels],
        "series": lines,
    }


def _matrix(tasks: list[Task]) -> dict[str, Any]:
    per = Counter((t.family, t.level) for t in tasks)
    levels = sorted({t.level for t in tasks})
    rows = []
    for f in sorted({t.family for t in tasks}):
        counts = [per.get((f, lvl), 0) for lvl in levels]
        rows.append((f, counts, sum(counts)))
    return {"levels": levels, "rows": rows}


def _lengths(figures: dict[str, Any]) -> dict[str, Any]:
    levels = sorted(figures["per_level"], key=int)
    return {
        "levels": levels,
        "overall": [f"{figures['per_level'][lvl]:g}" for lvl in levels],
        "rows": [
            (family, [f"{per[lvl]:g}" if lvl in per else None for lvl in levels])
            for family, per in figures["per_family"].items()
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


def tasks_section(manifest: dict[str, Any], tasks: list[Task]) -> str:
    counts = manifest["counts"]
    dropped = sorted(counts.get("dropped", {}).items(), key=lambda kv: (-kv[1], kv[0]))
    figures = reference_calls(tasks)
    lines = {"all families": figures["per_level"], **figures["per_family"]}
    return render(
        "tasks.html.j2",
        tasks=len(tasks),
        candidates=counts.get("candidates", len(tasks)),
        dropped_total=sum(n for _, n in dropped),
        matrix=_matrix(tasks),
        per_family=_hbars(
            [(f, float(n)) for f, n in sorted(Counter(t.family for t in tasks).items())], "tasks per family"
        ),
        lengths=_lengths(figures),
        reference=_lines(lines, "mean tool calls of the reference solution, by level"),
        depth=_depth(tasks),
        dropped=dropped,
        drops=_hbars([(r, float(n)) for r, n in dropped], "dropped candidates by reason"),
        diversity=", ".join(f"{n.split('_')[1]}-grams {v:.3f}" for n, v in diversity(tasks).items()),
        examples=_examples(tasks),
    )
