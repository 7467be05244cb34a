"""``synthenv publish | list | pull | gc``: the registry trainers pull environments from."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn, Optional

import typer
from rich.console import Console

err = Console(stderr=True, soft_wrap=True)
out = Console(soft_wrap=True)

REGISTRY_HELP = "registry directory or fsspec URL (default: $SYNTHENV_REGISTRY or artifacts/)"


def _emit_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, sort_keys=True, default=str) + "\n")


def _fail(message: str, code: int = 1) -> NoReturn:
    err.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(code)


def publish(
    bundle: Path = typer.Argument(..., help="bundle directory"),
    registry: Optional[str] = typer.Option(None, "--registry", help=REGISTRY_HELP),
    version: Optional[str] = typer.Option(None, "--version", help="publish as X.Y.Z (re-packages the bundle if it differs)"),
    bump: Optional[str] = typer.Option(None, "--bump", help="publish as the next major|minor|patch after the latest"),
    as_json: bool = typer.Option(False, "--json", help="print the index entry as JSON"),
) -> None:
    """Publish a bundle. Versions are immutable: the same content again is a no-op, other content is refused."""
    from pipeline.registry import Registry, RegistryError

    if version is not None and bump is not None:
        _fail("give --version or --bump, not both", 2)
    try:
        reg = Registry(registry)
        result = reg.publish(bundle, version=version, bump=bump)
    except ValueError as exc:
        _fail(str(exc), 2)
    except RegistryError as exc:
        _fail(str(exc))
    entry = result.entry
    if as_json:
        _emit_json({**entry.as_dict(), "created": result.created, "restamped": result.restamped, "registry": reg.url})
        return
    if result.created:
        note = " (re-packaged under this version)" if result.restamped else ""
        out.print(f"published [bold]{entry.ref}[/] {entry.digest} to {reg.url}{note}")
    else:
        out.print(f"[dim]already published:[/] [bold]{entry.ref}[/] {entry.digest} (nothing to do)")


def list_bundles(
    name: Optional[str] = typer.Argument(None, help="only this bundle name"),
    registry: Optional[str] = typer.Option(None, "--registry", help=REGISTRY_HELP),
    as_json: bool = typer.Option(False, "--json", help="print the entries as a JSON list"),
) -> None:
    """List published bundles: name, version, digest, size, publish time."""
    from pipeline.registry import Registry, RegistryError

    try:
        entries = Registry(registry).entries(name)
    except RegistryError as exc:
        _fail(str(exc))
    if as_json:
        _emit_json([e.as_dict() for e in entries])
        return
    if not entries:
        err.print("[dim]no bundles published[/]")
        return
    from rich.table import Table

    table = Table("name", "version", "digest", "size", "published")
    for e in entries:
        table.add_row(e.name, e.version, e.digest[:19] + "…", f"{e.size / 1e6:.1f} MB", e.published_at)
    out.print(table)


def pull(
    ref: str = typer.Argument(..., help="name, name@latest, name@1.2.0 or name@sha256:…"),
    registry: Optional[str] = typer.Option(None, "--registry", help=REGISTRY_HELP),
    to: Optional[Path] = typer.Option(None, "--to", help="directory to pull into (default: $SYNTHENV_CACHE or ~/.cache/synthenv/bundles)"),
    as_json: bool = typer.Option(False, "--json", help="print path, ref and digest as JSON"),
) -> None:
    """Fetch a bundle, verifying every digest; prints the directory Environment.from_bundle takes."""
    from pipeline.registry import Registry, RegistryError

    try:
        reg = Registry(registry)
        entry = reg.resolve(ref)
        path = reg.pull(ref, to=to)
    except RegistryError as exc:
        _fail(str(exc))
    if as_json:
        _emit_json({"path": str(path), "ref": entry.ref, "digest": entry.digest, "registry": reg.url})
    else:
        out.print(str(path))


def gc(
    registry: Optional[str] = typer.Option(None, "--registry", help=REGISTRY_HELP),
    grace: float = typer.Option(3600.0, "--grace", min=0, help="spare blobs younger than this many seconds (publishes in flight)"),
    dry_run: bool = typer.Option(False, "--dry-run", help="report what would be removed"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Remove blobs that no published version references, and abandoned uploads."""
    from pipeline.registry import Registry, RegistryError

    try:
        report = Registry(registry).gc(grace_seconds=grace, dry_run=dry_run)
    except RegistryError as exc:
        _fail(str(exc))
    if as_json:
        _emit_json(report.as_dict())
        return
    verb = "would remove" if dry_run else "removed"
    out.print(f"{verb} {len(report.removed)} blobs ({report.freed_bytes / 1e6:.1f} MB), kept {report.kept}, "
              f"spared {report.spared_recent} recent, staging {report.staging_removed}")
    for ref in report.broken:
        err.print(f"[yellow]warning:[/] {ref} references missing blobs")


def register(app: typer.Typer) -> None:
    app.command("publish")(publish)
    app.command("list")(list_bundles)
    app.command("pull")(pull)
    app.command("gc")(gc)
