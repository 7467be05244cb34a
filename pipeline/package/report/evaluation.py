"""The evaluation section of a report page: measured success and steps per family and level.

Input is plain data: evaluation reports as ``pipeline.evaluate.report.build_report`` makes
them (one per policy: a model, the scripted baselines), as a run writes them and as a
calibrated bundle's manifest carries them. Plots are inline SVG drawn here (a few lines
and whiskers need no plotting library in the default install): success (pass@1 with its
95 % interval) by level, one small chart per family with one line per policy, and mean
steps by level. The table per level names what each scripted policy does; a level where a
trivial policy (one that does not do the task) passes anything is shown in red, and so is
a top level a judgment-free policy passes on more than a fifth of its tasks. Output is
deterministic: same reports, same bytes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.bundle.manifest import ManifestBase
from pipeline.package.report.render import Markup, render

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")
TRIVIAL = ("random", "refuse", "no_tools")
JUDGMENT = ("literal", "first_candidate", "no_computation")
TOP_LEVEL = 5
TOP_LIMIT = 0.2
"""A judgment-free policy must score 0 on at least 80 % of the top level's tasks: above this it is marked."""
WHAT: dict[str, str] = {
    "random": "makes a few schema-valid calls to random tools, then answers with a value from the last result.",
    "refuse": "refuses at once, in words and in the refusal form, with nothing looked up.",
    "no_tools": "answers at once without a tool: a number from the instruction, 0, 1, Done., yes or no.",
    "reference": "replays the task's reference solution and gives its answer: the upper bound (below 100 % is a "
    "broken task or an infrastructure fault).",
    "literal": "does exactly what the request says, the operation included on records a rule of the world's "
    "policy forbids, and refuses only what the tools refuse.",
    "first_candidate": "takes records in the order a plain listing returns them instead of the order the request "
    "means (my latest, the cheapest).",
    "no_computation": "makes the reference's calls but answers a number by copying the first one the last tool "
    "result shows, instead of computing it across records.",
}
"""What each scripted policy does (``pipeline.evaluate.baselines`` and ``judgment``), one sentence for the page."""
STYLE = (
    "body{font-family:sans-serif;margin:2em;max-width:1100px}td,th{padding:2px 8px;"
    "border-bottom:1px solid #ddd;text-align:right}td:first-child,th:first-child{text-align:left}"
)
FREE = " style='color:#d62728;font-weight:bold'"
"""Inline, so the mark survives inside another page's stylesheet (a bundle's report)."""


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


def _span(ci: Sequence[float] | None) -> str:
    return "" if ci is None else f"{_fmt(ci[0])}–{_fmt(ci[1])}"


def _chart(
    title: str,
    levels: Sequence[int],
    series: Sequence[tuple[str, str, Mapping[int, tuple[float, float | None, float | None]]]],
    y_max: float,
    y_label: str,
    width: int = 250,
    height: int = 170,
) -> dict[str, Any]:
    """A line chart: x = level, one polyline per series, optional whiskers (lo, hi); drawn by ``chart``."""
    left, right, top, bottom = 34, 8, 18, 24
    pw, ph = width - left - right, height - top - bottom
    span = max(1, len(levels) - 1)

    def x(i: int) -> float:
        return left + pw * (i / span if len(levels) > 1 else 0.5)

    def y(v: float) -> float:
        return top + ph * (1 - (v / y_max if y_max else 0))

    lines = []
    for n, (_name, colour, points) in enumerate(series):
        shift = (n - (len(series) - 1) / 2) * 2.5  # overlapping lines stay visible side by side
        coords = [(x(i) + shift, points[lvl]) for i, lvl in enumerate(levels) if lvl in points]
        if not coords:
            continue
        path = " ".join(f"{px:.1f},{y(v):.1f}" for px, (v, _, _) in coords)
        dots = [
            (
                f"{px:.1f}",
                f"{y(v):.1f}",
                (f"{y(lo):.1f}", f"{y(hi):.1f}") if lo is not None and hi is not None else None,
            )
            for px, (v, lo, hi) in coords
        ]
        lines.append((colour, path, dots))
    return {
        "title": title,
        "width": width,
        "height": height,
        "left": left,
        "right": left + pw,
        "top": top,
        "base": top + ph,
        "middle": f"{top + ph / 2:.1f}",
        "y_max": f"{y_max:g}",
        "y_label": y_label,
        "ticks": [(f"{x(i) - 3:.1f}", lvl) for i, lvl in enumerate(levels)],
        "series": lines,
    }


def _levels(reports: Sequence[Mapping[str, Any]]) -> list[int]:
    return sorted({int(lvl) for r in reports for lvl in r["levels"]})


