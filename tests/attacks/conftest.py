"""Fixtures of the attack suite (the crafting tools live in ``craft.py``)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture
def copy_bundle(store_bundle: Path, tmp_path: Path) -> Callable[..., Path]:
    """A private copy of the session's online_store bundle, under ``tmp_path/<sub>/``."""

    def make(sub: str = "src", source: Path | None = None) -> Path:
        src = source or store_bundle
        target = tmp_path / sub / src.parent.name / src.name
        shutil.copytree(src, target, symlinks=True)
        return target

    return make


@pytest.fixture
def bundle_copy(copy_bundle: Callable[..., Path]) -> Path:
    return copy_bundle()
