"""Unpacking a bundle archive (``<name>-<version>.tar.gz``) without trusting it.

A bundle is flat, so its archive holds plain files only. Unpacking takes two passes over
the stream. The first writes nothing: each member is checked as its header arrives (a
plain file name (:mod:`pipeline.bundle.names`), a regular file (no links, directories,
devices or FIFOs), not seen before, no more than ``max_members`` of them, the running total
of their sizes within ``max_bytes``), the manifest is read, and every other member must be
one it lists, of the size it lists. A gzip bomb (a member inflating far past what the
manifest says) is thus refused having cost one inflation and no disk. The second pass
writes the same members, each exactly its checked size, through the standard library's
``data`` extraction filter into a scratch directory beside the destination, which is
renamed into place only once complete."""

from __future__ import annotations

import json
import shutil
import tarfile
import tempfile
import zlib
from pathlib import Path

from pipeline.bundle.format import MANIFEST, BundleError
from pipeline.bundle.names import (
    MAX_BUNDLE_BYTES_ENV,
    MAX_FILES,
    MAX_MANIFEST_BYTES,
    check_file_name,
    max_bundle_bytes,
    shown,
)


class ArchiveError(BundleError):
    """An archive is malformed, holds something a bundle cannot, or is over a limit."""


def _check_member(member: tarfile.TarInfo, seen: set[str]) -> None:
    try:
        if member.name != MANIFEST:
            check_file_name(member.name)
    except ValueError as exc:
        raise ArchiveError(f"member {shown(member.name)}: {exc}") from None
    if not member.isreg():
        kind = "link" if member.issym() or member.islnk() else "directory" if member.isdir() else "special file"
        raise ArchiveError(f"member {shown(member.name)} is a {kind}; a bundle archive holds plain files only")
    if member.name in seen:
        raise ArchiveError(f"member {shown(member.name)} appears twice")
    seen.add(member.name)


def extract_archive(
    archive: str | Path, dest: str | Path, *, max_bytes: int | None = None, max_members: int = MAX_FILES + 1
) -> Path:
    """Unpack ``archive`` into ``dest`` (which must not exist or be empty) and return ``dest``.

    ``max_bytes`` defaults to :func:`pipeline.bundle.names.max_bundle_bytes` (16 GiB, or
    ``$SYNTHENV_MAX_BUNDLE_BYTES``). Nothing is written outside a scratch directory beside
    ``dest``; on any refusal it is removed and ``dest`` is left as it was.
    """
    archive, dest = Path(archive), Path(dest)
    limit = max_bundle_bytes() if max_bytes is None else max_bytes
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise ArchiveError(f"{dest} exists and is not an empty directory")
    dest.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{dest.name}-unpack-", dir=dest.parent))
    try:
        _extract(archive, scratch, limit, max_members)
        if dest.exists():
            dest.rmdir()
        scratch.rename(dest)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return dest


def _extract(archive: Path, scratch: Path, limit: int, max_members: int) -> None:
    declared = _survey(archive, limit, max_members)
    try:
        with tarfile.open(archive, mode="r:*") as tar:
            for member in tar:
                if declared.get(member.name, -1) != member.size or not member.isreg():
                    raise ArchiveError(f"{archive}: changed while it was being unpacked")
                declared.pop(member.name)
                tar.extract(member, scratch, filter="data")
    except ArchiveError:
        raise
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise ArchiveError(f"{archive}: not a readable bundle archive ({str(exc)[:200]})") from None
    if declared:
        raise ArchiveError(f"{archive}: changed while it was being unpacked")


def _survey(archive: Path, limit: int, max_members: int) -> dict[str, int]:
    """Every member's name and declared size, checked before anything is written (returned).

    Headers are read in one pass that writes nothing (it inflates the stream, which costs
    time, not disk): each member is a plain file within the limits above, the archive holds
    a manifest, and every other member is one the manifest lists, of the size it lists. So
    a bomb (a member inflating far past what the sealed manifest says) is refused before its
    first byte reaches the disk, and :func:`_extract` then writes at most the manifest's sizes.
    """
    seen: set[str] = set()
    sizes: dict[str, int] = {}
    manifest: bytes | None = None
    total = 0
    try:
        with tarfile.open(archive, mode="r:*") as tar:
            while (member := tar.next()) is not None:
                if len(seen) >= max_members:
                    raise ArchiveError(f"{archive}: more than {max_members} members; a bundle has at most {MAX_FILES}")
                _check_member(member, seen)
                total += member.size
                if total > limit:
                    raise ArchiveError(
                        f"{archive}: member {shown(member.name)} takes the unpacked size past the limit of "
                        f"{limit} bytes (set {MAX_BUNDLE_BYTES_ENV} to raise it)"
                    )
                sizes[member.name] = member.size
                if member.name == MANIFEST:
                    if member.size > MAX_MANIFEST_BYTES:
                        raise ArchiveError(
                            f"{archive}: {MANIFEST} declares {member.size} bytes; the limit is {MAX_MANIFEST_BYTES}"
                        )
                    handle = tar.extractfile(member)
                    manifest = handle.read(MAX_MANIFEST_BYTES + 1) if handle is not None else b""
    except ArchiveError:
        raise
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise ArchiveError(f"{archive}: not a readable bundle archive ({str(exc)[:200]})") from None
    if manifest is None:
        raise ArchiveError(f"{archive}: no {MANIFEST} member; a bundle archive holds its manifest")
    _check_against_manifest(archive, manifest, sizes)
    return sizes


def _check_against_manifest(archive: Path, raw: bytes, sizes: dict[str, int]) -> None:
    try:
        manifest = json.loads(raw)
    except ValueError as exc:
        raise ArchiveError(f"{archive}: {MANIFEST} is not JSON ({exc})") from None
    listed = manifest.get("files") if isinstance(manifest, dict) else None
    listed_sizes = manifest.get("sizes") if isinstance(manifest, dict) else None
    if not isinstance(listed, dict):
        raise ArchiveError(f"{archive}: {MANIFEST} lists no files")
    for name, size in sizes.items():
        if name == MANIFEST:
            continue
        if name not in listed:
            raise ArchiveError(f"{archive}: member {shown(name)} is not one the manifest lists")
        want = listed_sizes.get(name) if isinstance(listed_sizes, dict) else None
        if want is not None and want != size:
            raise ArchiveError(
                f"{archive}: member {shown(name)} declares {size} bytes; the manifest lists {shown(want)}"
            )
