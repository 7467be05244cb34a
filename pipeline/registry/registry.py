"""A registry of bundles that trainers pull from: a local directory or any fsspec URL.

Layout under the registry root (``artifacts/`` by default, or ``file://…``, ``s3://…``)::

    blobs/sha256/<hex>            every bundle file, manifest.json included, by its sha256
    refs/<name>/<version>.json    the index entry of one published version (immutable)
    .staging/                     uploads in progress (never read; cleaned by gc)

A publish uploads the blobs first and creates the index entry last, exclusively: until
that entry exists nothing is visible, so a killed publish leaves only unreferenced blobs
(``gc`` removes them), and two publishers of the same version cannot both win. There is
no shared index file to rewrite, hence nothing two concurrent publishers could corrupt.

Run-specific facts (publish time, the flow run id that produced the bundle) live in the
index entry, not in the bundle: equal inputs keep giving byte-identical bundles.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from pipeline.bundle.archive import extract_archive
from pipeline.bundle.format import (
    MANIFEST,
    Bundle,
    BundleError,
    Manifest,
    load_bundle,
    pretty_json,
    read_manifest,
    read_run_record,
)
from pipeline.bundle.names import (
    BUNDLE_NAME,
    DIGEST,
    MAX_MANIFEST_BYTES,
    check_bundle_name,
    check_version,
    shown,
)
from pipeline.bundle.versions import bump as bump_version
from pipeline.bundle.versions import latest, parse_version
from pipeline.package.build import restamp
from pipeline.registry.advice import republish_advice
from pipeline.registry.entries import Entry, GcReport, PublishResult, Ref, RegistryError
from pipeline.registry.store import Store, copy_verified

DEFAULT_REGISTRY = "artifacts"
REGISTRY_ENV = "SYNTHENV_REGISTRY"
CACHE_ENV = "SYNTHENV_CACHE"
DEFAULT_GRACE_SECONDS = 3600.0

_NAME = BUNDLE_NAME
_DIGEST = DIGEST


def default_registry() -> str:
    return os.environ.get(REGISTRY_ENV) or DEFAULT_REGISTRY


def default_cache() -> Path:
    """Where pulled bundles land unless told otherwise."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "synthenv" / "bundles"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


