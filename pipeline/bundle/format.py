"""The bundle: a content-addressed directory that is the unit of exchange.

``manifest.json`` lists every other file with its sha256 and size, and records the
sha256 of each of its own fields. The bundle digest is the sha256 of the canonical
serialisation of the whole manifest except the digest itself, so it covers everything a
consumer reads: every file and every manifest field (name, version, seed, frozen clock,
reward weights, …). Loading refuses a bundle whose bytes differ from its manifest, naming
the file or the field, and refuses anything a bundle cannot hold: names that are not
plain file names, links, directories, special files, files the manifest does not list.

Format 2 (this one) replaced format 1, whose digest covered only the file list: a format
1 manifest could be edited freely, so it is refused rather than read.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import sqlite3
import stat
import tarfile
import tempfile
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

from pipeline.bundle.manifest import Manifest, ManifestBase, ManifestError, manifest_from
from pipeline.bundle.names import (
    DIGEST,
    MAX_FILES,
    MAX_MANIFEST_BYTES,
    SHA256_HEX,
    check_bundle_name,
    check_file_name,
    check_version,
    max_bundle_bytes,
    shown,
)

MANIFEST = "manifest.json"
FORMAT_VERSION = 2


class BundleError(Exception):
    """A bundle is missing, malformed or does not match its manifest."""


def pretty_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def _hashable(value: Any) -> bytes:
    """The canonical bytes a digest is taken over: ASCII, sorted keys, no NaN or infinity."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode("ascii")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def parse_manifest(raw: bytes | str, where: str) -> dict[str, Any]:
    """A manifest's JSON, strictly: an object, no NaN/Infinity, bounded size and nesting."""
    if len(raw) > MAX_MANIFEST_BYTES:
        raise BundleError(f"{where}: {MANIFEST} is {len(raw)} bytes; the limit is {MAX_MANIFEST_BYTES} bytes")
    try:
        value = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise BundleError(f"{where}: {MANIFEST} is not valid JSON ({str(exc)[:200]})") from None
    if not isinstance(value, dict):
        raise BundleError(f"{where}: {MANIFEST} must be a JSON object, got {type(value).__name__}")
    return value


IMAGE_LIMIT = int(os.environ.get("SYNTHENV_IMAGE_LIMIT", 256 << 20))
"""States larger than this (bytes) stay files (:class:`StateFile`) instead of in-memory images.

SQLite refuses to grow an image loaded with ``deserialize`` (or any ``memdb`` database) past
1 GiB and cannot serialise one of 2 GiB at all; below the limit an image is the faster copy.
``$SYNTHENV_IMAGE_LIMIT`` sets it (tests set it low to run small states through the file path)."""


class StateFile(bytes):
    """A state kept as a file, standing where its serialised image would.

    Every function that hands a state along takes ``bytes``; this subclass keeps those
    signatures while holding no SQLite data: its value is the file's identity (path, size,
    modification time, inode), so two handles on the same unchanged file compare equal.
    ``pipeline.tools.executor.open_copy`` opens a private copy of it (:meth:`copy`) and the
    runtime's sessions share one file-backed base (``pipeline.runtime.session``). The file must
    not change while handles on it live: :meth:`check` refuses one that did.
    """

    path: Path

    def __new__(cls, path: str | Path) -> StateFile:
        resolved = Path(path).resolve()
        st = resolved.stat()
        with resolved.open("rb") as fh:
            header = fh.read(100)
        if not header.startswith(b"SQLite format 3\x00") or header[18:20] != b"\x01\x01":
            raise BundleError(f"{resolved}: not a SQLite database in rollback-journal mode")
        self = super().__new__(cls, f"state-file:{resolved}:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}".encode())
        self.path = resolved
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (StateFile, (self.path,))

    def check(self) -> None:
        """Refuse a file that changed since this handle was taken (a copy would not be the state)."""
        if StateFile(self.path) != self:
            raise BundleError(f"{self.path} changed while in use as a state")

    def copy(self, to: Path | None = None) -> sqlite3.Connection:
        """A private read-write copy, autocommit, journal in memory.

        Without ``to`` the copy is a temporary file unlinked at once: the connection holds the only
        reference, so its disk space returns when the connection closes, even after a crash.
        """
        self.check()
        if to is None:
            fd, name = tempfile.mkstemp(prefix="synthenv-copy-", suffix=".sqlite")
            os.close(fd)
            target = Path(name)
        else:
            target = to
        try:
            shutil.copyfile(self.path, target)
            return open_state_file(target)
        finally:
            if to is None:
                target.unlink()


