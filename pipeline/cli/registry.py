"""``synthenv publish | list | pull | gc``: the registry trainers pull environments from."""

from __future__ import annotations

from pathlib import Path

import typer

from pipeline.cli.common import emit_json, err, fail, out, plain


def registry_code(exc: Exception) -> str:
    """The exit-code name for a registry error: a missing name or version is ``not_found``, as in ``info``."""
    text = str(exc)
    if text.startswith(("no bundle named", "no version of")) or " is not in registry " in text:
        return "not_found"
    if text.startswith(("bad reference", "bad bundle name")):
        return "usage"
    return "refused"


REGISTRY_HELP = "registry directory or fsspec URL (default: $SYNTHENV_REGISTRY or artifacts/)"


def publish(
    bundle: Path = typer.Argument(..., help="bundle directory"),
    registry: str | None = typer.Option(None, "--registry", help=REGISTRY_HELP),
    version: str | None = typer.Option(
        None, "--version", help="publish as X.Y.Z (re-packages the bundle if it differs)"
    ),
    bump: str | None = typer.Option(None, "--bump", help="publish as the next major|minor|patch after the latest"),
    as_json: bool = typer.Option(False, "--json", help="print the index entry as JSON"),
) -> None:
    """Publish a bundle. Versions are immutable: the same content again is a no-op, other content is refused."""
    from pipeline.registry.registry import Registry, RegistryError

    if version is not None and bump is not None:
        fail("give --version or --bump, not both", 2)
    try:
        reg = Registry(registry)
        result = reg.publish(bundle, version=version, bump=bump)
    except ValueError as exc:
        fail(str(exc), 2)
    except RegistryError as exc:
        fail(str(exc), registry_code(exc))
    entry = result.entry
    if as_json:
        emit_json({**entry.as_dict(), "created": result.created, "restamped": result.restamped, "registry": reg.url})
        return
    if result.created:
        note = " (re-packaged under this version)" if result.restamped else ""
        out.print(f"published [bold]{plain(entry.ref)}[/] {entry.digest} to {plain(reg.url)}{note}")
    else:
        out.print(f"[dim]already published:[/] [bold]{plain(entry.ref)}[/] {entry.digest} (nothing to do)")


def list_bundles(
    name: str | None = typer.Argument(None, help="only this bundle name"),
    registry: str | None = typer.Option(None, "--registry", help=REGISTRY_HELP),
    as_json: bool = typer.Option(False, "--json", help="print the entries as a JSON list"),
) -> None:
    """List published bundles: name, version, digest, size, publish time."""
    from pipeline.registry.registry import Registry, RegistryError

    try:
        entries = Registry(registry).entries(name)
    except RegistryError as exc:
        fail(str(exc), registry_code(exc))
    if as_json:
        emit_json([e.as_dict() for e in entries])
        return
    if not entries:
        err.print("[dim]no bundles published[/]")
        return
    from rich.table import Table

    table = Table("name", "version", "digest", "size", "published")
    for e in entries:
        size = f"{e.size / 1e6:.1f} MB" if isinstance(e.size, int | float) else "?"
        table.add_row(plain(e.name), plain(e.version), e.digest[:19] + "…", size, plain(e.published_at))
    out.print(table)


def pull(
    ref: str = typer.Argument(..., help="name, name@latest, name@1.2.0 or name@sha256:…"),
    registry: str | None = typer.Option(None, "--registry", help=REGISTRY_HELP),
    to: Path | None = typer.Option(
        None, "--to", help="directory to pull into (default: $SYNTHENV_CACHE or ~/.cache/synthenv/bundles)"
    ),
    as_json: bool = typer.Option(False, "--json", help="print path, ref and digest as JSON"),
) -> None:
    """Fetch a bundle, verifying every digest; prints the directory Environment.from_bundle takes."""
    from pipeline.registry.registry import Registry, RegistryError

    try:
        reg = Registry(registry)
        entry = reg.resolve(ref)
        path = reg.pull(ref, to=to)
    except RegistryError as exc:
        fail(str(exc), registry_code(exc))
    if as_json:
        emit_json({"path": str(path), "ref": entry.ref, "digest": entry.digest, "registry": reg.url})
    else:
        out.print(plain(path), highlight=False)


def gc(
    registry: str | None = typer.Option(None, "--registry", help=REGISTRY_HELP),
    grace: float = typer.Option(
        3600.0, "--grace", min=0, help="spare blobs younger than this many seconds (publishes in flight)"
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="report what would be removed"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Remove blobs that no published version references, and abandoned uploads."""
    from pipeline.registry.registry import Registry, RegistryError

    try:
        report = Registry(registry).gc(grace_seconds=grace, dry_run=dry_run)
    except RegistryError as exc:
        fail(str(exc), registry_code(exc))
    if as_json:
        emit_json(report.as_dict())
        return
    verb = "would remove" if dry_run else "removed"
    out.print(
        f"{verb} {len(report.removed)} blobs ({report.freed_bytes / 1e6:.1f} MB), kept {report.kept}, "
        f"spared {report.spared_recent} recent, staging {report.staging_removed}"
    )
    for ref in report.broken:
        err.print(f"[yellow]warning:[/] {plain(ref)} references missing blobs")


def register(app: typer.Typer) -> None:
    app.command("publish")(publish)
    app.command("list")(list_bundles)
    app.command("pull")(pull)
    app.command("gc")(gc)
