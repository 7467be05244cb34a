"""``report.html``: one self-contained page per bundle, assembled from sections."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.package.report.data import data_section
from pipeline.package.report.evaluation import calibration_section
from pipeline.package.report.exploits import exploits_section
from pipeline.package.report.realism import realism_section
from pipeline.package.report.render import Markup, render
from pipeline.package.report.scripted import scripted_section
from pipeline.package.report.tasks import tasks_section
from pipeline.runtime.task import Task
from pipeline.tools.specs import Toolset
from pipeline.world.schema import Schema

STYLE = (
    "body{font-family:sans-serif;margin:2em;max-width:1100px}td,th{padding:2px 8px;"
    "border-bottom:1px solid #ddd;text-align:left}h2{margin-top:1.5em}"
)


def report_html(
    manifest: dict[str, Any], schema: Schema, state: Path, tasks: list[Task], toolset: Toolset | None = None
) -> str:
    """Deterministic HTML (no timestamps): the same inputs give the same page, so the same digest.

    ``toolset`` is the bundle's tools, which the scripted policies call; by default the ones the
    schema gives (every build ships those).
    """
    sections = [
        data_section(manifest, schema, state),
        realism_section(manifest, schema, state),
        tasks_section(manifest, tasks),
        exploits_section(manifest),
        scripted_section(manifest, schema, state, tasks, toolset),
        calibration_section(manifest),
    ]
    return render("page.html.j2", m=manifest, style=Markup(STYLE), sections=[Markup(s) for s in sections]) + "\n"