def open_state_file(path: Path, *, readonly: bool = False, nolock: bool = False) -> sqlite3.Connection:
    """A connection to a state file, autocommit.

    ``readonly`` opens it immutable (no locks, no change checks: nothing may write it); otherwise
    the journal is kept in memory, so no journal file appears beside it and it may be unlinked
    while open. ``nolock``: connections do not lock each other out (the runtime's sessions, which
    never commit). Reads go through the OS page cache, one copy for every connection; a memory
    map measured no faster for sessions (whose read transactions each remap) and would count the
    mapped state in every process's resident set.
    """
    query = "?mode=ro&immutable=1" if readonly else "?nolock=1" if nolock else ""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}{query}", uri=True, check_same_thread=False, isolation_level=None)
    if not readonly:
        try:
            conn.execute("PRAGMA journal_mode = MEMORY")
        except BaseException:
            conn.close()
            raise
    return conn


def serialise(path: Path) -> bytes:
    """The bytes of a SQLite file as SQLite itself serialises it (read-only, immutable open), or,
    over :data:`IMAGE_LIMIT`, a :class:`StateFile` on it."""
    if Path(path).stat().st_size > IMAGE_LIMIT:
        return StateFile(path)
    src = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        return src.serialize()
    finally:
        src.close()


def sha256_file(path: Path) -> str:
    """sha256 of a regular file, opened without following a symbolic link."""
    h = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def manifest_digest(manifest: dict[str, Any]) -> str:
    """The bundle digest: sha256 over the canonical manifest minus its ``digest`` field."""
    body = {k: v for k, v in manifest.items() if k != "digest"}
    try:
        return "sha256:" + hashlib.sha256(_hashable(body)).hexdigest()
    except (ValueError, TypeError) as exc:
        raise BundleError(f"the manifest cannot be hashed canonically ({str(exc)[:200]})") from None


def _field_hashes(body: dict[str, Any]) -> dict[str, str]:
    try:
        return {k: hashlib.sha256(_hashable(v)).hexdigest() for k, v in body.items()}
    except (ValueError, TypeError) as exc:
        raise BundleError(f"the manifest cannot be hashed canonically ({str(exc)[:200]})") from None


def seal_manifest(manifest: dict[str, Any]) -> dict[str, Any]:
    """``manifest`` with ``fields`` (sha256 of each field) and ``digest`` recomputed from its content."""
    body = {k: v for k, v in manifest.items() if k not in ("fields", "digest")}
    sealed = {**body, "fields": _field_hashes(body)}
    sealed["digest"] = manifest_digest(sealed)
    return sealed


def _bundle_entries(directory: Path) -> list[os.DirEntry[str]]:
    with os.scandir(directory) as it:
        return sorted(it, key=lambda e: e.name)


def write_bundle(directory: Path, manifest: Manifest | Mapping[str, Any]) -> Manifest:
    """Hash every file already in ``directory`` and write the sealed manifest; returns it.

    The manifest is checked against its model first, so no bundle is written that would not load.
    """
    directory = Path(directory)
    if not isinstance(manifest, ManifestBase):
        manifest = model_of(dict(manifest), str(directory))
    files: dict[str, str] = {}
    sizes: dict[str, int] = {}
    for entry in _bundle_entries(directory):
        if entry.name == MANIFEST:
            continue
        try:
            check_file_name(entry.name)
        except ValueError as exc:
            raise BundleError(f"{directory}: {exc}") from None
        if not entry.is_file(follow_symlinks=False):
            raise BundleError(f"{directory}: {entry.name} is not a regular file; a bundle holds only plain files")
        files[entry.name] = sha256_file(Path(entry.path))
        sizes[entry.name] = entry.stat(follow_symlinks=False).st_size
    content = manifest.content()
    try:
        check_bundle_name(manifest.name)
        check_version(manifest.version)
    except ValueError as exc:
        raise BundleError(str(exc)) from None
    full = seal_manifest({**content, "format": FORMAT_VERSION, "files": files, "sizes": sizes})
    (directory / MANIFEST).write_text(pretty_json(full), encoding="utf-8")
    return model_of(full, str(directory))


