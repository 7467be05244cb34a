"""Registry names and versions that look like others: a trailing newline, spaces, control characters.

Python's ``$`` also matches before a final newline, so a pattern checked with ``re.match``
let ``online-store-s0\\n`` through: a second row that prints exactly like the real one.
Every name is checked whole, on publish, on every read of the index and on the command line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from craft import entry_for, plant_entry, read_manifest, seal
from typer.testing import CliRunner

from pipeline.bundle.names import check_bundle_name, check_file_name
from pipeline.cli.common import EXIT_CODES
from pipeline.cli.main import app
from pipeline.registry.entries import Entry, Ref
from pipeline.registry.registry import Registry, RegistryError

LOOKALIKES = ["online-store-s0\n", "online-store-s0 ", " online-store-s0", "online-store-s0\t", "online\x1b-store"]


@pytest.mark.parametrize("name", LOOKALIKES)
def test_names_are_checked_whole(name: str) -> None:
    with pytest.raises(ValueError):
        check_bundle_name(name)


def test_file_names_are_checked_whole() -> None:
    with pytest.raises(ValueError):
        check_file_name("tasks.jsonl\n")


@pytest.mark.parametrize("name", LOOKALIKES)
def test_index_entry_with_a_lookalike_name_is_refused(name: str) -> None:
    data = {
        "name": name,
        "version": "1.0.0",
        "digest": "sha256:" + "0" * 64,
        "manifest": "sha256:" + "0" * 64,
        "files": 1,
        "size": 1,
        "published_at": "2026-01-01T00:00:00+00:00",
    }
    with pytest.raises(RegistryError, match="not a valid registry entry"):
        Entry.from_dict(data, "refs/x.json")


def test_reference_with_a_newline_inside_is_refused() -> None:
    with pytest.raises(RegistryError):
        Ref.parse("online-store-s0\n@1.0.0")


def test_publish_refuses_a_name_ending_in_a_newline(bundle_copy: Path, tmp_path: Path) -> None:
    manifest = read_manifest(bundle_copy)
    manifest["name"] = manifest["name"] + "\n"
    seal(bundle_copy, manifest, rehash=False)
    root = tmp_path / "registry"
    with pytest.raises(RegistryError):
        Registry(root).publish(bundle_copy)
    assert not (root / "refs").exists() or not any((root / "refs").rglob("*.json"))


def test_list_refuses_a_planted_lookalike_entry(bundle_copy: Path, tmp_path: Path) -> None:
    """A hand-written index entry whose name ends in a newline is an error, not a second identical row."""
    manifest = read_manifest(bundle_copy)
    raw = (bundle_copy / "manifest.json").read_bytes()
    blobs = {n: (bundle_copy / n).read_bytes() for n in manifest["files"]}
    root = tmp_path / "registry"
    entry = entry_for(manifest, raw, name=manifest["name"] + "\n")
    plant_entry(root, raw, blobs, entry, path=f"refs/{entry['name']}/1.0.0.json")
    result = CliRunner().invoke(app, ["list", "--registry", str(root), "--json"])
    assert result.exit_code != 0 or all(e["name"] == manifest["name"] for e in json.loads(result.stdout))
    assert result.exit_code in (0, EXIT_CODES["refused"], EXIT_CODES["usage"]), result.output


@pytest.mark.parametrize("name", ["online-store-s0\n", "Online-Store", "a" * 200, "x y"])
def test_list_with_a_bad_name_is_a_usage_error(name: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["list", name, "--registry", str(tmp_path / "registry"), "--json"])
    assert result.exit_code == EXIT_CODES["usage"], result.output
    assert json.loads(result.stdout)["error"]["code"] == "usage"