def success_charts(reports: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """pass@1 by level, one chart per family, one line per policy."""
    levels = _levels(reports)
    families = sorted({f for r in reports for f in r["families"]})
    charts = []
    for family in families:
        series = []
        for i, r in enumerate(reports):
            cells = r["families"].get(family, {}).get("levels", {})
            points = {
                int(lvl): (c["pass_at_1"], *(c["pass_at_1_ci"] or (None, None)))
                for lvl, c in cells.items()
                if c["pass_at_1"] is not None
            }
            series.append((r["policy"], COLOURS[i % len(COLOURS)], points))
        charts.append(_chart(f"{family}: pass@1 by level", levels, series, 1.0, "pass"))
    return charts


def steps_chart(reports: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    levels = _levels(reports)
    series = []
    top = 1.0
    for i, r in enumerate(reports):
        points = {
            int(lvl): (c["mean_steps"], None, None) for lvl, c in r["levels"].items() if c["mean_steps"] is not None
        }
        top = max([top, *(v for v, _, _ in points.values())])
        series.append((r["policy"], COLOURS[i % len(COLOURS)], points))
    return _chart("mean steps by level (all families)", levels, series, float(int(top) + 1), "steps", 420, 200)


def _policy(r: Mapping[str, Any]) -> dict[str, Any]:
    """One policy's summary line and its rows per family and level, formatted."""
    o = r["overall"]
    rows = [
        {
            "family": family,
            "level": lvl,
            "tasks": c["tasks"],
            "episodes": c["episodes"],
            "errors": c["errors"],
            "pass_at_1": _fmt(c["pass_at_1"]),
            "ci": _span(c["pass_at_1_ci"]),
            "pass_at_k": _fmt(c["pass_at_k"]),
            "pass_at_k_ci": _span(c["pass_at_k_ci"]),
            "pass_hat_k": _fmt(c["pass_hat_k"]),
            "pass_hat_k_ci": _span(c["pass_hat_k_ci"]),
            "steps": "" if c["mean_steps"] is None else c["mean_steps"],
            "tool_errors": "" if c["mean_tool_errors"] is None else c["mean_tool_errors"],
        }
        for family, f in r["families"].items()
        for lvl, c in f["levels"].items()
    ]
    return {
        "policy": r["policy"],
        "k": r["trials"],
        "pass_at_1": _fmt(o["pass_at_1"]),
        "pass_at_k": _fmt(o["pass_at_k"]),
        "pass_hat_k": _fmt(o["pass_hat_k"]),
        "tasks": o["tasks"],
        "errors": r["errors"]["total"],
        "config_id": r["config_id"],
        "rows": rows,
    }


def _marked(policy: str, level: int, value: float | None) -> bool:
    """A reward had for free (a trivial policy passes), or a top level passed without judgment."""
    if policy in TRIVIAL:
        return bool(value)
    return policy in JUDGMENT and level == TOP_LEVEL and value is not None and value > TOP_LIMIT


def level_table(reports: Sequence[Mapping[str, Any]]) -> str:
    """pass@1 per level, one row per policy (with what it does, for a scripted one), marks in red."""
    levels = _levels(reports)
    counts = []
    for lvl in levels:
        cells = [r["levels"][str(lvl)] for r in reports if str(lvl) in r["levels"]]
        counts.append((lvl, max(c["tasks"] for c in cells)))
    rows = []
    for r in reports:
        cells = []
        for lvl in levels:
            c = r["levels"].get(str(lvl))
            p = None if c is None else c["pass_at_1"]
            cells.append((_marked(r["policy"], lvl, p), _fmt(p)))
        rows.append((r["policy"], cells, _fmt(r["overall"]["pass_at_1"]), WHAT.get(r["policy"], "")))
    return render("levels.html.j2", levels=counts, rows=rows, free_style=Markup(FREE))


def evaluation_section(reports: Sequence[Mapping[str, Any]], title: str = "Measured difficulty") -> str:
    """``<section id='evaluation'>``: tables and plots for the given reports (same bundle)."""
    if not reports:
        return ""
    return render(
        "evaluation.html.j2",
        title=title,
        ref=reports[0]["bundle"]["ref"],
        table=Markup(level_table(reports)),
        judgment=[r["policy"] for r in reports if r["policy"] in JUDGMENT],
        top=TOP_LEVEL,
        limit=_fmt(TOP_LIMIT),
        legend=[(COLOURS[i % len(COLOURS)], r["policy"]) for i, r in enumerate(reports)],
        success=success_charts(reports),
        steps=steps_chart(reports),
        policies=[_policy(r) for r in reports],
    )


def evaluation_page(reports: Sequence[Mapping[str, Any]]) -> str:
    """A standalone page (an evaluation run's ``report.html``)."""
    ref = reports[0]["bundle"]["ref"] if reports else ""
    section = Markup(evaluation_section(reports, "Evaluation"))
    return render("evaluation_page.html.j2", ref=ref, style=Markup(STYLE), section=section) + "\n"


def calibration_section(manifest: ManifestBase | Mapping[str, Any]) -> str:
    """The section for a calibrated bundle (``manifest.calibration``); empty for any other.

    Also takes the manifest's JSON object, which ``pipeline.evaluate.calibrate`` still passes.
    """
    if isinstance(manifest, ManifestBase):
        runs = manifest.calibration.runs if manifest.calibration is not None else []
    else:
        runs = (manifest.get("calibration") or {}).get("runs") or []
    if not runs:
        return ""
    return evaluation_section(runs, "Measured difficulty")


def with_section(page: str, section: str) -> str:
    """``page`` with its evaluation section replaced by ``section`` (or added before ``</body>``)."""
    start = page.find("<section id='evaluation'>")
    if start != -1:
        end = page.index("</section>", start) + len("</section>")
        page = page[:start] + page[end:]
    cut = page.rfind("</body>")
    page = page[:cut] + section + page[cut:] if cut != -1 else page + section
    return _listed(page, section)


def _listed(page: str, section: str) -> str:
    """``page`` with the section's heading in its table of contents (a bundle's report has one; an
    evaluation run's page has none), once."""
    heading = re.search(r"<h2 id='(measured)'>(.*?)</h2>", section)
    end = page.find("</ol></nav>")
    if heading is None or end == -1 or page.find(f"href='#{heading[1]}'", 0, end) != -1:
        return page
    return page[:end] + f"<li><a href='#{heading[1]}'>{heading[2]}</a></li>" + page[end:]
