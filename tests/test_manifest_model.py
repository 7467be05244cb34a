"""The manifest as a typed model: built bundles read back byte for byte, bad manifests refused by field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pipeline.bundle.format import BundleError, load_bundle, pretty_json, read_manifest, seal_manifest
from pipeline.bundle.manifest import (
    ManifestError,
    ProceduralManifest,
    ToolUseManifest,
    manifest_from,
)
from pipeline.package.procedural import build_procedural_bundle


@pytest.fixture(scope="module")
def procedural_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("proc")
    return build_procedural_bundle(["gcd_lcm", "maze"], out, n=8, seed=0, level={"maze": 2}).path


def _raw(bundle: Path) -> bytes:
    return (bundle / "manifest.json").read_bytes()


@pytest.mark.parametrize("which", ["tool_use", "procedural"])
def test_a_built_manifest_round_trips_through_the_model_byte_for_byte(
    which: str, store_bundle: Path, procedural_bundle: Path
) -> None:
    path = store_bundle if which == "tool_use" else procedural_bundle
    raw = _raw(path)
    model = read_manifest(raw, str(path))
    assert model.kind == which
    assert pretty_json(model.as_dict()).encode("utf-8") == raw
    assert pretty_json(load_bundle(path).manifest.as_dict()).encode("utf-8") == raw
    # Re-sealing the content the model gives back reproduces the digest.
    assert seal_manifest(model.as_dict())["digest"] == model.digest


def test_fields_are_read_by_attribute_with_their_types(store_bundle: Path, procedural_bundle: Path) -> None:
    tool = load_bundle(store_bundle).manifest
    assert isinstance(tool, ToolUseManifest)
    tasks = (store_bundle / "tasks.jsonl").read_text(encoding="utf-8").splitlines()
    assert tool.counts.tasks == len(tasks)
    assert tool.lineage.inputs.seed == tool.seed == 7
    assert tool.knobs.task_mix is None and "task_mix" not in tool.as_dict()["knobs"]
    assert set(tool.files) == set(tool.sizes) and "manifest.json" not in tool.files
    proc = load_bundle(procedural_bundle).manifest
    assert isinstance(proc, ProceduralManifest)
    assert proc.knobs.level == {"maze": 2} and proc.counts.tasks == 8
    assert proc.as_procedural() is proc
    with pytest.raises(ValueError, match="not a tool-use one"):
        proc.as_tool_use()


def test_numbers_keep_their_type(store_bundle: Path) -> None:
    """An int knob is not turned into a float (1 and 1.0 hash differently), nor the reverse."""
    data = json.loads(_raw(store_bundle))
    for scale in (2, 2.0):
        data["knobs"]["scale"] = scale
        back = manifest_from(data).as_dict()["knobs"]["scale"]
        assert back == scale and type(back) is type(scale)


def _sealed_copy(src: Path, dest: Path, edit: Any) -> Path:
    """A copy of ``src`` whose manifest ``edit`` changed, sealed again so only the model can refuse it."""
    shutil.copytree(src, dest)
    data = json.loads(_raw(dest))
    edit(data)
    (dest / "manifest.json").write_text(pretty_json(seal_manifest(data)), encoding="utf-8")
    return dest


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m.update(seed="7"), r"manifest field 'seed': Input should be a valid integer"),
        (lambda m: m["counts"].pop("tasks"), r"manifest field 'counts.tasks': Field required"),
        (lambda m: m["lineage"].update(parent=3), r"manifest field 'lineage.parent': Input should be a valid string"),
        (lambda m: m["knobs"].update(variant="no"), r"manifest field 'knobs.variant': Input should be a valid boolean"),
        (lambda m: m.update(kind="robot"), r"manifest field 'kind'"),
        (lambda m: m.pop("frozen_clock"), r"manifest field 'frozen_clock': Field required"),
    ],
)
def test_a_bad_manifest_fails_to_load_naming_the_field(
    store_bundle: Path, tmp_path: Path, edit: Any, message: str
) -> None:
    bad = _sealed_copy(store_bundle, tmp_path / "bad", edit)
    with pytest.raises(BundleError, match=message) as caught:
        load_bundle(bad)
    assert str(bad) in str(caught.value)


def test_a_bad_procedural_manifest_names_the_field(procedural_bundle: Path, tmp_path: Path) -> None:
    bad = _sealed_copy(procedural_bundle, tmp_path / "bad", lambda m: m["knobs"].update(families="gcd_lcm"))
    with pytest.raises(BundleError, match=r"manifest field 'knobs.families': Input should be a valid list"):
        load_bundle(bad)


def test_fields_a_newer_synthenv_adds_are_kept(store_bundle: Path, tmp_path: Path) -> None:
    """``extra="allow"``: a field this version does not know loads, and reads back as written."""
    added = {"bonus": [1, 2.5, None], "note": "é"}
    copy = _sealed_copy(store_bundle, tmp_path / "newer", lambda m: m.update(future=added))
    b = load_bundle(copy)
    assert b.manifest.as_dict()["future"] == added
    assert pretty_json(b.manifest.as_dict()).encode("utf-8") == _raw(copy)


def test_the_error_names_the_first_fields_that_do_not_fit_and_counts_the_rest() -> None:
    with pytest.raises(ManifestError) as caught:
        manifest_from({"kind": "procedural", "name": "x", "version": "1.0.0"})
    text = str(caught.value)
    for field in ("title", "description", "seed", "frozen_clock", "generator_version"):
        assert f"manifest field '{field}': Field required" in text, field
    assert text.endswith("; and 3 more")  # knobs, counts, lineage


def test_changes_give_a_validated_unsealed_copy(store_bundle: Path) -> None:
    m = load_bundle(store_bundle).manifest
    changed = m.with_changes(version="1.1.0")
    assert changed.version == "1.1.0" and m.version != "1.1.0"
    assert "digest" not in changed.as_dict() and "files" not in changed.as_dict()
    assert {k: v for k, v in changed.as_dict().items() if k != "version"} == {
        k: v for k, v in m.content().items() if k != "version"
    }
    with pytest.raises(ValueError, match="seed"):
        m.with_changes(seed="seven")
