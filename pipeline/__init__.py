"""synthenv's pipeline: the five generation steps, bundles, registry and runtime.

Public names load lazily so that ``import pipeline`` stays cheap for the CLI and for
trainers that only need the runtime.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Environment": "pipeline.runtime.environment",
    "load_bundle": "pipeline.bundle.format",
    "Bundle": "pipeline.bundle.format",
    "BundleError": "pipeline.bundle.format",
    "load_blueprint": "pipeline.world.blueprint",
    "list_domains": "pipeline.world.blueprint",
    "pull": "pipeline.registry.registry",
    "Registry": "pipeline.registry.registry",
    "RegistryError": "pipeline.registry.registry",
}

__all__ = sorted([*_EXPORTS, "load"])


def load(ref: str | Any, registry: str | None = None) -> Any:
    """The environment of a bundle, either kind: a directory, or a ref as ``synthenv pull`` takes it
    (``name``, ``name@latest``, ``name@1.2.0``, ``name@sha256:…``) from ``registry`` (``artifacts/``
    by default). Digest-checked: a modified bundle is refused."""
    from pipeline.integrations.episode import open_env

    return open_env(ref, registry=registry)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pipeline' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