def model_of(data: dict[str, Any], where: str) -> Manifest:
    """The typed manifest of a JSON object, or :class:`BundleError` naming the fields that do not fit.

    The model must give back exactly the object it was read from (same fields, same values, same
    number types): the digest was taken over that object, and readers read the model.
    """
    try:
        model = manifest_from(data)
    except ManifestError as exc:
        raise BundleError(f"{where}: {exc}") from None
    try:
        same = _hashable(model.as_dict()) == _hashable(data)
    except (ValueError, TypeError) as exc:
        raise BundleError(f"{where}: the manifest cannot be hashed canonically ({str(exc)[:200]})") from None
    if not same:
        raise BundleError(f"{where}: the manifest does not read back as it was written (a field changed type)")
    return model


def read_manifest(raw: bytes | str, where: str, verify: bool = True) -> Manifest:
    """A manifest file's bytes as its model: parsed strictly, its seal checked (``verify``), then typed."""
    data = parse_manifest(raw, where)
    if verify:
        check_manifest(data, where)
    return model_of(data, where)


ARCHIVE_GZIP_LEVEL = 5
"""gzip level of bundle archives: level 9 took 4.4x the CPU of level 6 on a 27 MB state for 0.5 %
smaller output, and level 6 took 1.7x the compression CPU of level 5 on a 48 MB state (1.55 s
against 0.92 s) for 1.8 % smaller output; compressing the state was most of the package step.
The bundle digest covers the files, never the archive's bytes, so this level moves no digest."""


def archive_path(directory: Path, name: str, version: str) -> Path:
    """Where the bundle directory ``<out>/<name>/<version>`` keeps its archive:
    ``<out>/<name>/<name>-<version>.tar.gz``."""
    return Path(directory).parent / f"{name}-{version}.tar.gz"


