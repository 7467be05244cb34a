"""CLI command groups, one module per idea; each defines ``register(app)``.

``pipeline.cli`` discovers the modules here, so adding a command never means editing a
shared list. Modules import their heavy dependencies inside the command functions.
"""

from __future__ import annotations

import importlib
import pkgutil

import typer


def register_all(app: typer.Typer) -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        module.register(app)
