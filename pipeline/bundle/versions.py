"""Semantic versions of published bundles: parse, compare, bump (by the ``semver`` library).

A bundle version is a plain ``X.Y.Z``: no pre-release or build tag, no leading zeros,
nothing around it, because it is also a path component and a registry key.
"""

from __future__ import annotations

from typing import Any

import semver

BUMPS = ("major", "minor", "patch")

Version = tuple[int, int, int]


def _plain(text: Any) -> semver.Version:
    """The parsed version, or ValueError for anything but a plain X.Y.Z string."""
    try:
        version = semver.Version.parse(text)
    except (TypeError, ValueError):
        version = None
    if version is None or version.prerelease is not None or version.build is not None:
        raise ValueError(f"version must be semver X.Y.Z (e.g. 1.2.0), got {text!r}")
    return version


def parse_version(text: str) -> Version:
    """``"1.2.3"`` -> ``(1, 2, 3)``; refuses anything but plain X.Y.Z (no pre-release tags)."""
    version = _plain(text)
    return version.major, version.minor, version.patch


def is_version(text: Any) -> bool:
    """Whether ``text`` is a plain X.Y.Z version."""
    try:
        _plain(text)
    except ValueError:
        return False
    return True


def bump(version: str, part: str) -> str:
    """The next version: ``bump("1.2.3", "minor") == "1.3.0"``."""
    if part not in BUMPS:
        raise ValueError(f"bump must be one of {', '.join(BUMPS)}, got {part!r}")
    return str(_plain(version).next_version(part))


def latest(versions: list[str]) -> str | None:
    """The highest version by semver order (not by publish time)."""
    return max(versions, key=parse_version, default=None)
