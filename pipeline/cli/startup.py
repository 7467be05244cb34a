"""Keeping ``synthenv --help`` (of any command) and ``synthenv domains`` from paying for what they do not use.

Two costs of typer 0.29 that these commands never need, each avoided here with a fallback
to typer's own (slow) path should a later typer change what is relied on:

* **pydantic** (about a third of a second to import): typer converts every parameter's value
  through a pydantic ``TypeAdapter`` it builds on first use, including the ``--help`` flag's
  value ``None`` when ``--help`` is not given, which it then returns unconverted. The
  ``--help`` option of :class:`Group` and :class:`Command` gets typer's pass-through
  converter instead, which returns ``None`` as is (and ``--help`` given is ``True``, which
  typer never converts).
* **rich's markdown and traceback modules** (markdown-it, pygments; about a quarter of a
  second): ``typer.rich_utils``, which renders the help, imports ``Markdown`` and
  ``Traceback`` at load but uses them only for ``rich_markup_mode="markdown"`` and for
  pretty tracebacks, neither of which renders our help. :func:`import_rich_help` loads it
  with those two names standing for the real classes, imported the first time one is used.

``tests/test_cli_startup.py`` checks that neither is imported by ``--help`` or ``domains``
and that the help still renders through rich.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

from typer.core import TyperCommand, TyperGroup

_DEFERRED = {"rich.markdown": "Markdown", "rich.traceback": "Traceback"}
"""What ``typer.rich_utils`` imports at load and uses only for markdown help and tracebacks."""


class _DeferredClass(type):
    """A stand-in for a class of a module not yet imported: calling it, or reading any attribute
    of it (``Traceback.from_exception``), imports the module and uses the real class."""

    _module: str
    _name: str

    def _real(cls) -> Any:
        return getattr(importlib.import_module(cls._module), cls._name)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls._real()(*args, **kwargs)

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(cls._real(), name)


def import_rich_help() -> None:
    """Import ``typer.rich_utils`` without rich's markdown and traceback modules (see above).

    If typer ever needs something else from those modules at load (or its import fails in
    any way with the stand-ins), they are dropped and it is imported the ordinary way."""
    if "typer.rich_utils" in sys.modules:
        return
    stand_ins: dict[str, types.ModuleType] = {}
    for module, name in _DEFERRED.items():
        if module in sys.modules:
            continue
        stand_in = types.ModuleType(module)
        setattr(stand_in, name, _DeferredClass(name, (), {"_module": module, "_name": name}))
        stand_ins[module] = stand_in
    sys.modules.update(stand_ins)
    try:
        importlib.import_module("typer.rich_utils")
    except Exception:
        sys.modules.pop("typer.rich_utils", None)
    finally:
        for module, stand_in in stand_ins.items():
            if sys.modules.get(module) is stand_in:
                del sys.modules[module]
    importlib.import_module("typer.rich_utils")  # already loaded, or the ordinary import


def _pass_through(option: Any) -> Any:
    """``option`` (a boolean flag) with typer's pass-through converter in place of a pydantic one,
    unless typer no longer has the pieces this relies on (then it is left as it is)."""
    try:
        from typer._coercion import PassThroughRuntimeParam

        descriptor = option.type_descriptor
        if option._runtime_param is None and descriptor.annotation is bool:
            option._runtime_param = PassThroughRuntimeParam(parameter_info=descriptor.parameter_info, annotation=bool)
    except (ImportError, AttributeError, TypeError):
        pass
    return option


class Group(TyperGroup):
    """typer's group: the same parsing and rich help, without pydantic for ``--help`` and with
    the help renderer imported without rich's markdown and traceback modules."""

    def get_help_option(self, ctx: Any) -> Any:
        return _pass_through(super().get_help_option(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        import_rich_help()
        return super().format_help(ctx, formatter)


class Command(TyperCommand):
    """typer's command, with the same two savings as :class:`Group`."""

    def get_help_option(self, ctx: Any) -> Any:
        return _pass_through(super().get_help_option(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        import_rich_help()
        return super().format_help(ctx, formatter)


def use_startup_classes(app: Any) -> None:
    """Every command of ``app``, and of the typer apps added to it, made with typer's own class
    gets :class:`Command`, and every added app that names no class gets :class:`Group`, so each
    ``--help`` has the savings without every module asking for them. A class a module names
    itself is left alone. (typer records the class of a command as ``TyperCommand`` when none is
    given, and leaves an unset group class as a placeholder, which is not a class.)"""
    for info in getattr(app, "registered_commands", ()):
        if getattr(info, "cls", None) is TyperCommand:
            info.cls = Command
    for group in getattr(app, "registered_groups", ()):
        sub = getattr(group, "typer_instance", None)
        if sub is None:
            continue
        named = (
            getattr(group, "cls", None),
            getattr(getattr(sub, "info", None), "cls", None),
            getattr(getattr(sub, "registered_callback", None), "cls", None),
        )
        if not any(isinstance(cls, type) for cls in named):
            group.cls = Group
        use_startup_classes(sub)
