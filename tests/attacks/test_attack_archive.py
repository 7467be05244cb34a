"""Hostile bundle archives: members that climb, links, devices, gzip bombs, too many members."""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

import pytest
from craft import files_under

from pipeline.bundle.archive import ArchiveError, extract_archive
from pipeline.bundle.format import load_bundle, write_archive
from pipeline.registry.registry import Registry, RegistryError


def _archive(path: Path, members: list[tarfile.TarInfo], data: dict[str, bytes] | None = None) -> Path:
    data = data or {}
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for info in members:
            payload = data.get(info.name)
            if payload is not None:
                info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload) if payload is not None else None)
    path.write_bytes(gzip.compress(buf.getvalue(), mtime=0))
    return path


def _member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    info.mode = 0o644
    return info


def test_a_real_archive_round_trips(store_bundle: Path, tmp_path: Path) -> None:
    archive = write_archive(store_bundle, tmp_path / "b.tar.gz")
    out = extract_archive(archive, tmp_path / "out")
    assert load_bundle(out).digest == load_bundle(store_bundle).digest


def test_publish_takes_an_archive(store_bundle: Path, tmp_path: Path) -> None:
    archive = write_archive(store_bundle, tmp_path / "b.tar.gz")
    entry = Registry(tmp_path / "registry").publish(archive).entry
    assert entry.digest == load_bundle(store_bundle).digest


@pytest.mark.parametrize(
    "member",
    [
        _member("../evil.txt"),
        _member("/tmp/evil-absolute.txt"),
        _member("sub/../../evil.txt"),
        _member("docs/evil.txt"),
        _member("link", tarfile.SYMTYPE, "/etc/passwd"),
        _member("hard", tarfile.LNKTYPE, "/etc/passwd"),
        _member("dev", tarfile.CHRTYPE),
        _member("fifo", tarfile.FIFOTYPE),
        _member("dir", tarfile.DIRTYPE),
    ],
    ids=["climb", "absolute", "dotdot-inside", "subdir", "symlink", "hardlink", "device", "fifo", "directory"],
)
def test_a_hostile_member_is_refused_and_nothing_is_written(tmp_path: Path, member: tarfile.TarInfo) -> None:
    archive = _archive(tmp_path / "a.tar.gz", [member], {member.name: b"x"} if member.isreg() else None)
    before = files_under(tmp_path)
    with pytest.raises(ArchiveError, match="member"):
        extract_archive(archive, tmp_path / "deep" / "out")
    assert files_under(tmp_path) - before <= {"deep"}


def test_a_gzip_bomb_stops_at_the_limit(tmp_path: Path) -> None:
    """64 MiB of zeros in 64 KiB of gzip; the limit (here 1 MiB) stops it before it is written."""
    archive = _archive(tmp_path / "bomb.tar.gz", [_member("state.sqlite")], {"state.sqlite": bytes(64 << 20)})
    assert archive.stat().st_size < 1 << 20
    with pytest.raises(ArchiveError, match="limit"):
        extract_archive(archive, tmp_path / "out", max_bytes=1 << 20)
    assert not (tmp_path / "out").exists()


def test_too_many_members_are_refused(tmp_path: Path) -> None:
    members = [_member(f"f{i}.txt") for i in range(50)]
    archive = _archive(tmp_path / "many.tar.gz", members, {m.name: b"x" for m in members})
    with pytest.raises(ArchiveError, match="members"):
        extract_archive(archive, tmp_path / "out", max_members=10)


def test_a_duplicate_member_is_refused(tmp_path: Path) -> None:
    archive = _archive(tmp_path / "dup.tar.gz", [_member("a.txt"), _member("a.txt")], {"a.txt": b"x"})
    with pytest.raises(ArchiveError, match="twice"):
        extract_archive(archive, tmp_path / "out")


def test_not_an_archive_is_an_archive_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"\x1f\x8b" + b"junk" * 100)
    with pytest.raises(ArchiveError):
        extract_archive(junk, tmp_path / "out")


def test_publish_refuses_a_hostile_archive(tmp_path: Path) -> None:
    archive = _archive(tmp_path / "a.tar.gz", [_member("../evil.txt")], {"../evil.txt": b"x"})
    with pytest.raises(RegistryError, match="member"):
        Registry(tmp_path / "registry").publish(archive)
    assert not (tmp_path / "evil.txt").exists()
