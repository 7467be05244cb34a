"""The bundle as a verifiers plugin named ``synthenv``: ``vf-eval synthenv --env.taskset.bundle REF``.

verifiers resolves a taskset, harness or environment id by importing the module of that
name and taking the one subclass of each kind its ``__all__`` exports. ``pyproject.toml``
makes this package importable as ``synthenv`` (``packages.find`` looks in
``pipeline/integrations/plugins`` too), so no shim module is needed; the bundle is a
directory or a registry ref (``name@1.2.0``, pulled from ``artifacts/``).
"""

from __future__ import annotations

from pipeline.integrations.verifiers import BundleEnv, BundleTaskset, ChatHarness, load_environment

__all__ = ["BundleEnv", "BundleTaskset", "ChatHarness", "load_environment"]
