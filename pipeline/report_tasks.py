"""The task half of ``report.html``: what an agent will be asked, and what was dropped."""

from __future__ import annotations

import html
from collections import Counter
from typing import Any

from pipeline.tasks import Task


def tasks_section(manifest: dict[str, Any], tasks: list[Task]) -> str:
    e = html.escape
    per = Counter((t.family, t.level) for t in tasks)
    levels = "".join(f"<tr><td>{e(f)}</td><td>{lvl}</td><td>{n}</td></tr>" for (f, lvl), n in sorted(per.items()))
    drops = "".join(f"<tr><td>{e(r)}</td><td>{n}</td></tr>" for r, n in sorted(manifest["counts"]["dropped"].items()))
    return (
        "<h2>Tasks per family and level</h2><table><tr><th>family</th><th>level</th><th>tasks</th></tr>"
        f"{levels}</table><h2>Dropped candidates</h2><table><tr><th>reason</th><th>count</th></tr>{drops}</table>"
    )
