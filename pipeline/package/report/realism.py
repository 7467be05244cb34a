"""The realism part of ``report.html``: what the data promises, and that it keeps every promise.

Per kind of check (rules, timelines, status times, histories, vocabularies, derived values,
integrity): how many checks ran on the bundle's database and how many rows broke one (a
shipped bundle breaks none: the build fails otherwise). Then the promises themselves: the
declared business rules, the status histories, and the vocabulary of every text column with
three of its values, read from the state in id order so the page stays reproducible.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from pipeline.bundle.manifest import ToolUseManifest
from pipeline.package.report.render import render
from pipeline.world.schema import Schema
from pipeline.world.sqlnames import quote_ident as _q

KIND_WORDS = {
    "rule": "business rules",
    "timeline": "time order",
    "status": "status times and moves",
    "history": "status histories",
    "vocabulary": "vocabularies",
    "derived": "derived values",
    "integrity": "integrity",
}


def _kind_order(item: tuple[str, Any]) -> tuple[int, str]:
    """Kinds in a fixed order: a manifest read back has its keys sorted, a fresh one does not,
    and both must render the same page."""
    order = list(KIND_WORDS)
    return (order.index(item[0]) if item[0] in order else len(order), str(item[0]))


def _figures(manifest: ToolUseManifest) -> list[tuple[str, Any, Any, Any]] | None:
    realism = manifest.realism
    if not realism:
        return None
    return [
        (KIND_WORDS.get(str(kind), str(kind)), v.get("checks"), v.get("failed"), v.get("rows"))
        for kind, v in sorted(realism.items(), key=_kind_order)
        if isinstance(v, dict) and v.get("checks")
    ]


def _rules(schema: Schema) -> list[tuple[str, str, str]]:
    return [
        (t.plural, r.message or r.check, r.check + (" when " + r.when if r.when else ""))
        for t in schema.tables
        for r in t.rules
    ]


def _histories(schema: Schema) -> list[tuple[str, str, str]]:
    return [
        (t.plural, schema.table(t.history.of).noun, schema.table(t.history.of).column(t.history.status).label)
        for t in schema.tables
        if t.history is not None
    ]


def _vocabularies(schema: Schema, state: Path) -> list[tuple[str, str, str, str]]:
    """Every text column with a vocabulary, and its first three values in id order."""
    conn = sqlite3.connect(f"file:{state}?mode=ro", uri=True)
    try:
        rows = []
        for t in schema.tables:
            for c in t.columns:
                if not c.vocab and not c.vocabulary:
                    continue
                sample = [
                    str(v[0])
                    for v in conn.execute(
                        f"SELECT {_q(c.name)} FROM {_q(t.name)} WHERE {_q(c.name)} IS NOT NULL ORDER BY id LIMIT 3"
                    )
                ]
                rows.append((t.noun, c.label, c.vocab or "listed in the blueprint", " · ".join(sample)))
    finally:
        conn.close()
    return rows


def realism_section(manifest: ToolUseManifest, schema: Schema, state: Path) -> str:
    return render(
        "realism.html.j2",
        figures=_figures(manifest),
        rules=_rules(schema),
        histories=_histories(schema),
        vocabularies=_vocabularies(schema, state),
    )
