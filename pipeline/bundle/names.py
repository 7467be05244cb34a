"""What may name a bundle, a file inside it or a version, and how large a bundle may be.

Every name that reaches a path (a manifest's file names, tar members, registry names and
versions, the bundle name used for output files) is checked here, once, by the same
rules: a plain name of a few safe characters, never a separator, never ``..``, never
absolute. A bundle is flat, so a file name is one path component.

Limits (sizes and counts) bound what a hostile bundle, archive or registry can make us
read or write; ``SYNTHENV_MAX_BUNDLE_BYTES`` raises the byte limit for very large states.
"""

from __future__ import annotations

import os
import re
from typing import Any

from pipeline.bundle.versions import is_version, parse_version

BUNDLE_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,127}\Z")
"""Bundle names: lowercase letters, digits, ``.``, ``_`` and ``-``, starting with a letter or digit.

Every pattern here ends in ``\\Z``, not ``$``: ``$`` also matches before a final newline, which let
``name\\n`` pass as a second name printing exactly like ``name``."""
FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")
"""Files of a bundle: one plain path component (no ``/``, no leading dot, so no ``..``)."""
SHA256_HEX = re.compile(r"^[0-9a-f]{64}\Z")
DIGEST = re.compile(r"^sha256:[0-9a-f]{64}\Z")
PARENT_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*\Z")
"""The name part of a lineage parent (``name@X.Y.Z``); lineage only, never a path."""
RESERVED_NAMES = frozenset({"blobs", "refs"})
"""Names a registry uses for itself."""

MAX_FILES = 64
"""Files a bundle may list (tool-use bundles have nine)."""
MAX_MANIFEST_BYTES = 4 << 20
"""Largest ``manifest.json`` read (generated ones are a few KiB)."""
MAX_BUNDLE_BYTES_ENV = "SYNTHENV_MAX_BUNDLE_BYTES"
DEFAULT_MAX_BUNDLE_BYTES = 16 << 30
"""Largest bundle (all files) unpacked or pulled: 16 GiB, or ``$SYNTHENV_MAX_BUNDLE_BYTES``."""


def max_bundle_bytes() -> int:
    """The byte limit of one bundle: ``$SYNTHENV_MAX_BUNDLE_BYTES`` if set, else 16 GiB."""
    configured = os.environ.get(MAX_BUNDLE_BYTES_ENV, "").strip()
    if not configured:
        return DEFAULT_MAX_BUNDLE_BYTES
    if not configured.isdigit() or int(configured) < 1:
        raise ValueError(f"{MAX_BUNDLE_BYTES_ENV} must be a positive number of bytes, got {configured!r}")
    return int(configured)


def shown(value: Any, limit: int = 80) -> str:
    """A value quoted for a message, cut short: hostile names can be long."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_bundle_name(name: Any) -> str:
    """A bundle name safe as a path component and a registry key, or ValueError."""
    if not isinstance(name, str) or not BUNDLE_NAME.match(name) or name in RESERVED_NAMES:
        raise ValueError(
            f"bundle name {shown(name)} is not allowed: it must match {BUNDLE_NAME.pattern} and not be "
            f"{' or '.join(sorted(RESERVED_NAMES))}"
        )
    return name


def check_version(version: Any) -> str:
    """A plain X.Y.Z version (so also a safe path component), or ValueError."""
    if not isinstance(version, str):
        raise ValueError(f"version {shown(version)} is not allowed: it must be semver X.Y.Z")
    try:
        parse_version(version)
    except ValueError:
        raise ValueError(f"version {shown(version)} is not allowed: it must be semver X.Y.Z") from None
    return version


def check_parent(parent: str) -> str:
    """A lineage parent, ``name@X.Y.Z`` or ``name@sha256:<64 hex>``, or ValueError."""
    name, at, ref = parent.partition("@")
    if not at or not PARENT_NAME.match(name) or not (DIGEST.match(ref) or is_version(ref)):
        raise ValueError(f"parent must be name@X.Y.Z or name@sha256:<64 hex>, got {parent!r}")
    return parent


def check_file_name(name: Any) -> str:
    """A bundle file name: one plain component, never ``..``, ``/``, ``\\`` or absolute; or ValueError."""
    if not isinstance(name, str) or not FILE_NAME.match(name) or name == "manifest.json":
        raise ValueError(
            f"file name {shown(name)} is not allowed: bundle files are plain names "
            f"matching {FILE_NAME.pattern} (no directories, no '..', no absolute paths)"
        )
    return name
