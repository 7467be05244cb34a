"""``report.html``: one self-contained page per bundle, assembled from sections."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from pipeline.report_data import data_section
from pipeline.report_tasks import tasks_section
from pipeline.schema import Schema
from pipeline.tasks import Task

STYLE = ("body{font-family:sans-serif;margin:2em;max-width:1100px}td,th{padding:2px 8px;"
         "border-bottom:1px solid #ddd;text-align:left}h2{margin-top:1.5em}")


def report_html(manifest: dict[str, Any], schema: Schema, state: Path, tasks: list[Task]) -> str:
    """Deterministic HTML (no timestamps), so the report never changes the bundle digest."""
    e = html.escape
    head = (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{e(manifest['name'])}@{e(manifest['version'])}"
        f"</title><style>{STYLE}</style></head><body><h1>{e(manifest['title'])}</h1>"
        f"<p>{e(manifest['description'])}</p><p><code>{e(manifest['name'])}@{e(manifest['version'])}</code> "
        f"seed {manifest['seed']}, frozen clock {e(manifest['frozen_clock'])}</p>"
    )
    return head + data_section(manifest, schema, state) + tasks_section(manifest, tasks) + "</body></html>\n"
