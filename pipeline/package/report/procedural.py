"""``report.html`` of a procedural bundle: what is in it and what a model is asked, at a glance.

The page was a three-row table of counts with no item in sight, so a reader could not tell
what a "maze, level 0" question looks like without opening ``tasks.jsonl``. It now opens on a
summary box and contents, like a tool-use bundle's page, then the counts per family and level,
the instruction every question comes with (:data:`pipeline.surface.text.PROCEDURAL_TEXT`, what
every adapter shows), and one example item per family and level: its question as the model
reads it and the answer its scorer accepts. A question longer than ``QUESTION_CHARS`` is cut,
saying how much was left out. Items are taken in bundle order, so the page is reproducible.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pipeline.bundle.manifest import ProceduralManifest
from pipeline.package.report.render import Markup, render
from pipeline.package.report.summary import contents
from pipeline.surface.text import PROCEDURAL_TEXT

QUESTION_CHARS = 1500
ANSWER_CHARS = 400
STYLE = (
    "body{font-family:sans-serif;margin:2em;max-width:1100px}td,th{padding:2px 8px;"
    "border-bottom:1px solid #ddd;text-align:left;vertical-align:top}h2{margin-top:1.5em}"
    ".summary{border:1px solid #4a7fb5;border-radius:6px;background:#f4f8fc;padding:.5em 1em;margin:1em 0}"
    ".summary th{width:10em}.summary td,.summary th{border:none}#contents ol{columns:3;margin:.3em 0}"
    "pre{white-space:pre-wrap;margin:0;font-size:90%}"
)


def _key(item: dict[str, Any]) -> tuple[str, Any]:
    """(family, level): the level, or the continuous difficulty an item was drawn at."""
    meta = item["metadata"]
    return meta["family"], meta.get("difficulty", meta["level"])


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def procedural_sections(items: list[dict[str, Any]]) -> str:
    """The sections under the summary: counts, the instruction, the examples."""
    per = Counter(_key(i) for i in items)
    first: dict[tuple[str, Any], dict[str, Any]] = {}
    for item in items:
        first.setdefault(_key(item), item)
    examples = [
        {
            "family": family,
            "level": level,
            "id": first[(family, level)]["id"],
            "question": _cut(str(first[(family, level)]["question"]), QUESTION_CHARS),
            "answer": _cut(str(first[(family, level)]["answer"]), ANSWER_CHARS),
        }
        for family, level in sorted(per)
    ]
    rows = [(family, level, count) for (family, level), count in sorted(per.items())]
    return render("procedural_sections.html.j2", rows=rows, instruction=PROCEDURAL_TEXT, examples=examples)


def procedural_report(manifest: ProceduralManifest, items: list[dict[str, Any]]) -> str:
    """The whole page (deterministic: no timestamps, items in bundle order)."""
    sections = procedural_sections(items)
    families = sorted({i["metadata"]["family"] for i in items})
    levels = sorted({str(_key(i)[1]) for i in items})
    summary = [
        ("items", f"{len(items):,} single-turn questions with exact answers"),
        ("families", ", ".join(families)),
        ("levels", ", ".join(levels)),
        ("generator", manifest.generator_version),
    ]
    return (
        render(
            "procedural.html.j2",
            m=manifest,
            style=Markup(STYLE),
            summary=summary,
            contents=contents(sections),
            sections=Markup(sections),
        )
        + "\n"
    )