def write_archive(directory: Path, target: Path) -> Path:
    """A reproducible .tar.gz: sorted entries, zero times and owners, no gzip timestamp.

    Only the bundle's own plain files go in (never what a link points to). The tar stream
    goes straight into the compressor, so a large state is never held in memory twice.
    """
    directory = Path(directory)
    with (
        target.open("wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="", compresslevel=ARCHIVE_GZIP_LEVEL) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for entry in _bundle_entries(directory):
            if not entry.is_file(follow_symlinks=False):
                continue
            info = tarfile.TarInfo(entry.name)
            info.size = entry.stat(follow_symlinks=False).st_size
            info.mtime = 0
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            with open(entry.path, "rb") as fh:
                tar.addfile(info, fh)
    return target


def check_manifest(manifest: dict[str, Any], where: str) -> None:
    """Refuse a manifest that is malformed, names unsafe files, or was edited after sealing.

    The message names what is wrong: the field that was edited, added or removed, or the
    file name that is not allowed. Used on load and on pull (before anything is written).
    """
    version = manifest.get("format")
    if version != FORMAT_VERSION:
        raise BundleError(
            f"{where}: bundle format {shown(version)} is not accepted; this synthenv reads format "
            f"{FORMAT_VERSION}, whose digest covers the manifest (regenerate or re-publish the bundle)"
        )
    files, sizes, fields = manifest.get("files"), manifest.get("sizes"), manifest.get("fields")
    if not isinstance(files, dict) or not isinstance(sizes, dict) or not isinstance(fields, dict):
        raise BundleError(f"{where}: the manifest lacks 'files', 'sizes' or 'fields'")
    digest = manifest.get("digest")
    if not isinstance(digest, str) or not DIGEST.match(digest):
        raise BundleError(f"{where}: the manifest's 'digest' is not sha256:<64 hex>")
    if len(files) > MAX_FILES:
        raise BundleError(f"{where}: the manifest lists {len(files)} files; a bundle holds at most {MAX_FILES}")
    try:
        check_bundle_name(manifest.get("name"))
        check_version(manifest.get("version"))
        for name, sha in files.items():
            check_file_name(name)
            if not isinstance(sha, str) or not SHA256_HEX.match(sha):
                raise ValueError(f"file {shown(name)}: its sha256 must be 64 lowercase hex digits, got {shown(sha)}")
    except ValueError as exc:
        raise BundleError(f"{where}: {exc}") from None
    if set(sizes) != set(files) or not all(type(n) is int and n >= 0 for n in sizes.values()):
        raise BundleError(f"{where}: 'sizes' must give a byte count for every listed file")
    limit = max_bundle_bytes()
    if sum(sizes.values()) > limit:
        raise BundleError(f"{where}: the bundle is {sum(sizes.values())} bytes; the limit is {limit} bytes")
    body = {k: v for k, v in manifest.items() if k not in ("fields", "digest")}
    actual = _field_hashes(body)
    for key in sorted(set(actual) | set(fields), key=str):
        if key not in fields:
            raise BundleError(f"{where}: manifest field {shown(key)} was added after the bundle was sealed")
        if key not in actual:
            raise BundleError(f"{where}: manifest field {shown(key)} was removed after the bundle was sealed")
        if fields[key] != actual[key]:
            what = "the file list" if key == "files" else f"manifest field {shown(key)}"
            raise BundleError(f"{where}: {what} was modified after the bundle was sealed ('{key}' does not match)")
    if manifest_digest(manifest) != digest:
        raise BundleError(
            f"{where}: the digest does not match the manifest (the digest or the field hashes were edited)"
        )


class Bundle:
    """A verified bundle on disk: its directory and its typed manifest.

    ``manifest`` may be given as its JSON object (a draft built in memory); it is read into its
    model then, so every reader gets the model.
    """

    path: Path
    manifest: Manifest

    def __init__(self, path: Path, manifest: Manifest | Mapping[str, Any]) -> None:
        self.path = Path(path)
        self.manifest = manifest if isinstance(manifest, ManifestBase) else model_of(dict(manifest), str(path))

    def __repr__(self) -> str:
        return f"Bundle(path={str(self.path)!r}, ref={self.ref!r}, digest={self.digest!r})"

    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def version(self) -> str:
        return self.manifest.version

    @property
    def digest(self) -> str:
        return self.manifest.digest

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"

    def file(self, name: str) -> Path:
        return self.path / name

    def read_json(self, name: str) -> Any:
        try:
            return json.loads(self.file(name).read_text(encoding="utf-8"))
        except (ValueError, RecursionError) as exc:
            raise BundleError(f"{self.path}: {name} is not valid JSON ({str(exc)[:200]})") from None

    def read_jsonl(self, name: str) -> list[Any]:
        try:
            with self.file(name).open(encoding="utf-8") as fh:
                return [json.loads(line) for line in fh if line.strip()]
        except (ValueError, RecursionError) as exc:
            raise BundleError(f"{self.path}: {name} is not valid JSON lines ({str(exc)[:200]})") from None

    @cached_property
    def state_bytes(self) -> bytes:
        return serialise(self.file("state.sqlite"))


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISREG(mode):
        return "a file"
    return "a special file"


def _check_files(path: Path, manifest: Manifest) -> None:
    """Every listed file is there, a plain file of the listed size and hash; nothing else is."""
    files, sizes = manifest.files, manifest.sizes
    extra = []
    for entry in _bundle_entries(path):
        if entry.name == MANIFEST or entry.name in files:
            continue
        extra.append(f"{shown(entry.name)} ({_kind(entry.stat(follow_symlinks=False).st_mode)})")
    if extra:
        raise BundleError(f"{path}: not in the manifest: {', '.join(extra)}; a bundle holds only its listed files")
    for name, expected in sorted(files.items()):
        p = path / name
        try:
            mode = p.lstat()
        except FileNotFoundError:
            raise BundleError(f"{path}: file {name} listed in the manifest is missing") from None
        if not stat.S_ISREG(mode.st_mode):
            raise BundleError(f"{path}: {name} is {_kind(mode.st_mode)}; a bundle holds only plain files")
        if mode.st_size != sizes[name] or sha256_file(p) != expected:
            raise BundleError(f"{path}: file {name} was modified (sha256 does not match the manifest)")


def load_bundle(path: str | Path, verify: bool = True) -> Bundle:
    """Open a bundle directory, checking the manifest and every file against it."""
    path = Path(path)
    manifest_path = path / MANIFEST
    try:
        info = manifest_path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        raise BundleError(f"{path}: not a bundle (no {MANIFEST})") from None
    if not stat.S_ISREG(info.st_mode):
        raise BundleError(f"{path}: {MANIFEST} is {_kind(info.st_mode)}, not a file")
    if info.st_size > MAX_MANIFEST_BYTES:
        raise BundleError(f"{path}: {MANIFEST} is {info.st_size} bytes; the limit is {MAX_MANIFEST_BYTES} bytes")
    data = parse_manifest(manifest_path.read_bytes(), str(manifest_path))
    if verify:
        check_manifest(data, str(path))
    manifest = model_of(data, str(path))
    if verify:
        _check_files(path, manifest)
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