class Registry:
    """Bundles by name, version and digest on one fsspec filesystem."""

    def __init__(self, url: str | os.PathLike[str] | None = None) -> None:
        self.url = str(url) if url is not None else default_registry()
        try:
            self.store = Store(self.url)
        except (ValueError, ImportError) as exc:
            raise RegistryError(f"cannot open registry {self.url!r}: {exc}") from None

    # -- paths -----------------------------------------------------------------------
    def _blob(self, hexdigest: str) -> str:
        return self.store.path("blobs", "sha256", hexdigest)

    def _entry_path(self, name: str, version: str) -> str:
        return self.store.path("refs", name, f"{version}.json")

    # -- reading ---------------------------------------------------------------------
    def _read_entry(self, path: str) -> Entry:
        """An index entry, which must sit at ``refs/<its name>/<its version>.json``."""
        try:
            data = json.loads(self._read_bounded(path, MAX_MANIFEST_BYTES, "index entry"))
        except (ValueError, RecursionError) as exc:
            raise RegistryError(f"{path}: corrupt index entry ({str(exc)[:200]})") from None
        entry = Entry.from_dict(data, path)
        if path != self._entry_path(entry.name, entry.version):
            *_, folder, file = path.split("/")
            raise RegistryError(
                f"{path}: the index entry at {folder}/{file} describes {entry.ref}; an entry moved or copied "
                "to another name or version is refused"
            )
        return entry

    def _read_bounded(self, path: str, limit: int, what: str) -> bytes:
        with self.store.open_read(path) as stream:
            data = stream.read(limit + 1)
        if len(data) > limit:
            raise RegistryError(f"{path}: the {what} is over the limit of {limit} bytes")
        return bytes(data)

    def entries(self, name: str | None = None) -> list[Entry]:
        """Every published version (of ``name``), sorted by name then semver."""
        if name is not None and not _NAME.match(name):
            raise RegistryError(f"bad bundle name {shown(name)}: a name must match {_NAME.pattern}")
        pattern = self.store.path("refs", name or "*", "*.json")
        found = [self._read_entry(p) for p in self.store.glob(pattern)]
        return sorted(found, key=lambda e: (e.name, parse_version(e.version)))

    def resolve(self, ref: str | Ref) -> Entry:
        """The entry a reference names; a clear error listing what exists when it names nothing."""
        r = Ref.parse(ref) if isinstance(ref, str) else ref
        entries = self.entries(r.name)
        if not entries:
            names = sorted({e.name for e in self.entries()})
            known = (
                f"; it holds {', '.join(names[:10])}{' …' if len(names) > 10 else ''}" if names else " (it is empty)"
            )
            raise RegistryError(f"no bundle named {r.name!r} in registry {self.url}{known}")
        if r.digest is not None:
            for e in reversed(entries):
                if e.digest == r.digest:
                    return e
            raise RegistryError(f"no version of {r.name} has digest {r.digest} in registry {self.url}")
        if r.version is None:
            return entries[-1]
        for e in entries:
            if e.version == r.version:
                return e
        raise RegistryError(
            f"{r.name}@{r.version} is not in registry {self.url}; versions: " + ", ".join(e.version for e in entries)
        )

    def manifest(self, entry: Entry) -> tuple[Manifest, bytes]:
        """The manifest an entry points to: its own hash, its seal, and its name, version and digest
        must all be the ones the entry promises."""
        hexdigest = entry.manifest.removeprefix("sha256:")
        try:
            raw = self._read_bounded(self._blob(hexdigest), MAX_MANIFEST_BYTES, "manifest")
        except FileNotFoundError:
            raise RegistryError(f"{entry.ref}: manifest blob {entry.manifest} is missing from {self.url}") from None
        if _sha256(raw) != hexdigest:
            raise RegistryError(f"{entry.ref}: manifest blob {entry.manifest} is corrupt in {self.url}")
        try:
            manifest = read_manifest(raw, f"{entry.ref}: manifest {entry.manifest}")
        except BundleError as exc:
            raise RegistryError(str(exc)) from None
        promised = (entry.name, entry.version, entry.digest)
        found = (manifest.name, manifest.version, manifest.digest)
        if found != promised:
            raise RegistryError(
                f"the index promises {entry.name}@{entry.version} with digest {entry.digest}, but its manifest "
                f"is {shown(found[0])}@{shown(found[1])} with digest {found[2]}; the index was re-pointed or "
                "the registry is corrupt"
            )
        return manifest, raw

    # -- publishing ------------------------------------------------------------------
    def publish(
        self, path: str | Path, version: str | None = None, bump: str | None = None, run: dict[str, Any] | None = None
    ) -> PublishResult:
        """Publish the bundle at ``path`` under its own version, ``version``, or the next ``bump``.

        A version other than the bundle's own re-packages it (the version is content, so
        the digest changes). The same content again is a no-op; other content under an
        existing version is refused.
        """
        if version is not None and bump is not None:
            raise ValueError("give a version or a bump, not both")
        with tempfile.TemporaryDirectory(prefix="synthenv-publish-") as tmp:
            try:
                source = Path(path)
                if source.is_file():  # a bundle archive: unpacked without trusting it
                    source = extract_archive(source, Path(tmp) / "unpacked")
                bundle = load_bundle(source)
                run_record = dict(run) if run is not None else read_run_record(bundle.path)
            except BundleError as exc:
                raise RegistryError(f"refusing to publish: {exc}") from None
            if bump is not None:
                published = [e.version for e in self.entries(bundle.name)]
                newest = latest(published)
                if newest is not None:
                    same = self._as_version(bundle, newest, Path(tmp) / "latest")
                    prior = self._existing(bundle.name, newest)
                    if prior is not None and self._same(prior, same):
                        return PublishResult(prior, created=False, restamped=same is not bundle)
                target = bump_version(newest or bundle.version, bump)
            else:
                target = version if version is not None else bundle.version
                parse_version(target)
            candidate = self._as_version(bundle, target, Path(tmp) / "target")
            result = self._publish_bundle(candidate, run_record)
            return PublishResult(result.entry, result.created, restamped=candidate is not bundle)

    def _as_version(self, bundle: Bundle, version: str, out: Path) -> Bundle:
        if bundle.version == version:
            return bundle
        if bundle.manifest.kind != "tool_use":  # its version is built in: only a rebuild changes it
            raise RegistryError(
                f"{bundle.ref} cannot be published as {version}: {republish_advice(bundle, self._versions(bundle))}"
            )
        return restamp(bundle, version, out)

    def _versions(self, bundle: Bundle) -> list[str]:
        return [e.version for e in self.entries(bundle.name)]

    def _existing(self, name: str, version: str) -> Entry | None:
        path = self._entry_path(name, version)
        return self._read_entry(path) if self.store.exists(path) else None

    @staticmethod
    def _same(entry: Entry, bundle: Bundle) -> bool:
        return entry.digest == bundle.digest and entry.manifest == "sha256:" + _sha256(
            bundle.file(MANIFEST).read_bytes()
        )

    def _refuse_or_noop(self, prior: Entry, bundle: Bundle) -> PublishResult:
        if self._same(prior, bundle):
            return PublishResult(prior, created=False)
        raise RegistryError(
            f"{prior.ref} is already published with digest {prior.digest} (this bundle: {bundle.digest}); "
            f"versions are immutable: {republish_advice(bundle, self._versions(bundle))}"
        )

    def _publish_bundle(self, bundle: Bundle, run: dict[str, Any]) -> PublishResult:
        prior = self._existing(bundle.name, bundle.version)
        if prior is not None:
            return self._refuse_or_noop(prior, bundle)
        manifest_bytes = bundle.file(MANIFEST).read_bytes()
        size = len(manifest_bytes)
        for rel, hexdigest in sorted(bundle.manifest.files.items()):
            size += self._upload(bundle.file(rel), hexdigest)
        manifest_hex = _sha256(manifest_bytes)
        blob = self._blob(manifest_hex)
        if not self._keep_existing(blob):
            self.store.put_bytes(manifest_bytes, blob)
        entry = Entry(
            name=bundle.name,
            version=bundle.version,
            digest=bundle.digest,
            manifest="sha256:" + manifest_hex,
            files=len(bundle.manifest.files) + 1,
            size=size,
            published_at=_now(),
            kind=bundle.manifest.kind,
            title=bundle.manifest.title,
            parent=bundle.manifest.lineage.parent,
            run=run,
        )
        try:
            self.store.create_exclusive(
                self._entry_path(bundle.name, bundle.version), pretty_json(entry.as_dict()).encode("utf-8")
            )
        except FileExistsError:
            winner = self._existing(bundle.name, bundle.version)
            if winner is None:
                raise RegistryError(f"{bundle.ref}: index entry appeared and vanished during publish") from None
            return self._refuse_or_noop(winner, bundle)
        return PublishResult(entry, created=True)

    def _upload(self, source: Path, hexdigest: str) -> int:
        blob = self._blob(hexdigest)
        if not self._keep_existing(blob):
            self.store.put_blob(source, blob)
        return source.stat().st_size

    def _keep_existing(self, blob: str) -> bool:
        """True if the blob is there; on a local registry its time is refreshed so gc's grace covers it."""
        if not self.store.exists(blob):
            return False
        if self.store.local:
            try:
                os.utime(blob)
            except FileNotFoundError:
                return False
        return True

    # -- pulling ---------------------------------------------------------------------
    def pull(self, ref: str | Ref, to: str | Path | None = None) -> Path:
        """Materialise a bundle as ``<to>/<name>/<version>/`` and return that directory.

        The manifest must be the one the reference and the index promise (name, version,
        digest); every blob is hashed as it arrives, cut off past its declared size, and
        must match the manifest. Files are written only into a scratch directory inside
        ``<to>/<name>/``, which becomes the bundle once it loads as one.
        """
        r = Ref.parse(ref) if isinstance(ref, str) else ref
        entry = self.resolve(r)
        manifest, raw = self.manifest(entry)
        if (r.version is not None and r.version != entry.version) or (
            r.digest is not None and r.digest != entry.digest
        ):
            raise RegistryError(f"{r} resolved to {entry.ref} with digest {entry.digest}, which it does not name")
        root = Path(to if to is not None else default_cache())
        dest = _inside(root, entry.name, entry.version)
        if dest.exists():
            return self._reuse(dest, entry, raw)
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
            _inside(root, entry.name, entry.version)  # re-check now that the folder exists
            scratch = Path(tempfile.mkdtemp(prefix=f".{entry.version}-pull-", dir=dest.parent))
        except OSError as exc:
            raise RegistryError(f"cannot pull into {root}: {exc.strerror or exc}") from None
        try:
            for rel, hexdigest in sorted(manifest.files.items()):
                try:
                    with self.store.open_read(self._blob(hexdigest)) as stream:
                        copy_verified(stream, scratch / rel, hexdigest, manifest.sizes[rel])
                except FileNotFoundError:
                    raise RegistryError(
                        f"{entry.ref}: blob for {rel} (sha256:{hexdigest}) is missing from {self.url}"
                    ) from None
                except ValueError as exc:
                    raise RegistryError(f"{entry.ref}: {rel}: {exc}") from None
            (scratch / MANIFEST).write_bytes(raw)
            try:
                load_bundle(scratch)
            except BundleError as exc:
                raise RegistryError(f"{entry.ref}: the pulled files do not form the bundle: {exc}") from None
            scratch.chmod(0o755)
            try:
                scratch.rename(dest)
            except OSError:
                if not dest.exists():
                    raise
                shutil.rmtree(scratch, ignore_errors=True)  # a concurrent pull finished first
                return self._reuse(dest, entry, raw)
        except BaseException:
            shutil.rmtree(scratch, ignore_errors=True)
            raise
        return dest

    @staticmethod
    def _reuse(dest: Path, entry: Entry, raw: bytes) -> Path:
        try:
            local = load_bundle(dest)
        except BundleError as exc:
            raise RegistryError(f"{dest} exists but is not a valid bundle ({exc}); remove it and pull again") from None
        if local.digest != entry.digest or local.file(MANIFEST).read_bytes() != raw:
            raise RegistryError(
                f"{dest} already holds {local.ref} with digest {local.digest}, not {entry.digest} "
                "from the registry; remove it or pull to another directory"
            )
        return dest

    # -- garbage collection ----------------------------------------------------------
    def gc(self, grace_seconds: float = DEFAULT_GRACE_SECONDS, dry_run: bool = False) -> GcReport:
        """Remove blobs no index entry reaches and abandoned uploads.

        Blobs younger than ``grace_seconds`` are spared, so a publish in flight (blobs
        uploaded, entry not yet written) keeps its blobs.
        """
        report = GcReport(dry_run=dry_run)
        live: set[str] = set()
        for entry in self.entries():
            live.add(entry.manifest.removeprefix("sha256:"))
            try:
                manifest, _ = self.manifest(entry)
            except RegistryError:
                report.broken.append(entry.ref)
                continue
            live.update(manifest.files.values())
        for blob in self.store.glob(self.store.path("blobs", "sha256", "*")):
            hexdigest = blob.rsplit("/", 1)[-1]
            if hexdigest in live:
                report.kept += 1
                continue
            if not self._expired(blob, grace_seconds):
                report.spared_recent += 1
                continue
            report.freed_bytes += self.store.size(blob)
            report.removed.append("sha256:" + hexdigest)
            if not dry_run:
                self.store.remove(blob)
        for staged in self.store.glob(self.store.path(".staging", "*")):
            if self._expired(staged, grace_seconds):
                report.staging_removed += 1
                if not dry_run:
                    self.store.remove(staged)
        return report

    def _expired(self, path: str, grace_seconds: float) -> bool:
        if grace_seconds <= 0:
            return True
        age = self.store.age_seconds(path)
        return age is not None and age >= grace_seconds


def _inside(root: Path, name: str, version: str) -> Path:
    """``root/name/version``, refusing when an existing part of it is a link or leads outside ``root``."""
    check_bundle_name(name)
    check_version(version)
    base = root.resolve()
    for part in (base / name, base / name / version):
        if part.is_symlink() or (part.exists() and not part.resolve().is_relative_to(base)):
            raise RegistryError(
                f"{part} is a symbolic link leading to {part.resolve()}, outside {base}; refusing to pull through it"
            )
    return root / name / version


def publish(
    path: str | Path,
    registry: str | None = None,
    version: str | None = None,
    bump: str | None = None,
    run: dict[str, Any] | None = None,
) -> PublishResult:
    return Registry(registry).publish(path, version=version, bump=bump, run=run)


def pull(ref: str, registry: str | None = None, to: str | Path | None = None) -> Path:
    """Fetch ``ref`` from ``registry`` and return a directory ``Environment.from_bundle`` accepts."""
    return Registry(registry).pull(ref, to=to)
