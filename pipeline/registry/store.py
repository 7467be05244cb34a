"""The registry's storage primitives over any fsspec filesystem.

Only three operations need care, and each is written once here:

* ``put_blob``: a content-addressed blob appears whole or not at all (staged, then moved).
* ``create_exclusive``: an index entry is created once and never overwritten; the loser
  of a race gets ``FileExistsError``. On a local directory this is ``os.link`` of a
  complete staged file (atomic on POSIX). Elsewhere it is fsspec's ``mode="create"``,
  which is atomic where the backend implements it (memory; s3fs with conditional writes)
  and check-then-write on backends that do not.
* ``age_seconds``: how old a blob is, so garbage collection can spare a publish in flight.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import fsspec
from fsspec.implementations.local import LocalFileSystem

STAGING = ".staging"


class Store:
    """A registry root: an fsspec filesystem and a path inside it."""

    def __init__(self, url: str) -> None:
        fs, root = fsspec.core.url_to_fs(url)
        self.url = url
        self.fs: fsspec.AbstractFileSystem = fs
        self.local = isinstance(fs, LocalFileSystem)
        self.root = str(Path(root).resolve()) if self.local else root.rstrip("/")

    def path(self, *parts: str) -> str:
        return "/".join((self.root, *parts))

    def exists(self, path: str) -> bool:
        return bool(self.fs.exists(path))

    def read_bytes(self, path: str) -> bytes:
        return bytes(self.fs.cat_file(path))

    def open_read(self, path: str) -> BinaryIO:
        return self.fs.open(path, "rb")  # type: ignore[no-any-return]

    def glob(self, pattern: str) -> list[str]:
        return sorted(str(p) for p in self.fs.glob(pattern))

    def _staging_path(self) -> str:
        return self.path(STAGING, uuid.uuid4().hex)

    def put_blob(self, source: Path, target: str) -> None:
        """Copy a local file to ``target`` so that readers never see a partial blob."""
        self._staged_write(target, lambda staged: self.fs.put_file(str(source), staged))

    def put_bytes(self, data: bytes, target: str) -> None:
        self._staged_write(target, lambda staged: self.fs.pipe_file(staged, data))

    def _staged_write(self, target: str, write: Callable[[str], None]) -> None:
        """Write into the staging area, then move into place in one step."""
        staged = self._staging_path()
        self.fs.makedirs(self.path(STAGING), exist_ok=True)
        self.fs.makedirs(self.fs._parent(target), exist_ok=True)
        try:
            write(staged)
            if self.local:
                os.replace(staged, target)
            else:
                self.fs.mv(staged, target)
        except BaseException:
            self._discard(staged)
            raise

    def create_exclusive(self, target: str, data: bytes) -> None:
        """Write ``target`` once; raise ``FileExistsError`` if anyone (even concurrently) did first."""
        self.fs.makedirs(self.fs._parent(target), exist_ok=True)
        if not self.local:
            self.fs.pipe_file(target, data, mode="create")
            return
        staged = self._staging_path()
        os.makedirs(self.path(STAGING), exist_ok=True)
        try:
            with open(staged, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            try:
                os.link(staged, target)  # atomic and never overwrites: EEXIST if it is there
            except FileExistsError:
                raise
            except OSError:  # a filesystem without hard links: exclusive create, then write
                with open(target, "xb") as fh:
                    fh.write(data)
        finally:
            self._discard(staged)

    def remove(self, path: str) -> None:
        self.fs.rm_file(path)

    def _discard(self, path: str) -> None:
        try:
            if self.fs.exists(path):
                self.fs.rm_file(path)
        except OSError:
            pass

    def size(self, path: str) -> int:
        return int(self.fs.size(path) or 0)

    def age_seconds(self, path: str) -> float | None:
        """Seconds since ``path`` was last modified, or None when the backend cannot tell."""
        try:
            modified: Any = self.fs.modified(path)
        except (NotImplementedError, OSError, KeyError):
            return None
        if not isinstance(modified, datetime.datetime):
            return None
        if modified.tzinfo is None:
            modified = modified.replace(tzinfo=datetime.UTC)
        return (datetime.datetime.now(datetime.UTC) - modified).total_seconds()


def copy_verified(stream: BinaryIO, target: Path, expected_sha256: str, expected_size: int | None = None) -> None:
    """Stream a blob to a new local file, hashing on the way; raise ValueError on a mismatch.

    With ``expected_size`` the copy stops as soon as the blob runs past it, so a hostile
    registry cannot fill the disk with a blob that would fail its hash only at the end.
    The target is created exclusively and never through a link.
    """
    h = hashlib.sha256()
    written = 0
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    with os.fdopen(fd, "wb") as out:
        for chunk in _chunks(stream):
            written += len(chunk)
            if expected_size is not None and written > expected_size:
                raise ValueError(f"blob sha256:{expected_sha256} is larger than its declared {expected_size} bytes")
            h.update(chunk)
            out.write(chunk)
    if h.hexdigest() != expected_sha256:
        raise ValueError(
            f"blob sha256:{expected_sha256} is corrupt in the registry (its bytes hash to sha256:{h.hexdigest()})"
        )


def _chunks(stream: BinaryIO, size: int = 1 << 20) -> Iterator[bytes]:
    while chunk := stream.read(size):
        yield chunk
