"""The task half of ``report.html``: what an agent will be asked, and what was dropped.

Tables and inline SVG charts only (no scripts, no external files), computed from the
tasks and the manifest, so the page is deterministic and never changes the digest.
"""

from __future__ import annotations

import html
from collections import Counter
from typing import Any

from pipeline.taskgen.stats import diversity, reference_calls
from pipeline.tasks import Task

PALETTE = ("#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5", "#9c6b4e",
           "#9498a0", "#1b9e77", "#d95f02")
e = html.escape


def _hbars(items: list[tuple[str, float]], title: str, width: int = 520) -> str:
    """Horizontal bar chart, one labelled bar per item."""
    if not items:
        return ""
    top = max(v for _, v in items) or 1
    row, left = 18, 170
    height = row * len(items) + 30
    bars = []
    for i, (label, value) in enumerate(items):
        y = 24 + i * row
        w = (width - left - 50) * value / top
        bars.append(f"<text x='{left - 6}' y='{y + 12}' text-anchor='end' font-size='11'>{e(label)}</text>"
                    f"<rect x='{left}' y='{y + 2}' width='{w:.1f}' height='{row - 5}' fill='{PALETTE[0]}'/>"
                    f"<text x='{left + w + 4:.1f}' y='{y + 12}' font-size='11'>{value:g}</text>")
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' role='img' "
            f"aria-label='{e(title)}'><text x='4' y='14' font-size='12' font-weight='bold'>{e(title)}</text>"
            + "".join(bars) + "</svg>")


def _lines(series: dict[str, dict[str, float]], title: str, width: int = 560, height: int = 260) -> str:
    """Mean reference length per level: one polyline per family, the overall mean in black."""
    levels = sorted({int(lvl) for s in series.values() for lvl in s})
    if not levels:
        return ""
    top = max(v for s in series.values() for v in s.values()) or 1
    left, bottom, right, upper = 40, height - 30, width - 150, 24

    def x(level: int) -> float:
        span = max(levels[-1] - levels[0], 1)
        return left + (right - left) * (level - levels[0]) / span

    def y(value: float) -> float:
        return bottom - (bottom - upper) * value / top

    parts = [f"<text x='4' y='14' font-size='12' font-weight='bold'>{e(title)}</text>",
             f"<line x1='{left}' y1='{bottom}' x2='{right}' y2='{bottom}' stroke='#888'/>",
             f"<line x1='{left}' y1='{upper}' x2='{left}' y2='{bottom}' stroke='#888'/>",
             f"<text x='{left - 4}' y='{upper + 4}' text-anchor='end' font-size='10'>{top:g}</text>",
             f"<text x='{left - 4}' y='{bottom}' text-anchor='end' font-size='10'>0</text>"]
    parts += [f"<text x='{x(lvl):.1f}' y='{bottom + 14}' text-anchor='middle' font-size='10'>L{lvl}</text>"
              for lvl in levels]
    for i, (name, points) in enumerate(series.items()):
        colour = "#000" if name == "all families" else PALETTE[i % len(PALETTE)]
        stroke = 3 if name == "all families" else 1.5
        coords = " ".join(f"{x(int(lvl)):.1f},{y(v):.1f}" for lvl, v in sorted(points.items(), key=lambda p: int(p[0])))
        parts.append(f"<polyline fill='none' stroke='{colour}' stroke-width='{stroke}' points='{coords}'/>")
        parts.append(f"<text x='{right + 8}' y='{upper + 12 * i + 4}' font-size='10' fill='{colour}'>{e(name)}</text>")
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' role='img' "
            f"aria-label='{e(title)}'>" + "".join(parts) + "</svg>")


def _matrix(tasks: list[Task]) -> str:
    per = Counter((t.family, t.level) for t in tasks)
    families = sorted({t.family for t in tasks})
    levels = sorted({t.level for t in tasks})
    head = "".join(f"<th>L{lvl}</th>" for lvl in levels)
    rows = "".join(
        f"<tr><td>{e(f)}</td>" + "".join(f"<td>{per.get((f, lvl), 0)}</td>" for lvl in levels)
        + f"<td><b>{sum(per.get((f, lvl), 0) for lvl in levels)}</b></td></tr>" for f in families)
    return f"<table><tr><th>family</th>{head}<th>total</th></tr>{rows}</table>"


def _lengths(figures: dict[str, Any]) -> str:
    levels = sorted(figures["per_level"], key=int)
    head = "".join(f"<th>L{lvl}</th>" for lvl in levels)
    rows = ["<tr><td><b>all families</b></td>" + "".join(f"<td><b>{figures['per_level'][lvl]:g}</b></td>"
                                                          for lvl in levels) + "</tr>"]
    for family, per in figures["per_family"].items():
        rows.append(f"<tr><td>{e(family)}</td>" + "".join(
            f"<td>{per[lvl]:g}</td>" if lvl in per else "<td></td>" for lvl in levels) + "</tr>")
    return f"<table><tr><th>mean tool calls</th>{head}</tr>{''.join(rows)}</table>"


def _examples(tasks: list[Task]) -> str:
    """The first task of each family at its lowest and highest level, as an agent reads it."""
    chosen: dict[tuple[str, int], Task] = {}
    for t in tasks:
        chosen.setdefault((t.family, t.level), t)
    picks = []
    for family in sorted({t.family for t in tasks}):
        levels = sorted(lvl for f, lvl in chosen if f == family)
        picks += [chosen[(family, lvl)] for lvl in dict.fromkeys((levels[0], levels[-1]))]
    rows = "".join(f"<tr><td>{e(t.family)}</td><td>{t.level}</td><td>{len(t.solution)}</td>"
                   f"<td>{e(t.instruction)}</td></tr>" for t in picks)
    return f"<table><tr><th>family</th><th>level</th><th>calls</th><th>instruction</th></tr>{rows}</table>"


def tasks_section(manifest: dict[str, Any], tasks: list[Task]) -> str:
    counts = manifest["counts"]
    dropped = sorted(counts.get("dropped", {}).items(), key=lambda kv: (-kv[1], kv[0]))
    figures = reference_calls(tasks)
    lines = {"all families": figures["per_level"], **figures["per_family"]}
    div = diversity(tasks)
    drops = "".join(f"<tr><td>{e(r)}</td><td>{n}</td></tr>" for r, n in dropped) or "<tr><td>none</td><td>0</td></tr>"
    return (
        f"<h2>Tasks</h2><p>{len(tasks)} proven tasks from {counts.get('candidates', len(tasks))} candidates; "
        f"{sum(n for _, n in dropped)} dropped. Every task scored 1.0 on its reference solution and 0.0 on "
        "doing nothing, on a wrong or stuffed answer, on a blanket refusal, and (for writes) on repeated or "
        "misdirected writes.</p>"
        "<h3>Tasks per family and level</h3>" + _matrix(tasks)
        + _hbars([(f, float(n)) for f, n in sorted(Counter(t.family for t in tasks).items())], "tasks per family")
        + "<h3>Reference solution length</h3>" + _lengths(figures)
        + _lines(lines, "mean tool calls of the reference solution, by level")
        + "<h3>Dropped candidates</h3><table><tr><th>reason</th><th>count</th></tr>" + drops + "</table>"
        + _hbars([(r, float(n)) for r, n in dropped], "dropped candidates by reason")
        + "<h3>Instruction diversity</h3><p>Distinct n-grams over all n-grams of the instructions: "
        + ", ".join(f"{n.split('_')[1]}-grams {v:.3f}" for n, v in div.items()) + ".</p>"
        + "<h3>Examples</h3>" + _examples(tasks)
    )
