"""The data half of ``report.html``: what is in the state."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from pipeline.schema import Schema


def data_section(manifest: dict[str, Any], schema: Schema, state: Path) -> str:
    e = html.escape
    rows = manifest["counts"]["rows_per_table"]
    body = "".join(f"<tr><td>{e(t.name)}</td><td>{rows.get(t.name, 0)}</td></tr>" for t in schema.tables)
    return f"<h2>Tables</h2><table><tr><th>table</th><th>rows</th></tr>{body}</table>"
