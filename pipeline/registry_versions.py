"""Semantic versions, and re-versioning a bundle.

The version is part of a bundle's content (the manifest, ``openapi.json``'s
``info.version``, the Dockerfile's labels and the report all carry it), so a bundle
published under another version is re-packaged from its own files: the result is
byte-identical to what ``generate --version`` would have written, and has its own digest.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from pipeline.bundle import Bundle

SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")
BUMPS = ("major", "minor", "patch")

Version = tuple[int, int, int]


def parse_version(text: str) -> Version:
    """``"1.2.3"`` -> ``(1, 2, 3)``; refuses anything but plain X.Y.Z (no pre-release tags)."""
    match = SEMVER.match(text)
    if match is None:
        raise ValueError(f"version must be semver X.Y.Z (e.g. 1.2.0), got {text!r}")
    major, minor, patch = (int(g) for g in match.groups())
    return major, minor, patch


def format_version(version: Version) -> str:
    return ".".join(str(part) for part in version)


def bump(version: str, part: str) -> str:
    """The next version: ``bump("1.2.3", "minor") == "1.3.0"``."""
    if part not in BUMPS:
        raise ValueError(f"bump must be one of {', '.join(BUMPS)}, got {part!r}")
    major, minor, patch = parse_version(version)
    if part == "major":
        return format_version((major + 1, 0, 0))
    if part == "minor":
        return format_version((major, minor + 1, 0))
    return format_version((major, minor, patch + 1))


def latest(versions: list[str]) -> str | None:
    """The highest version by semver order (not by publish time)."""
    return max(versions, key=parse_version, default=None)


def restamp(bundle: Bundle, version: str, out: Path | None = None) -> Bundle:
    """Re-package ``bundle`` as ``version`` under ``out`` (a temporary directory by default).

    Every other field of the manifest, lineage included, is kept: the content is the same
    world, only its version changed.
    """
    from pipeline.package import package
    from pipeline.schema import Schema
    from pipeline.tasks import Task
    from pipeline.tools import Toolset

    parse_version(version)
    if bundle.manifest.get("kind", "tool_use") != "tool_use":
        raise ValueError(f"{bundle.ref}: only tool_use bundles can be re-versioned; regenerate it with the version instead")
    manifest = {k: v for k, v in bundle.manifest.items() if k not in ("format", "files", "digest")}
    manifest["version"] = version
    schema = Schema.model_validate(bundle.read_json("schema.json"))
    toolset = Toolset.model_validate(bundle.read_json("tools.json"))
    tasks = [Task.model_validate(t) for t in bundle.read_jsonl("tasks.jsonl")]
    target = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="synthenv-restamp-"))
    return package(target, manifest, schema, bundle.file("state.sqlite"), toolset, tasks)
