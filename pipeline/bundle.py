"""The bundle: a content-addressed directory that is the unit of exchange.

``manifest.json`` lists every other file with its sha256; the bundle digest is the
sha256 of that file list (paths and hashes, canonical JSON), so it depends on contents
only. Loading re-hashes every file and refuses a bundle whose bytes differ from the
manifest, naming the file.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

MANIFEST = "manifest.json"
FORMAT_VERSION = 1


class BundleError(Exception):
    """A bundle is missing, malformed or does not match its manifest."""


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def pretty_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def digest_of(files: dict[str, str]) -> str:
    """The bundle digest: sha256 over the sorted file list, never over timestamps or paths outside."""
    return "sha256:" + hashlib.sha256(canonical_json(dict(sorted(files.items()))).encode()).hexdigest()


def write_bundle(directory: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    """Hash every file already in ``directory`` and write the manifest; returns it."""
    directory = Path(directory)
    files = {
        p.relative_to(directory).as_posix(): sha256_file(p)
        for p in sorted(directory.rglob("*"))
        if p.is_file() and p.name != MANIFEST
    }
    full = {**manifest, "format": FORMAT_VERSION, "files": files, "digest": digest_of(files)}
    (directory / MANIFEST).write_text(pretty_json(full), encoding="utf-8")
    return full


def write_archive(directory: Path, target: Path) -> Path:
    """A reproducible .tar.gz: sorted entries, zero times and owners, no gzip timestamp."""
    directory = Path(directory)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for p in sorted(directory.rglob("*")):
            if not p.is_file():
                continue
            info = tarfile.TarInfo(p.relative_to(directory).as_posix())
            info.size = p.stat().st_size
            info.mtime = 0
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            with p.open("rb") as fh:
                tar.addfile(info, fh)
    with target.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz:
        gz.write(buf.getvalue())
    return target


@dataclass(frozen=True)
class Bundle:
    """A verified bundle on disk."""

    path: Path
    manifest: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.manifest["name"])

    @property
    def version(self) -> str:
        return str(self.manifest["version"])

    @property
    def digest(self) -> str:
        return str(self.manifest["digest"])

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"

    def file(self, name: str) -> Path:
        return self.path / name

    def read_json(self, name: str) -> Any:
        return json.loads(self.file(name).read_text(encoding="utf-8"))

    def read_jsonl(self, name: str) -> list[Any]:
        with self.file(name).open(encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]

    @cached_property
    def state_bytes(self) -> bytes:
        from pipeline.runtime.session import serialise

        return serialise(self.file("state.sqlite"))


def load_bundle(path: str | Path, verify: bool = True) -> Bundle:
    """Open a bundle directory, checking every file against the manifest."""
    path = Path(path)
    manifest_path = path / MANIFEST
    if not manifest_path.is_file():
        raise BundleError(f"{path}: not a bundle (no {MANIFEST})")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BundleError(f"{manifest_path}: invalid JSON ({exc})") from None
    files = manifest.get("files")
    if not isinstance(files, dict) or "digest" not in manifest:
        raise BundleError(f"{manifest_path}: manifest lacks 'files' or 'digest'")
    if verify:
        if digest_of(files) != manifest["digest"]:
            raise BundleError(f"{manifest_path}: digest does not match the file list (manifest was edited)")
        for name, expected in sorted(files.items()):
            p = path / name
            if not p.is_file():
                raise BundleError(f"{path}: file {name} listed in the manifest is missing")
            if sha256_file(p) != expected:
                raise BundleError(f"{path}: file {name} was modified (sha256 does not match the manifest)")
        extra = sorted(
            p.relative_to(path).as_posix() for p in path.rglob("*")
            if p.is_file() and p.name != MANIFEST and p.relative_to(path).as_posix() not in files
        )
        if extra:
            raise BundleError(f"{path}: files not in the manifest: {', '.join(extra)}")
    return Bundle(path=path, manifest=manifest)


RUN_RECORD_SUFFIX = ".run.json"


def run_record_path(bundle_dir: str | Path) -> Path:
    """``<out>/<name>/<version>.run.json``: beside the bundle, outside its digest."""
    bundle_dir = Path(bundle_dir)
    return bundle_dir.parent / f"{bundle_dir.name}{RUN_RECORD_SUFFIX}"


def write_run_record(bundle_dir: str | Path, record: dict[str, Any]) -> Path:
    """Record run-specific facts (e.g. the flow run id) without touching the bundle's bytes.

    A bundle is a function of its inputs; which run produced it is not, so it lives in
    this sidecar, and ``publish`` copies it into the registry's index entry.
    """
    target = run_record_path(bundle_dir)
    target.write_text(pretty_json(record), encoding="utf-8")
    return target


def read_run_record(bundle_dir: str | Path) -> dict[str, Any]:
    """The sidecar's record, or an empty dict when there is none."""
    target = run_record_path(bundle_dir)
    if not target.is_file():
        return {}
    try:
        value = json.loads(target.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BundleError(f"{target}: invalid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise BundleError(f"{target}: a run record is a JSON object")
    return value
