"""``synthenv package``: a bundle's reproducible archive, and its container image."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from pipeline.cli.common import emit_json, err, fail, out, plain


def package(
    bundles: list[Path] = typer.Argument(..., help="bundle directories (several make one image holding them all)"),
    image: bool = typer.Option(False, "--image", help="build a container image FROM the runtime image"),
    tag: str | None = typer.Option(None, "--tag", help="image tag (default synthenv/NAME:VERSION)"),
    save: Path | None = typer.Option(None, "--save", help="also write a docker save tarball (air-gapped transfer)"),
    runtime: str | None = typer.Option(
        None, "--runtime", help="runtime image to build FROM (default synthenv-runtime:<synthenv version>)"
    ),
    build_runtime: bool = typer.Option(
        False, "--build-runtime", help="rebuild the runtime image first (it is built anyway when missing)"
    ),
    wheelhouse: Path | None = typer.Option(
        None, "--wheelhouse", help="wheels for the runtime image (default: built now from PyPI)"
    ),
    base: str = typer.Option(
        "synthenv-base:bookworm", "--base", help="base image of the runtime (scripts/build-base-image.sh)"
    ),
    openenv: Path | None = typer.Option(
        None, "--openenv", help="write an OpenEnv Space directory (openenv.yaml, pyproject.toml, Dockerfile, README)"
    ),
    as_json: bool = typer.Option(False, "--json", help="print the result as JSON"),
) -> None:
    """Write each bundle's archive; with --image, build (and --save) its container image."""
    from pipeline.bundle.format import BundleError, archive_path, load_bundle, write_archive

    if openenv is not None:
        from pipeline.cli.package_openenv import package_openenv

        package_openenv(bundles, openenv, as_json)
        return

    if (save or tag or runtime or build_runtime or wheelhouse) and not image:
        fail("--tag, --save, --runtime, --build-runtime and --wheelhouse need --image", 2)
    try:
        loaded = [load_bundle(b) for b in bundles]
    except BundleError as exc:
        fail(str(exc), 2)
    if not image:
        archives = [write_archive(b.path, archive_path(b.path, b.name, b.version)) for b in loaded]
        result: Any = [{"ref": b.ref, "digest": b.digest, "archive": str(a)} for b, a in zip(loaded, archives)]
        if as_json:
            emit_json(result)
        else:
            for row in result:
                out.print(f"{plain(row['ref'])} {row['digest']}\n  {plain(row['archive'])}")
        return
    _build_image(loaded, tag, save, runtime, build_runtime, wheelhouse, base, as_json)


def _build_image(
    loaded: list[Any],
    tag: str | None,
    save: Path | None,
    runtime: str | None,
    build_runtime: bool,
    wheelhouse: Path | None,
    base: str,
    as_json: bool,
) -> None:
    from pipeline.package.image import (
        ImageError,
        ImageUnavailable,
        build_bundle_image,
        connect,
        ensure_runtime_image,
        save_image,
    )

    def log(line: str) -> None:
        err.print(line, style="dim", markup=False, emoji=False, highlight=False)

    try:
        client = connect()
        runtime_image = ensure_runtime_image(
            client, tag=runtime, wheelhouse=wheelhouse, rebuild=build_runtime, base=base, log=log
        )
        built = build_bundle_image(client, [b.path for b in loaded], tag=tag, runtime=runtime_image, log=log)
        saved = save_image(client, built.tag, save) if save is not None else None
    except ImageUnavailable as exc:
        fail(str(exc), "unavailable")
    except ImageError as exc:
        fail(str(exc), "failed")
    except ValueError as exc:
        fail(str(exc), "usage")
    result = {
        **built.as_dict(),
        "runtime": runtime_image,
        "saved": str(saved) if saved else None,
        "bundles": {b.ref: b.digest for b in loaded},
    }
    if as_json:
        emit_json(result)
        return
    out.print(
        f"built [bold]{plain(built.tag)}[/] ({built.size / 1e6:.1f} MB, {built.added / 1e6:.1f} MB over the runtime) "
        f"FROM {runtime_image} in {built.seconds:.1f}s"
    )
    if saved:
        out.print(f"  saved {plain(saved)}")


def register(app: typer.Typer) -> None:
    app.command("package")(package)
