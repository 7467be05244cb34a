"""The top of ``report.html``: a summary box and a table of contents.

A report of 7,000 to 10,000 px used to open on a table of row counts; a reader had to scroll
to learn how many tasks there are, whether any exploit passed, or what the agent can call.
The box says it in a few lines, every figure taken from what the sections below show (the
manifest's counts, the tool list, the scripted policies' reports), and the contents link
every section. The contents are read off the rendered sections' ``<h2 id=...>`` headings, so a
section that is absent (no calibration, no exploits) is never linked and a new one is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pipeline.bundle.manifest import ToolUseManifest
from pipeline.package.report.agent import AgentTools, policy_lines
from pipeline.package.report.evaluation import JUDGMENT, TOP_LEVEL
from pipeline.package.report.render import Markup, render
from pipeline.runtime.task import Task
from pipeline.world.schema import Schema

HEADING = re.compile(r"<h2 id='([a-z0-9-]+)'>(.*?)</h2>")
RULE = re.compile(r"^P\d+\.")


def contents(sections: str) -> list[tuple[str, Markup]]:
    """(anchor, heading) of every ``<h2 id=...>`` in the rendered sections, in page order; the
    heading is already escaped HTML, so it goes back as :class:`Markup`."""
    return [(anchor, Markup(title)) for anchor, title in HEADING.findall(sections)]


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


def _scripted(reports: Sequence[dict[str, Any]]) -> str | None:
    """The reference's pass@1 and the best judgment-free policy at the top level, in words."""
    by = {r["policy"]: r for r in reports}
    if "reference" not in by:
        return None
    words = f"reference {_pct(by['reference']['overall']['pass_at_1'])}"
    top = [
        (r["levels"][str(TOP_LEVEL)]["pass_at_1"], name)
        for name, r in by.items()
        if name in JUDGMENT and str(TOP_LEVEL) in r["levels"] and r["levels"][str(TOP_LEVEL)]["pass_at_1"] is not None
    ]
    if top:
        value, name = max(top, key=lambda x: (x[0], x[1]))
        words += f"; at L{TOP_LEVEL} the best judgment-free policy ({name}) passes {_pct(value)}"
    return words


def summary_box(
    manifest: ToolUseManifest,
    schema: Schema,
    tools: AgentTools,
    tasks: list[Task],
    reports: Sequence[dict[str, Any]],
) -> str:
    counts = manifest.counts
    rows = counts.rows_per_table
    lines = policy_lines(manifest)
    rules = sum(1 for line in lines if RULE.match(line))
    levels = sorted({t.level for t in tasks})
    exploits = counts.exploits
    realism = [v for v in manifest.realism.values() if isinstance(v, dict)]
    items: list[tuple[str, str]] = [
        ("data", f"{len(schema.tables)} tables, {sum(rows.values()):,} rows"),
        (
            "agent",
            f"{tools.count} tools ({len(tools.verbs)} record verbs, {len(tools.operations)} business operations, "
            f"the answer tool); {tools.served_count} when served over HTTP and MCP",
        ),
        ("policy", f"{rules} numbered rules" if rules else f"{len(lines)} lines" if lines else "none"),
        (
            "tasks",
            f"{len(tasks)} proven of {counts.candidates} candidates; "
            f"{len({t.family for t in tasks})} families" + (f", levels L{levels[0]}–L{levels[-1]}" if levels else ""),
        ),
    ]
    if exploits:
        attempts = sum(c.get("attempts", 0) for c in exploits.values())
        passed = sum(c.get("passed", 0) for c in exploits.values())
        items.append(("exploits", f"{len(exploits)} tried, {attempts:,} attempts, {passed} passed"))
    if realism:
        checks = sum(int(v.get("checks") or 0) for v in realism)
        failed = sum(int(v.get("failed") or 0) for v in realism)
        items.append(("realism", f"{checks} checks on the data, {failed} failed"))
    scripted = _scripted(reports)
    if scripted:
        items.append(("scripted policies", scripted))
    return render("summary.html.j2", m=manifest, items=items)
