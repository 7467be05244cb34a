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
    "load_bundle": "pipeline.bundle",
    "Bundle": "pipeline.bundle",
    "BundleError": "pipeline.bundle",
    "load_blueprint": "pipeline.blueprint",
    "list_domains": "pipeline.blueprint",
    "pull": "pipeline.registry",
    "Registry": "pipeline.registry",
    "RegistryError": "pipeline.registry",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pipeline' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
