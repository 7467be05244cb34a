"""Lazy registry of procedural families.

Family modules live in one folder per category, ``generators/families/<category>/<name>.py``
(the categories are Reasoning Gym's: arithmetic, algebra, algorithmic, arc, code, cognition,
games, geometry, graphs, induction, logic). They are discovered with
:func:`pkgutil.iter_modules`, which reads file names only: nothing is imported until a
family is asked for, so ``import generators`` and ``list_families()`` stay cheap. A family's
name is its module name, unique across categories.
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


def _modules() -> dict[str, str]:
    """Family name -> its category folder (private ``_*`` modules and folders excluded)."""
    found: dict[str, str] = {}
    for folder in pkgutil.iter_modules([str(FAMILIES_DIR)]):
        if not folder.ispkg or folder.name.startswith("_"):
            continue
        for info in pkgutil.iter_modules([str(FAMILIES_DIR / folder.name)]):
            if info.ispkg or info.name.startswith("_"):
                continue
            if info.name in found:
                raise ValueError(f"family {info.name!r} is in two categories: {found[info.name]}, {folder.name}")
            found[info.name] = folder.name
    return found


def list_families() -> list[str]:
    """Sorted names of every family module."""
    return sorted(_modules())


def category_of(name: str) -> str:
    """The category folder a family lives in (``ValueError`` for an unknown name)."""
    modules = _modules()
    if name not in modules:
        raise _unknown(name, sorted(modules))
    return modules[name]


def module_name(name: str) -> str:
    """The importable module of family ``name``: ``generators.families.<category>.<name>``."""
    return f"{FAMILIES_PACKAGE}.{category_of(name)}.{name}"


def _unknown(name: object, known: list[str]) -> ValueError:
    close = difflib.get_close_matches(str(name), known, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return ValueError(f"unknown family {name!r}{hint} (known: {', '.join(known) or 'none'})")


def get_family(name: str) -> Family:
    """Import (once) and return the ``FAMILY`` of module ``generators.families.<category>.<name>``.

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
        module = importlib.import_module(module_name(name))
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
