"""Procedural reasoning generators: task families with difficulty levels (and a continuous
difficulty between them) and curricula.

Everything public loads lazily (module ``__getattr__``) so ``import generators`` costs
almost nothing and imports no family module; families are imported when first asked for.

>>> import generators
>>> ds = generators.create_dataset("gcd_lcm", level=2, seed=7, size=10)
>>> generators.score("gcd_lcm", ds[0]["answer"], ds[0])
1.0
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "list_families": "generators.registry",
    "get_family": "generators.registry",
    "create_dataset": "generators.dataset",
    "create_composite": "generators.dataset",
    "Dataset": "generators.dataset",
    "CompositeDataset": "generators.dataset",
    "InsufficientUniqueItems": "generators.dataset",
    "score": "generators.dataset",
    "Curriculum": "generators.curriculum",
    "AdaptiveCurriculum": "generators.adaptive",
    "extract_answer": "generators.answers",
    "compare": "generators.answers",
    "GENERATOR_VERSION": "generators.base",
    "Family": "generators.base",
    "Knobs": "generators.base",
    "Problem": "generators.base",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'generators' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
