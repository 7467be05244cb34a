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
