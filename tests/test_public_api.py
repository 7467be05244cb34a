"""The public API: exactly these names, each importable, and nothing else by accident.

A rename or move inside the packages must not change what users import; changing this
list is a deliberate API change.
"""

from __future__ import annotations

import importlib

import pytest

PUBLIC = {
    "pipeline": [
        "Bundle",
        "BundleError",
        "Environment",
        "Registry",
        "RegistryError",
        "list_domains",
        "load",
        "load_blueprint",
        "load_bundle",
        "pull",
    ],
    "generators": [
        "AdaptiveCurriculum",
        "CompositeDataset",
        "Curriculum",
        "Dataset",
        "Family",
        "GENERATOR_VERSION",
        "InsufficientUniqueItems",
        "Knobs",
        "Problem",
        "compare",
        "create_composite",
        "create_dataset",
        "extract_answer",
        "get_family",
        "list_families",
        "score",
    ],
}


@pytest.mark.parametrize("package", sorted(PUBLIC))
def test_exported_names_are_pinned(package: str) -> None:
    module = importlib.import_module(package)
    assert sorted(module.__all__) == sorted(PUBLIC[package])


@pytest.mark.parametrize(("package", "name"), [(p, n) for p, names in sorted(PUBLIC.items()) for n in names])
def test_every_exported_name_resolves(package: str, name: str) -> None:
    assert getattr(importlib.import_module(package), name) is not None


def test_unknown_name_is_an_attribute_error() -> None:
    import pipeline

    with pytest.raises(AttributeError, match="no attribute"):
        pipeline.not_a_thing  # noqa: B018


def test_synthenv_import_name_is_light_and_loads_by_ref() -> None:
    """``import synthenv`` works without any trainer extra; the verifiers classes load on access."""
    import subprocess
    import sys

    code = (
        "import sys, synthenv, pipeline\n"
        "assert synthenv.load is pipeline.load\n"
        "assert not any(m.split('.')[0] == 'verifiers' for m in sys.modules), 'verifiers imported eagerly'\n"
        "assert 'load_environment' in synthenv.__all__ and 'load_environment' in dir(synthenv)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
