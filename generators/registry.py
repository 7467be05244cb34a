"""Lazy registry of procedural families.

Family modules are discovered by listing ``generators/families/*.py`` with
:func:`pkgutil.iter_modules`, which reads file names only: nothing is imported until a
family is asked for, so ``import generators`` and ``list_families()`` stay cheap.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from generators.base import Family

FAMILIES_PACKAGE = "generators.families"
FAMILIES_DIR = Path(__file__).resolve().parent / "families"

_lock = threading.Lock()
_loaded: dict[str, Family] = {}


def list_families() -> list[str]:
    """Sorted names of every family module (private ``_*`` modules excluded)."""
    names = [
        info.name
        for info in pkgutil.iter_modules([str(FAMILIES_DIR)])
        if not info.ispkg and not info.name.startswith("_")
    ]
    return sorted(names)


def _unknown(name: object, known: list[str]) -> ValueError:
    close = difflib.get_close_matches(str(name), known, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return ValueError(f"unknown family {name!r}{hint} (known: {', '.join(known) or 'none'})")


def get_family(name: str) -> Family:
    """Import (once) and return the ``FAMILY`` of module ``generators.families.<name>``.

    Raises ``ValueError`` for an unknown name (with close matches) or a module that breaks
    the contract (missing ``FAMILY``, or ``FAMILY.name``/``NAME`` not equal to the module
    name).
    """
    from generators.base import Family

    if isinstance(name, Family):
        return name
    cached = _loaded.get(name) if isinstance(name, str) else None
    if cached is not None:
        return cached
    known = list_families()
    if not isinstance(name, str) or name not in known:
        raise _unknown(name, known)
    with _lock:
        module = importlib.import_module(f"{FAMILIES_PACKAGE}.{name}")
        family = getattr(module, "FAMILY", None)
        if not isinstance(family, Family):
            raise ValueError(f"family module {module.__name__} defines no FAMILY = Family(...)")
        if family.name != name or getattr(module, "NAME", name) != name:
            raise ValueError(
                f"family module {module.__name__}: NAME/FAMILY.name must equal the module name "
                f"{name!r}, got NAME={getattr(module, 'NAME', None)!r}, FAMILY.name={family.name!r}"
            )
        _loaded[name] = family
    return family


def load_all() -> dict[str, Family]:
    """Every family, imported; mostly for tests and benchmarks."""
    return {name: get_family(name) for name in list_families()}
