"""Hostile bundles on disk: edited manifests, paths leaving the bundle, links, special files."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from craft import add_file, read_manifest, seal, write_manifest

from pipeline.bundle.format import BundleError, load_bundle
from pipeline.runtime.environment import Environment

FIELD_EDITS = [
    ("reward_weights", {"outcome": 0, "call_valid": 1, "call_succeeded": 1}),
    ("frozen_clock", "2030-01-01T00:00:00"),
    ("name", "marketplace-v99"),
    ("version", "9.9.9"),
    ("seed", 12345),
    ("title", "<script>alert(1)</script>"),
]


@pytest.mark.parametrize("field, value", FIELD_EDITS, ids=[f for f, _ in FIELD_EDITS])
def test_editing_a_manifest_field_is_refused_naming_it(bundle_copy: Path, field: str, value: object) -> None:
    manifest = read_manifest(bundle_copy)
    manifest[field] = value
    write_manifest(bundle_copy, manifest)
    with pytest.raises(BundleError, match=f"'{field}'"):
        load_bundle(bundle_copy)
    with pytest.raises(BundleError, match=f"'{field}'"):
        Environment.from_bundle(bundle_copy)


def test_adding_or_removing_a_manifest_field_is_refused_naming_it(bundle_copy: Path) -> None:
    manifest = read_manifest(bundle_copy)
    write_manifest(bundle_copy, {**manifest, "shaping": {"bonus": 1}})
    with pytest.raises(BundleError, match="'shaping'"):
        load_bundle(bundle_copy)
    write_manifest(bundle_copy, {k: v for k, v in manifest.items() if k != "reward_weights"})
    with pytest.raises(BundleError, match="'reward_weights'"):
        load_bundle(bundle_copy)


def test_editing_the_digest_itself_is_refused(bundle_copy: Path) -> None:
    manifest = read_manifest(bundle_copy)
    write_manifest(bundle_copy, {**manifest, "digest": "sha256:" + "0" * 64})
    with pytest.raises(BundleError, match="digest"):
        load_bundle(bundle_copy)


def test_a_downgrade_to_the_old_format_is_refused(bundle_copy: Path) -> None:
    """Format 1 digests covered only the file list: accepting it would bring the edit attacks back."""
    manifest = read_manifest(bundle_copy)
    files = dict(sorted(manifest["files"].items()))
    old = "sha256:" + hashlib.sha256(json.dumps(files, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    legacy = {k: v for k, v in manifest.items() if k not in ("fields", "sizes")}
    write_manifest(bundle_copy, {**legacy, "format": 1, "reward_weights": {"call_valid": 1.0}, "digest": old})
    with pytest.raises(BundleError, match="format"):
        load_bundle(bundle_copy)


@pytest.mark.parametrize(
    "name",
    ["../outside-secret.txt", "ABSOLUTE", "sub/../../outside.txt", "docs/notes.txt", ".hidden", "a\\..\\b", "x\x00y"],
)
def test_a_file_name_that_is_not_plain_is_refused(bundle_copy: Path, tmp_path: Path, name: str) -> None:
    if name == "ABSOLUTE":
        name = str(tmp_path / "abs-target.txt")
    where = None
    if name.startswith(("/", "..", "sub/")):
        where = (bundle_copy / name) if not name.startswith("/") else Path(name)
    if "\x00" in name:
        where = bundle_copy / "xy"
    add_file(bundle_copy, name, b"secret\n", where=where)
    with pytest.raises(BundleError, match="file name"):
        load_bundle(bundle_copy)


def test_a_file_hash_that_is_not_hex_is_refused(bundle_copy: Path) -> None:
    manifest = read_manifest(bundle_copy)
    manifest["files"]["state.sqlite"] = "../../../../etc/passwd"
    seal(bundle_copy, manifest, rehash=False)
    with pytest.raises(BundleError, match="sha256"):
        load_bundle(bundle_copy)


def test_an_unlisted_symlinked_directory_is_refused(bundle_copy: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "payload.txt").write_text("x")
    (bundle_copy / "docs").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(BundleError, match="docs"):
        load_bundle(bundle_copy)


def test_a_listed_file_that_is_a_symlink_is_refused(bundle_copy: Path, tmp_path: Path) -> None:
    """Same bytes, but read through a link: whoever controls the target controls the state."""
    target = tmp_path / "state-elsewhere.sqlite"
    (bundle_copy / "state.sqlite").rename(target)
    (bundle_copy / "state.sqlite").symlink_to(target)
    with pytest.raises(BundleError, match=r"state\.sqlite"):
        load_bundle(bundle_copy)


def test_a_special_file_in_the_bundle_is_refused(bundle_copy: Path) -> None:
    os.mkfifo(bundle_copy / "pipe")
    with pytest.raises(BundleError, match="pipe"):
        load_bundle(bundle_copy)


def test_an_unlisted_subdirectory_is_refused(bundle_copy: Path) -> None:
    (bundle_copy / "extra").mkdir()
    with pytest.raises(BundleError, match="extra"):
        load_bundle(bundle_copy)


@pytest.mark.parametrize("text", ["[" * 100_000, "[]", '"a string"', "{}"], ids=["deep", "list", "string", "empty"])
def test_a_malformed_manifest_is_a_bundle_error(bundle_copy: Path, text: str) -> None:
    (bundle_copy / "manifest.json").write_text(text)
    with pytest.raises(BundleError):
        load_bundle(bundle_copy)


def test_a_huge_manifest_is_refused_before_it_is_parsed(bundle_copy: Path) -> None:
    manifest = read_manifest(bundle_copy)
    manifest["padding"] = "x" * (5 << 20)
    seal(bundle_copy, manifest, rehash=False)
    with pytest.raises(BundleError, match="bytes"):
        load_bundle(bundle_copy)


def test_a_huge_file_list_is_refused(bundle_copy: Path) -> None:
    manifest = read_manifest(bundle_copy)
    for i in range(5000):
        manifest["files"][f"f{i}.txt"] = "0" * 64
    seal(bundle_copy, manifest, rehash=False)
    with pytest.raises(BundleError, match="files"):
        load_bundle(bundle_copy)


def test_a_sealed_hostile_name_or_version_is_refused(bundle_copy: Path) -> None:
    """A manifest its publisher signed consistently still cannot name a path."""
    for field, value in (("name", "../../../escape/x"), ("version", "../../1.0.0"), ("name", "a/b")):
        manifest = read_manifest(bundle_copy)
        seal(bundle_copy, {**manifest, field: value}, rehash=False)
        with pytest.raises(BundleError, match=field):
            load_bundle(bundle_copy)
        write_manifest(bundle_copy, manifest)
