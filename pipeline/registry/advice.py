"""What to do when a version is taken: advice that names a command that works for the bundle's kind.

A tool-use bundle is re-packaged under another version by ``publish`` itself (``--bump`` or
``--version``). A procedural bundle is not: its version is built into it, so the way to a
free version is building it again with ``synthenv procedural … --version X.Y.Z``, from the
knobs its manifest records, and publishing that. Advice that named ``--bump`` for a
procedural bundle failed whichever way it was followed.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from pipeline.bundle.format import Bundle
from pipeline.bundle.versions import bump, latest


def next_free(bundle: Bundle, taken: Sequence[str]) -> str:
    """The patch bump after the newest published version (or after the bundle's own)."""
    return bump(latest([*taken, bundle.version]) or bundle.version, "patch")


def procedural_command(bundle: Bundle, version: str) -> str | None:
    """``synthenv procedural …`` building this bundle's items again as ``version``, or None when the
    command line cannot say its knobs (per-family levels or difficulties, a lineage parent)."""
    manifest = bundle.manifest.as_procedural()
    knobs = manifest.knobs
    if isinstance(knobs.level, dict) or isinstance(knobs.difficulty, dict) or manifest.lineage.parent is not None:
        return None
    args = ["synthenv", "procedural", "--family", ",".join(knobs.families), "--n", str(knobs.n)]
    args += ["--seed", str(manifest.seed)]
    if knobs.difficulty is not None:
        args += ["--difficulty", repr(float(knobs.difficulty))]
    else:
        args += ["--level", str(knobs.level or 0)]
    weights = [float(knobs.weights.get(f, 1.0)) for f in knobs.families]
    if any(w != 1.0 for w in weights):
        args += ["--weights", ",".join(f"{w:g}" for w in weights)]
    args += ["--version", version]  # no --out: a bundle unpacked from an archive lives in a temporary directory
    return shlex.join(args)


def republish_advice(bundle: Bundle, taken: Sequence[str]) -> str:
    """One sentence: how this content gets published under a free version."""
    version = next_free(bundle, taken)
    if bundle.manifest.kind == "tool_use":
        return f"publish it with --bump patch (as {version}) or --version {version}"
    command = procedural_command(bundle, version)
    if command is None:
        return (
            "a procedural bundle is not re-versioned at publish and this one's knobs (per-family levels or a "
            "lineage parent) are not command-line flags: build it again with "
            f"pipeline.package.procedural.build_procedural_bundle(..., version={version!r}) and publish that"
        )
    return (
        "a procedural bundle is not re-versioned at publish: build it again under a free version with "
        f"`{command}` and publish the directory it prints"
    )
