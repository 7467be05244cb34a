"""The catalog index: one summary row per domain blueprint, cached by the files' content.

``synthenv domains`` needs only each blueprint's name, title, description and counts, but
building them means parsing and validating all 37 blueprints (hundreds of milliseconds,
pydantic and YAML). The rows are kept in a small JSON file under the user's cache
directory, named by a SHA-256 over every blueprint's file name and bytes: any edit, added
or removed blueprint gives another name, so a stale index is never read. Reading the
bytes and hashing them costs about a millisecond. A cache that cannot be written (a
read-only home) only costs the slow path.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

CACHE_ENV = "SYNTHENV_CACHE_DIR"
FIELDS = ("name", "title", "entities", "operations", "description")


def domains_dir() -> Path:
    """``templates/domains`` beside the packages (the same place ``world.blueprint`` reads)."""
    return Path(__file__).resolve().parents[2] / "templates" / "domains"


def cache_dir() -> Path:
    """``$SYNTHENV_CACHE_DIR``, else ``$XDG_CACHE_HOME/synthenv``, else ``~/.cache/synthenv``."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "synthenv"


def _fingerprint(files: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:32]


def _summaries(names: list[str]) -> list[dict[str, Any]]:
    from pipeline.world.blueprint import load_blueprint

    rows = []
    for name in names:
        bp = load_blueprint(name)
        rows.append(
            {
                "name": name,
                "title": bp.title,
                "entities": len(bp.entities),
                "operations": len(bp.operations),
                "description": bp.description,
            }
        )
    return rows


def catalog_index() -> list[dict[str, Any]]:
    """Summary rows of every domain blueprint, sorted by name (see the module docstring)."""
    files = sorted(domains_dir().glob("*.yaml"))
    path = cache_dir() / f"catalog-{_fingerprint(files)}.json"
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(rows, list) and all(isinstance(r, dict) and set(r) == set(FIELDS) for r in rows):
            return rows
    except (OSError, ValueError):
        pass
    rows = _summaries([p.stem for p in files])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False, suffix=".tmp") as fh:
            json.dump(rows, fh, ensure_ascii=False, sort_keys=True)
        os.replace(fh.name, path)
    except OSError:
        pass
    return rows
