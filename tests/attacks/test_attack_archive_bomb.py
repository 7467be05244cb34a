"""Archives that inflate far past what their manifest says: nothing is written until every
member's declared size is checked against the manifest's own sizes, so a gzip bomb under the
byte limit (16 GiB by default) costs inflating it once, never the disk."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path

import pytest

from pipeline.bundle.archive import ArchiveError, extract_archive
from pipeline.registry.registry import Registry, RegistryError

BOMB = 64 << 20


def _bomb(store_bundle: Path, target: Path, extra: dict[str, int], skip: tuple[str, ...] = ()) -> Path:
    """The real bundle's files (manifest first or not), plus members of ``extra`` bytes of zeros."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        names = sorted(p.name for p in store_bundle.iterdir() if p.is_file())
        for name in names:
            if name in skip or name in extra:
                continue
            data = (store_bundle / name).read_bytes()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for name, size in extra.items():
            info = tarfile.TarInfo(name)
            info.size = size
            tar.addfile(info, io.BytesIO(bytes(size)))
    target.write_bytes(gzip.compress(buf.getvalue(), compresslevel=9, mtime=0))
    return target


def _nothing_written(tmp_path: Path) -> None:
    left = [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix != ".gz"]
    assert not left, left


def test_a_member_bigger_than_the_manifest_says_is_refused_unwritten(store_bundle: Path, tmp_path: Path) -> None:
    archive = _bomb(store_bundle, tmp_path / "bomb.tar.gz", {"state.sqlite": BOMB})
    assert archive.stat().st_size < BOMB // 100
    with pytest.raises(ArchiveError, match="manifest"):
        extract_archive(archive, tmp_path / "out" / "b")
    _nothing_written(tmp_path)


def test_a_member_the_manifest_does_not_list_is_refused_unwritten(store_bundle: Path, tmp_path: Path) -> None:
    archive = _bomb(store_bundle, tmp_path / "bomb.tar.gz", {"aaa-padding.bin": BOMB})
    with pytest.raises(ArchiveError, match="manifest"):
        extract_archive(archive, tmp_path / "out" / "b")
    _nothing_written(tmp_path)


def test_an_archive_without_a_manifest_is_refused_unwritten(store_bundle: Path, tmp_path: Path) -> None:
    archive = _bomb(store_bundle, tmp_path / "bomb.tar.gz", {}, skip=("manifest.json",))
    with pytest.raises(ArchiveError, match="manifest"):
        extract_archive(archive, tmp_path / "out" / "b")
    _nothing_written(tmp_path)


def test_publish_refuses_the_bomb_before_unpacking(store_bundle: Path, tmp_path: Path) -> None:
    archive = _bomb(store_bundle, tmp_path / "bomb.tar.gz", {"state.sqlite": BOMB})
    with pytest.raises(RegistryError, match="declares"):
        Registry(tmp_path / "registry").publish(archive)
    assert not any((tmp_path / "registry").rglob("*.json")) if (tmp_path / "registry").exists() else True


def test_the_manifest_sizes_are_what_is_checked(store_bundle: Path) -> None:
    """The fixture bundle lists sizes: the check above compares against something real."""
    manifest = json.loads((store_bundle / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["sizes"]["state.sqlite"] == (store_bundle / "state.sqlite").stat().st_size < BOMB
