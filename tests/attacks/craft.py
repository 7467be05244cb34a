"""Crafting hostile bundles and registries by hand.

Each test in this directory reproduces one attack (README.md lists them). A crafted
bundle is *sealed*: its manifest is re-hashed the way the code under test hashes it, so
the attack is a bundle its publisher could really have produced, not a merely damaged one.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pipeline.bundle import format as fmt

MANIFEST = "manifest.json"


def read_manifest(bundle: Path) -> dict[str, Any]:
    return json.loads((bundle / MANIFEST).read_text(encoding="utf-8"))


def write_manifest(bundle: Path, manifest: dict[str, Any]) -> None:
    (bundle / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True), encoding="utf-8")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def seal(bundle: Path, manifest: dict[str, Any] | None = None, rehash: bool = True) -> dict[str, Any]:
    """Write ``manifest`` (default: the bundle's own) with a digest that matches it.

    ``rehash`` recomputes the hash of every file the manifest lists that exists in the
    bundle directory; listed names that are not there (or lie outside it) keep theirs.
    """
    manifest = dict(manifest if manifest is not None else read_manifest(bundle))
    if rehash:
        files = dict(manifest["files"])
        sizes = dict(manifest.get("sizes") or {})
        for name in files:
            p = bundle / name
            if p.is_file() and not name.startswith(("/", "..")):
                files[name] = fmt.sha256_file(p)
                sizes[name] = p.stat().st_size
        manifest["files"] = files
        if "sizes" in manifest:
            manifest["sizes"] = sizes
    sealer = getattr(fmt, "seal_manifest", None)
    if sealer is not None:
        manifest = sealer(manifest)
    else:  # the scheme before the digest covered the manifest: only the file list counted
        manifest["digest"] = fmt.digest_of(manifest["files"])
    write_manifest(bundle, manifest)
    return manifest


def add_file(bundle: Path, name: str, data: bytes, where: Path | None = None) -> dict[str, Any]:
    """List ``name`` in the manifest with the hash of ``data``, placed at ``where`` (default: bundle/name)."""
    target = where if where is not None else bundle / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    manifest = read_manifest(bundle)
    manifest["files"] = {**manifest["files"], name: sha256_bytes(data)}
    if "sizes" in manifest:
        manifest["sizes"] = {**manifest["sizes"], name: len(data)}
    return seal(bundle, manifest, rehash=False)


def plant_entry(
    registry_root: Path, manifest_bytes: bytes, blobs: dict[str, bytes], entry: dict[str, Any], path: str | None = None
) -> Path:
    """Write blobs and an index entry into a local registry by hand (what a hostile registry serves)."""
    blob_dir = registry_root / "blobs" / "sha256"
    blob_dir.mkdir(parents=True, exist_ok=True)
    for data in [manifest_bytes, *blobs.values()]:
        (blob_dir / sha256_bytes(data)).write_bytes(data)
    rel = path or f"refs/{entry['name']}/{entry['version']}.json"
    target = registry_root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(entry, indent=2, sort_keys=True), encoding="utf-8")
    return target


def entry_for(manifest: dict[str, Any], manifest_bytes: bytes, **override: Any) -> dict[str, Any]:
    base = {
        "name": manifest["name"],
        "version": manifest["version"],
        "digest": manifest["digest"],
        "manifest": "sha256:" + sha256_bytes(manifest_bytes),
        "files": len(manifest["files"]) + 1,
        "size": 0,
        "published_at": "2026-01-01T00:00:00+00:00",
    }
    return {**base, **override}


def files_under(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}
