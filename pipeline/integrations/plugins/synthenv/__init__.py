"""``synthenv``: the import name of the project for the ecosystems that load by name.

``synthenv.load(REF)`` opens a bundle of either kind (a directory, or a registry ref such as
``online-store-s0@1.0.0``). The same module is the verifiers plugin
``vf-eval synthenv --env.taskset.bundle REF``: verifiers resolves a taskset, harness or
environment id by importing the module of that name and taking the one subclass of each
kind its ``__all__`` exports. Those classes are imported on first access, so
``import synthenv`` needs neither verifiers nor any other trainer extra.

``pyproject.toml`` makes this package importable as ``synthenv`` (``packages.find`` looks in
``pipeline/integrations/plugins`` too), so no shim module is needed.
"""

from __future__ import annotations

import importlib
from typing import Any

from pipeline import load

_VERIFIERS = ("BundleEnv", "BundleTaskset", "ChatHarness", "load_environment")
__all__ = ["load", *_VERIFIERS]


def __getattr__(name: str) -> Any:
    if name in _VERIFIERS:
        return getattr(importlib.import_module("pipeline.integrations.verifiers"), name)
    raise AttributeError(f"module 'synthenv' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_VERIFIERS])
