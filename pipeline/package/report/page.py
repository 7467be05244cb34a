"""``report.html``: one self-contained page per bundle, assembled from sections.

The page opens on a summary box and a table of contents (:mod:`summary`), then what the agent
is given (tools and policy, :mod:`agent`), the data, its realism, the tasks, the exploits and
the scripted policies, and for a calibrated bundle the measured difficulty.
"""

from __future__ import annotations

from pathlib import Path

from pipeline.bundle.manifest import ToolUseManifest
from pipeline.package.report.agent import agent_section, agent_tools
from pipeline.package.report.data import data_section
from pipeline.package.report.evaluation import calibration_section
from pipeline.package.report.exploits import exploits_section
from pipeline.package.report.realism import realism_section
from pipeline.package.report.render import Markup, render
from pipeline.package.report.scripted import scripted_reports, scripted_section
from pipeline.package.report.summary import contents, summary_box
from pipeline.package.report.tasks import tasks_section
from pipeline.runtime.task import Task
from pipeline.tools.specs import Toolset, build_toolset
from pipeline.world.schema import Schema

STYLE = (
    "body{font-family:sans-serif;margin:2em;max-width:1100px}td,th{padding:2px 8px;"
    "border-bottom:1px solid #ddd;text-align:left;vertical-align:top}h2{margin-top:1.5em}"
    ".summary{border:1px solid #4a7fb5;border-radius:6px;background:#f4f8fc;padding:.5em 1em;margin:1em 0}"
    ".summary th{width:10em}.summary td,.summary th{border:none}#contents ol{columns:3;margin:.3em 0}"
    "th.group{background:#eef2f7}.wrap{white-space:pre-wrap}"
    "figure{margin:1em 0}.policy li{margin:.2em 0}"
    ".refusal{border-left:3px solid #bbb;margin:.5em 0;padding:.2em .8em;color:#444;font-size:90%}"
)


def report_html(
    manifest: ToolUseManifest, schema: Schema, state: Path, tasks: list[Task], toolset: Toolset | None = None
) -> str:
    """Deterministic HTML (no timestamps): the same inputs give the same page, so the same digest.

    ``toolset`` is the bundle's tools, which the page lists and the scripted policies call; by
    default the ones the schema gives (every build ships those).
    """
    toolset = toolset or build_toolset(schema)
    tools = agent_tools(schema, toolset)
    reports = scripted_reports(manifest, schema, state, tasks, toolset)
    sections = [
        agent_section(manifest, schema, tools),
        data_section(manifest, schema, state),
        realism_section(manifest, schema, state),
        tasks_section(manifest, tasks),
        exploits_section(manifest),
        scripted_section(reports, len(tasks)),
        calibration_section(manifest),
    ]
    return (
        render(
            "page.html.j2",
            m=manifest,
            style=Markup(STYLE),
            summary=Markup(summary_box(manifest, schema, tools, tasks, reports)),
            contents=contents("".join(sections)),
            sections=[Markup(s) for s in sections],
        )
        + "\n"
    )
