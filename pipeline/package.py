"""Step 5: write the bundle directory, its manifest and its reproducible archive.

Building happens in a scratch directory beside the target and ends with one rename, so
a crash never leaves a half-written bundle where a trainer would look for one.
"""

from __future__ import annotations

import html
import json
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from pipeline.blueprint import templates_dir
from pipeline.bundle import Bundle, load_bundle, pretty_json, write_archive, write_bundle
from pipeline.ddl import ddl_script
from pipeline.schema import Schema
from pipeline.tasks import Task
from pipeline.tools import Toolset, openapi_document



def dockerfile(name: str, version: str) -> str:
    template = (templates_dir() / "Dockerfile.template").read_text(encoding="utf-8")
    return template.replace("{name}", name).replace("{version}", version)


def report_html(manifest: dict[str, Any], tasks: list[Task]) -> str:
    """A self-contained page a person can open: counts, tasks per family and level, drops."""
    e = html.escape
    per = Counter((t.family, t.level) for t in tasks)
    rows_per_table = manifest["counts"]["rows_per_table"]
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>{e(manifest['name'])}@{e(manifest['version'])}</title>",
        "<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 8px;border-bottom:1px solid #ddd}</style>",
        f"</head><body><h1>{e(manifest['title'])}</h1><p>{e(manifest['description'])}</p>",
        f"<p><code>{e(manifest['name'])}@{e(manifest['version'])}</code> seed {manifest['seed']}, "
        f"frozen clock {e(manifest['frozen_clock'])}</p>",
        "<h2>Tables</h2><table><tr><th>table</th><th>rows</th></tr>",
        *(f"<tr><td>{e(t)}</td><td>{n}</td></tr>" for t, n in rows_per_table.items()),
        "</table><h2>Tasks per family and level</h2><table><tr><th>family</th><th>level</th><th>tasks</th></tr>",
        *(f"<tr><td>{e(f)}</td><td>{lvl}</td><td>{n}</td></tr>" for (f, lvl), n in sorted(per.items())),
        "</table><h2>Dropped candidates</h2><table><tr><th>reason</th><th>count</th></tr>",
        *(f"<tr><td>{e(r)}</td><td>{n}</td></tr>" for r, n in sorted(manifest["counts"]["dropped"].items())),
        "</table></body></html>\n",
    ]
    return "".join(parts)


def package(
    out: Path, manifest: dict[str, Any], schema: Schema, state: Path, toolset: Toolset, tasks: list[Task],
) -> Bundle:
    """Write ``out/<name>/<version>/`` and ``out/<name>/<name>-<version>.tar.gz``; return the loaded bundle."""
    name, version = manifest["name"], manifest["version"]
    target = Path(out) / name / version
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{version}-", dir=target.parent))
    try:
        (scratch / "schema.json").write_text(pretty_json(json.loads(schema.model_dump_json())), encoding="utf-8")
        (scratch / "schema.sql").write_text(ddl_script(schema, "sqlite"), encoding="utf-8")
        shutil.copyfile(state, scratch / "state.sqlite")
        (scratch / "tools.json").write_text(pretty_json(json.loads(toolset.model_dump_json())), encoding="utf-8")
        doc = openapi_document(toolset, manifest["title"], version)
        (scratch / "openapi.json").write_text(pretty_json(doc), encoding="utf-8")
        with (scratch / "tasks.jsonl").open("w", encoding="utf-8") as fh:
            for t in tasks:
                fh.write(json.dumps(t.model_dump(mode="json"), sort_keys=True, ensure_ascii=False) + "\n")
        (scratch / "report.html").write_text(report_html(manifest, tasks), encoding="utf-8")
        (scratch / "Dockerfile").write_text(dockerfile(name, version), encoding="utf-8")
        write_bundle(scratch, manifest)
        if target.exists():
            shutil.rmtree(target)
        scratch.rename(target)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    write_archive(target, target.parent / f"{name}-{version}.tar.gz")
    return load_bundle(target)
