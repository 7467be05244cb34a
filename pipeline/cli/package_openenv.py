"""``synthenv package BUNDLE --openenv DIR``: an OpenEnv Space directory for one bundle."""

from __future__ import annotations

from pathlib import Path

from pipeline.cli.common import emit_json, fail, out


def package_openenv(bundles: list[Path], dest: Path, as_json: bool) -> None:
    """Write DIR (an OpenEnv environment package and Space) for the single bundle given; the bundle
    digest goes into every metadata file."""
    from pipeline.bundle.format import BundleError, load_bundle
    from pipeline.integrations.openenv_space import write_openenv_space

    if len(bundles) != 1:
        fail("--openenv packages one bundle per directory", 2)
    try:
        result = write_openenv_space(load_bundle(bundles[0]), dest)
    except (BundleError, ValueError, OSError) as exc:
        fail(str(exc), 2)
    if as_json:
        emit_json(result)
        return
    out.print(f"{result['bundle']} {result['digest']}\n  OpenEnv environment {result['module']} in {result['dir']}")
    for name in result["files"]:
        out.print(f"    {name}")
