"""Unpacking a bundle archive (``<name>-<version>.tar.gz``) without trusting it.

A bundle is flat, so its archive holds plain files only. Each member is checked as its
header arrives, before its data is read: a plain file name (:mod:`pipeline.bundle.names`),
a regular file (no links, directories, devices or FIFOs), not seen before, no more than
``max_members`` of them, and the running total of their sizes within ``max_bytes``, so a
gzip bomb stops at its first header over the limit without being inflated. Members are
then written by the standard library's ``data`` extraction filter into a scratch
directory beside the destination, which is renamed into place only once complete.
"""

from __future__ import annotations

import shutil
import tarfile
import tempfile
import zlib
from pathlib import Path

from pipeline.bundle.format import MANIFEST, BundleError
from pipeline.bundle.names import MAX_BUNDLE_BYTES_ENV, MAX_FILES, check_file_name, max_bundle_bytes, shown


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
    seen: set[str] = set()
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
                tar.extract(member, scratch, filter="data")
    except ArchiveError:
        raise
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise ArchiveError(f"{archive}: not a readable bundle archive ({str(exc)[:200]})") from None
