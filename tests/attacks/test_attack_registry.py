"""Hostile registries: index entries that point elsewhere, names that climb, blobs that lie."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from craft import entry_for, files_under, plant_entry, read_manifest, seal, sha256_bytes

from pipeline.registry.registry import Registry, RegistryError

CLIMB = "../../../outside-secret.txt"


def _hostile_manifest(bundle: Path, abs_target: Path) -> tuple[dict, bytes, dict[str, bytes]]:
    """A sealed manifest listing a file that climbs out and one at an absolute path."""
    manifest = read_manifest(bundle)
    blobs = {name: (bundle / name).read_bytes() for name in manifest["files"]}
    extra = {CLIMB: b"climbed out\n", str(abs_target): b"absolute\n"}
    manifest["files"] = {**manifest["files"], **{n: sha256_bytes(d) for n, d in extra.items()}}
    if "sizes" in manifest:
        manifest["sizes"] = {**manifest["sizes"], **{n: len(d) for n, d in extra.items()}}
    sealed = seal(bundle, manifest, rehash=False)
    return sealed, (bundle / "manifest.json").read_bytes(), {**blobs, **extra}


def test_publish_refuses_file_names_that_leave_the_bundle(bundle_copy: Path, tmp_path: Path) -> None:
    _, _, blobs = _hostile_manifest(bundle_copy, tmp_path / "abs-target.txt")
    (bundle_copy / CLIMB).write_bytes(blobs[CLIMB])
    (tmp_path / "abs-target.txt").write_bytes(blobs[str(tmp_path / "abs-target.txt")])
    with pytest.raises(RegistryError):
        Registry(tmp_path / "registry").publish(bundle_copy)


def test_pull_never_writes_outside_the_destination(bundle_copy: Path, tmp_path: Path) -> None:
    manifest, raw, blobs = _hostile_manifest(bundle_copy, tmp_path / "abs-target.txt")
    root = tmp_path / "registry"
    plant_entry(root, raw, blobs, entry_for(manifest, raw))
    pulls = tmp_path / "pulls" / "deep"
    before = files_under(tmp_path)
    with pytest.raises(RegistryError, match="file name"):
        Registry(root).pull(f"{manifest['name']}@{manifest['version']}", to=pulls / "to")
    written = files_under(tmp_path) - before
    assert not (tmp_path / "abs-target.txt").exists()
    assert not any(p.endswith("outside-secret.txt") for p in written), written


@pytest.mark.parametrize("field, value", [("name", "../../escape"), ("version", "../../../escape")])
def test_an_index_entry_that_climbs_cannot_steer_pull(
    bundle_copy: Path, tmp_path: Path, field: str, value: str
) -> None:
    manifest = read_manifest(bundle_copy)
    raw = (bundle_copy / "manifest.json").read_bytes()
    blobs = {name: (bundle_copy / name).read_bytes() for name in manifest["files"]}
    root = tmp_path / "registry"
    entry = entry_for(manifest, raw, **{field: value})
    plant_entry(root, raw, blobs, entry, path="refs/evil/1.0.0.json")
    before = files_under(tmp_path)
    with pytest.raises(RegistryError):
        Registry(root).pull("evil@1.0.0", to=tmp_path / "a" / "b" / "to")
    written = files_under(tmp_path) - before
    assert not any(not p.startswith("a/b/to") and p not in ("a", "a/b") for p in written), written


def test_a_repointed_index_entry_is_refused_naming_both(bundles: dict[str, Path], tmp_path: Path) -> None:
    store, clinic = bundles["online_store"], bundles["clinic_appointments"]
    registry = Registry(tmp_path / "registry")
    a = registry.publish(store).entry
    b = registry.publish(clinic).entry
    entry_file = tmp_path / "registry" / "refs" / a.name / f"{a.version}.json"
    data = json.loads(entry_file.read_text())
    data.update(digest=b.digest, manifest=b.manifest)
    entry_file.write_text(json.dumps(data))
    with pytest.raises(RegistryError) as caught:
        registry.pull(a.ref, to=tmp_path / "pulled")
    assert a.name in str(caught.value) and b.name in str(caught.value)
    assert not (tmp_path / "pulled" / a.name / a.version).exists()


def test_an_entry_copied_under_another_name_is_refused(bundles: dict[str, Path], tmp_path: Path) -> None:
    registry = Registry(tmp_path / "registry")
    a = registry.publish(bundles["online_store"]).entry
    moved = tmp_path / "registry" / "refs" / "trusted-name" / "1.0.0.json"
    moved.parent.mkdir(parents=True)
    shutil.copy(tmp_path / "registry" / "refs" / a.name / f"{a.version}.json", moved)
    with pytest.raises(RegistryError, match="trusted-name"):
        registry.pull("trusted-name@1.0.0", to=tmp_path / "pulled")
    assert not (tmp_path / "pulled").exists() or not any((tmp_path / "pulled").rglob("manifest.json"))


def test_a_manifest_pointer_that_climbs_is_refused(bundles: dict[str, Path], tmp_path: Path) -> None:
    registry = Registry(tmp_path / "registry")
    a = registry.publish(bundles["online_store"]).entry
    entry_file = tmp_path / "registry" / "refs" / a.name / f"{a.version}.json"
    data = json.loads(entry_file.read_text())
    (tmp_path / "planted.json").write_text("{}")
    data["manifest"] = "sha256:../../../planted.json"
    entry_file.write_text(json.dumps(data))
    with pytest.raises(RegistryError, match="manifest"):
        registry.pull(a.ref, to=tmp_path / "pulled")


def test_a_blob_larger_than_declared_is_cut_off(bundle_copy: Path, tmp_path: Path) -> None:
    registry = Registry(tmp_path / "registry")
    entry = registry.publish(bundle_copy).entry
    manifest = read_manifest(bundle_copy)
    blob = tmp_path / "registry" / "blobs" / "sha256" / manifest["files"]["report.html"]
    blob.write_bytes(b"<p>" * (2 << 20))
    with pytest.raises(RegistryError, match=r"report\.html"):
        registry.pull(entry.ref, to=tmp_path / "pulled")
    assert not any((tmp_path / "pulled").rglob("report.html"))


def test_pull_through_a_planted_symlink_is_refused(bundle_copy: Path, tmp_path: Path) -> None:
    registry = Registry(tmp_path / "registry")
    entry = registry.publish(bundle_copy).entry
    to = tmp_path / "cache"
    to.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (to / entry.name).symlink_to(outside, target_is_directory=True)
    with pytest.raises(RegistryError, match="outside"):
        registry.pull(entry.ref, to=to)
    assert not any(outside.iterdir())


@pytest.mark.parametrize("name", ["..", "../refs", "*", "a/b"])
def test_listing_a_name_that_is_not_a_name_is_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(RegistryError, match="name"):
        Registry(tmp_path / "registry").entries(name)


def test_a_corrupt_index_entry_is_a_registry_error(bundle_copy: Path, tmp_path: Path) -> None:
    registry = Registry(tmp_path / "registry")
    entry = registry.publish(bundle_copy).entry
    entry_file = tmp_path / "registry" / "refs" / entry.name / f"{entry.version}.json"
    for text in ("[]", "[" * 100_000, json.dumps({**json.loads(entry_file.read_text()), "version": "one"})):
        entry_file.write_text(text)
        with pytest.raises(RegistryError):
            registry.pull(entry.ref, to=tmp_path / "pulled")


def test_a_pulled_manifest_that_lies_about_its_name_is_refused(bundle_copy: Path, tmp_path: Path) -> None:
    """A registry serving a sealed manifest whose name differs from the index entry's."""
    manifest = read_manifest(bundle_copy)
    sealed = seal(bundle_copy, {**manifest, "name": "other-name"}, rehash=False)
    raw = (bundle_copy / "manifest.json").read_bytes()
    blobs = {name: (bundle_copy / name).read_bytes() for name in sealed["files"]}
    root = tmp_path / "registry"
    plant_entry(root, raw, blobs, entry_for(sealed, raw, name=manifest["name"]))
    with pytest.raises(RegistryError) as caught:
        Registry(root).pull(f"{manifest['name']}@{manifest['version']}", to=tmp_path / "pulled")
    assert "other-name" in str(caught.value) and manifest["name"] in str(caught.value)
    assert sha256_bytes(raw)  # the planted manifest was well formed: only the name lied


def test_pull_to_a_file_is_a_registry_error(bundle_copy: Path, tmp_path: Path) -> None:
    registry = Registry(tmp_path / "registry")
    entry = registry.publish(bundle_copy).entry
    (tmp_path / "not-a-dir").write_text("x")
    with pytest.raises(RegistryError, match="cannot pull"):
        registry.pull(entry.ref, to=tmp_path / "not-a-dir")
