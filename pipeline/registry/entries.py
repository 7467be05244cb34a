"""The registry's records: a reference a trainer writes (``name@version``, ``name@sha256:…``),
the index entry of one published version, and what publish and gc report. Parsing and
checking live here so every reader of the index applies the same rules."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from pipeline.bundle.names import BUNDLE_NAME, DIGEST, check_bundle_name, check_version, shown
from pipeline.bundle.versions import parse_version

_NAME = BUNDLE_NAME
_DIGEST = DIGEST


class RegistryError(Exception):
    """A registry operation was refused or a reference does not resolve; the message says why."""


@dataclass(frozen=True)
class Ref:
    """``name``, ``name@latest``, ``name@1.2.0`` or ``name@sha256:<64 hex>``."""

    name: str
    version: str | None = None
    digest: str | None = None

    @classmethod
    def parse(cls, text: str) -> Ref:
        name, sep, selector = text.strip().partition("@")
        if not _NAME.match(name):
            raise RegistryError(f"bad reference {text!r}: the name must match {_NAME.pattern}")
        if not sep or selector == "latest":
            return cls(name)
        if selector.startswith("sha256:"):
            if not _DIGEST.match(selector):
                raise RegistryError(f"bad reference {text!r}: a digest is sha256: followed by 64 lowercase hex digits")
            return cls(name, digest=selector)
        try:
            parse_version(selector)
        except ValueError:
            raise RegistryError(
                f"bad reference {text!r}: expected name, name@latest, name@X.Y.Z or name@sha256:…"
            ) from None
        return cls(name, version=selector)

    def __str__(self) -> str:
        return f"{self.name}@{self.digest or self.version or 'latest'}"


@dataclass(frozen=True)
class Entry:
    """One published version: what it points to, plus run-specific metadata kept out of the bundle."""

    name: str
    version: str
    digest: str
    manifest: str
    files: int
    size: int
    published_at: str
    kind: str = ""
    title: str = ""
    parent: str | None = None
    run: dict[str, Any] = field(default_factory=dict)

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any, where: str) -> Entry:
        """Unknown keys (written by a newer synthenv) are ignored; missing or malformed core keys are an error.

        Name and version become paths on pull and digests become blob paths, so each is
        checked here, where an index entry enters.
        """
        if not isinstance(data, dict):
            raise RegistryError(f"{where}: not a registry entry (a JSON object is expected)")
        known = {f.name for f in fields(cls)}
        try:
            entry = cls(**{k: v for k, v in data.items() if k in known})
            check_bundle_name(entry.name)
            check_version(entry.version)
        except (TypeError, ValueError) as exc:
            raise RegistryError(f"{where}: not a valid registry entry ({exc})") from None
        for key in ("digest", "manifest"):
            value = getattr(entry, key)
            if not isinstance(value, str) or not DIGEST.match(value):
                raise RegistryError(
                    f"{where}: not a valid registry entry ({key} {shown(value)} is not sha256:<64 hex>)"
                )
        return entry


@dataclass(frozen=True)
class PublishResult:
    entry: Entry
    created: bool
    """False when the same content was already published under this version (a no-op)."""
    restamped: bool = False
    """True when the bundle was re-packaged under a version other than its own."""


@dataclass
class GcReport:
    removed: list[str] = field(default_factory=list)
    freed_bytes: int = 0
    kept: int = 0
    spared_recent: int = 0
    staging_removed: int = 0
    broken: list[str] = field(default_factory=list)
    dry_run: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
