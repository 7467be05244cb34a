"""Step 5: write the bundle directory, its manifest and its reproducible archive.

Building happens in a scratch directory beside the target and ends with one rename, so
a crash never leaves a half-written bundle where a trainer would look for one.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from pipeline.bundle.format import (
    Bundle,
    BundleError,
    archive_path,
    load_bundle,
    pretty_json,
    write_archive,
    write_bundle,
)
from pipeline.bundle.manifest import Manifest
from pipeline.bundle.names import check_bundle_name, check_version
from pipeline.bundle.versions import parse_version
from pipeline.package.report.page import report_html
from pipeline.runtime.task import Task
from pipeline.tools.openapi import openapi_document
from pipeline.tools.specs import Toolset
from pipeline.world.blueprint import templates_dir
from pipeline.world.ddl import ddl_script
from pipeline.world.schema import Schema


def dockerfile(name: str, version: str) -> str:
    template = (templates_dir() / "Dockerfile.template").read_text(encoding="utf-8")
    return template.replace("{name}", name).replace("{version}", version)


class VersionExists(BundleError):
    """``out/<name>/<version>/`` already holds other content: a version, once written, is never rewritten."""


def write_atomically(out: Path, manifest: Manifest, write_files: Callable[[Path], None]) -> Bundle:
    """Write ``out/<name>/<version>/`` via a scratch directory and one rename, plus the archive.

    Name and version become paths here, so they are checked before anything is created. A
    version directory that already exists is kept: the same content again (same digest) is a
    no-op, other content is refused with :class:`VersionExists`, so ``name@version`` always
    means one thing (a second ``generate`` with other ``--rows`` once replaced a bundle a
    trainer had already pulled by that name).
    """
    name, version = check_bundle_name(manifest.name), check_version(manifest.version)
    target = Path(out) / name / version
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{version}-", dir=target.parent))
    try:
        write_files(scratch)
        sealed = write_bundle(scratch, manifest)
        if target.exists():
            _keep_existing(target, sealed.digest)
            shutil.rmtree(scratch)
            return load_bundle(target)
        scratch.rename(target)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    write_archive(target, archive_path(target, name, version))
    # The files were hashed once, for the manifest just sealed; reading them back twice more (the
    # scratch directory and the bundle after the rename) re-read the whole state for nothing.
    return Bundle(path=target, manifest=sealed)


def _keep_existing(target: Path, digest: str) -> None:
    """Accept an existing version directory only when it holds exactly ``digest``."""
    try:
        existing = load_bundle(target).digest
    except BundleError as exc:
        raise VersionExists(
            f"{target} exists but is not a valid bundle ({exc}); remove it or write elsewhere (--out)"
        ) from None
    if existing != digest:
        raise VersionExists(
            f"{target} already holds {existing[:19]}…, and this run made {digest[:19]}…: a version is never "
            "rewritten; write elsewhere (--out) or remove that directory"
        )


def package(
    out: Path,
    manifest: Manifest,
    schema: Schema,
    state: Path,
    toolset: Toolset,
    tasks: list[Task],
) -> Bundle:
    """Write a tool-use bundle: schema, state, tools, tasks, report and Dockerfile."""

    def write(scratch: Path) -> None:
        (scratch / "schema.json").write_text(pretty_json(json.loads(schema.model_dump_json())), encoding="utf-8")
        (scratch / "schema.sql").write_text(ddl_script(schema, "sqlite"), encoding="utf-8")
        shutil.copyfile(state, scratch / "state.sqlite")
        (scratch / "tools.json").write_text(pretty_json(json.loads(toolset.model_dump_json())), encoding="utf-8")
        doc = openapi_document(toolset, manifest.title, manifest.version)
        (scratch / "openapi.json").write_text(pretty_json(doc), encoding="utf-8")
        with (scratch / "tasks.jsonl").open("w", encoding="utf-8") as fh:
            for t in tasks:
                fh.write(json.dumps(t.model_dump(mode="json"), sort_keys=True, ensure_ascii=False) + "\n")
        page = report_html(manifest.as_tool_use(), schema, state, tasks, toolset)
        (scratch / "report.html").write_text(page, encoding="utf-8")
        (scratch / "Dockerfile").write_text(dockerfile(manifest.name, manifest.version), encoding="utf-8")

    return write_atomically(out, manifest, write)


def restamp(bundle: Bundle, version: str, out: Path | None = None) -> Bundle:
    """Re-package ``bundle`` as ``version`` under ``out`` (a temporary directory by default).

    Every other field of the manifest, lineage included, is kept: the content is the same
    world, only its version changed.
    """
    parse_version(version)
    if bundle.manifest.kind != "tool_use":
        raise ValueError(
            f"{bundle.ref}: only tool_use bundles can be re-versioned; regenerate it with the version instead"
        )
    manifest = bundle.manifest.with_changes(version=version)
    schema = Schema.model_validate(bundle.read_json("schema.json"))
    toolset = Toolset.model_validate(bundle.read_json("tools.json"))
    tasks = [Task.model_validate(t) for t in bundle.read_jsonl("tasks.jsonl")]
    target = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="synthenv-restamp-"))
    return package(target, manifest, schema, bundle.file("state.sqlite"), toolset, tasks)
