"""Container images: a runtime image, thin per-bundle images FROM it, and multi-bundle images.

Three layers of images, each built without network access:

* **base** (``synthenv-base:bookworm``): Debian bookworm minbase with python3 3.11,
  made by ``scripts/build-base-image.sh`` (debootstrap + ``docker import``) because no
  image registry can be assumed reachable.
* **runtime** (``synthenv-runtime:<version>``): the base plus a virtualenv holding the
  synthenv wheel and its serving dependencies, installed from a wheelhouse built on the
  host (``build_wheelhouse``), with ``--network none``.
* **bundle**: ``FROM`` the runtime, adding only the read-only bundle, so a thousand
  environment images share every layer but their last.

Build contexts are tarred here with fixed owners, modes and times: the bundle arrives
read-only for the non-root user, and equal inputs hit the build cache. Every image is
built from our own templates (``templates/Dockerfile.*``); a bundle contributes only its
listed files, as data under ``bundle/``, each re-hashed as it goes in, so nothing a bundle
carries (its own ``Dockerfile`` included) is ever run during a build.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline import __version__
from pipeline.bundle.format import MANIFEST, Bundle, load_bundle
from pipeline.package.wheelhouse import (
    ImageError,
    ImageUnavailable,
    Log,
    build_wheelhouse,
    project_root,
    quiet,
    runtime_requirements,
    source_digest,
)
from pipeline.world.blueprint import templates_dir

BASE_IMAGE = "synthenv-base:bookworm"
RUNTIME_REPOSITORY = "synthenv-runtime"
BUNDLE_REPOSITORY = "synthenv"
RUNTIME_SOURCE_LABEL = "io.synthenv.runtime.source"


@dataclass(frozen=True)
class BuiltImage:
    tag: str
    id: str
    size: int
    """Bytes of the whole image (all layers)."""
    added: int
    """Bytes this image adds to the one it is built FROM: for a bundle image, the bundle."""
    seconds: float
    labels: dict[str, str]

    def as_dict(self) -> dict[str, Any]:
        return {
            "tag": self.tag,
            "id": self.id,
            "size": self.size,
            "added": self.added,
            "seconds": self.seconds,
            "labels": self.labels,
        }


def runtime_tag(version: str = __version__) -> str:
    return f"{RUNTIME_REPOSITORY}:{version}"


def connect(timeout: int = 600, probe_timeout: int = 10) -> Any:
    """A docker client for a reachable engine, or ImageError within ``probe_timeout`` seconds.

    The probe has its own short timeout so a silent engine fails fast; the client it
    returns allows slow calls (``docker save`` of a large image on a busy machine).
    """
    import docker
    import requests

    try:
        probe = docker.from_env(timeout=probe_timeout)
        try:
            probe.ping()
        finally:
            probe.close()
        return docker.from_env(timeout=timeout)
    except (docker.errors.DockerException, requests.exceptions.RequestException) as exc:
        raise ImageUnavailable(f"no Docker engine reachable ({exc}); start the engine or set DOCKER_HOST") from None


def image_exists(client: Any, tag: str) -> bool:
    import docker

    try:
        client.images.get(tag)
    except docker.errors.ImageNotFound:
        return False
    return True


# -- base image ------------------------------------------------------------------------


def ensure_base_image(client: Any, tag: str = BASE_IMAGE, build: bool = False, log: Log = quiet) -> None:
    """Check the base image exists; with ``build``, make it with the debootstrap script first."""
    if image_exists(client, tag):
        return
    script = project_root() / "scripts" / "build-base-image.sh"
    if not build:
        raise ImageUnavailable(
            f"base image {tag} not found: build it with `sudo {script}` (debootstrap, needs a Debian "
            f"mirror) or `docker load -i` a saved copy; see docs/containers.md"
        )
    log(f"building base image {tag} with {script.name} (debootstrap; a few minutes)")
    env = {**os.environ, "SYNTHENV_BASE_IMAGE": tag, "PYTHON": sys.executable}
    proc = subprocess.run(["bash", str(script), "--tag", tag], env=env, capture_output=True, text=True)
    if proc.returncode != 0 or not image_exists(client, tag):
        raise ImageError(f"{script.name} failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}")


# -- build contexts --------------------------------------------------------------------


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime, info.uid, info.gid = len(data), 0o644, 0, 0, 0
    tar.addfile(info, io.BytesIO(data))


def _add_dir(tar: tarfile.TarFile, name: str) -> None:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.mtime, info.uid, info.gid = tarfile.DIRTYPE, 0o755, 0, 0, 0
    tar.addfile(info)


def _add_bundle(tar: tarfile.TarFile, bundle: Bundle, prefix: str) -> None:
    """The bundle's manifest and listed files (nothing else, never through a link), root-owned, zero times.

    Each file is hashed again as it is read, so a file swapped after the bundle was
    verified never reaches the image.
    """
    _add_dir(tar, prefix)
    _add_bytes(tar, f"{prefix}/{MANIFEST}", bundle.file(MANIFEST).read_bytes())
    for name, expected in sorted(bundle.manifest.files.items()):
        fd = os.open(bundle.file(name), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as fh:
            data = fh.read()
        if hashlib.sha256(data).hexdigest() != expected:
            raise ImageError(f"{bundle.ref}: {name} changed after the bundle was verified; refusing to build")
        _add_bytes(tar, f"{prefix}/{name}", data)


def _context(build: Callable[[tarfile.TarFile], None]) -> io.BytesIO:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        build(tar)
    buf.seek(0)
    return buf


def _build(client: Any, context: io.BytesIO, tag: str, buildargs: dict[str, str], parent: str, log: Log) -> BuiltImage:
    """Build with the engine's builder, no network, streaming its output to ``log``."""
    start = time.perf_counter()
    tail: list[str] = []
    image_id = ""
    try:
        for chunk in client.api.build(
            fileobj=context,
            custom_context=True,
            tag=tag,
            buildargs=buildargs,
            network_mode="none",
            rm=True,
            forcerm=True,
            decode=True,
            pull=False,
        ):
            if "error" in chunk:
                raise ImageError(f"building {tag} failed: {chunk['error'].strip()}\n" + "".join(tail[-20:]))
            line = chunk.get("stream", "")
            if line:
                tail.append(line)
                if line.strip():
                    log(line.rstrip())
            aux = chunk.get("aux")
            if isinstance(aux, dict) and "ID" in aux:
                image_id = aux["ID"]
    except ImageError:
        raise
    except Exception as exc:  # the SDK raises APIError/BuildError/requests errors
        raise ImageError(f"building {tag} failed: {exc}") from None
    seconds = round(time.perf_counter() - start, 2)
    return describe(client, image_id or tag, parent, seconds=seconds, tag=tag)


def describe(
    client: Any, image: str, parent: str | None = None, seconds: float = 0.0, tag: str | None = None
) -> BuiltImage:
    """Size, bytes added over ``parent`` (the FROM image) and labels of an image."""
    found = client.images.get(image)
    size = int(found.attrs.get("Size", 0))
    base = int(client.images.get(parent).attrs.get("Size", 0)) if parent else 0
    return BuiltImage(
        tag=tag or image, id=found.id, size=size, added=size - base, seconds=seconds, labels=dict(found.labels or {})
    )


# -- runtime image ---------------------------------------------------------------------


def build_runtime_image(
    client: Any, wheelhouse: Path | None = None, tag: str | None = None, base: str = BASE_IMAGE, log: Log = quiet
) -> BuiltImage:
    """The runtime image from the base image and a wheelhouse (built now when not given)."""
    tag = tag or runtime_tag()
    ensure_base_image(client, base)
    wheels = Path(wheelhouse) if wheelhouse is not None else build_wheelhouse(log=log)
    found = sorted(wheels.glob("*.whl"))
    if not any(w.name.startswith("synthenv-") for w in found):
        raise ImageError(f"wheelhouse {wheels} holds no synthenv wheel; build it with scripts/build-wheelhouse.sh")
    requirements = wheels / "requirements.txt"
    req = requirements.read_bytes() if requirements.is_file() else ("\n".join(runtime_requirements()) + "\n").encode()
    dockerfile = (templates_dir() / "Dockerfile.runtime").read_bytes()

    def fill(tar: tarfile.TarFile) -> None:
        _add_bytes(tar, "Dockerfile", dockerfile)
        _add_bytes(tar, "requirements.txt", req)
        _add_dir(tar, "wheels")
        for w in found:
            _add_bytes(tar, f"wheels/{w.name}", w.read_bytes())

    log(f"building runtime image {tag} FROM {base} ({len(found)} wheels, no network)")
    args = {"BASE_IMAGE": base, "SYNTHENV_VERSION": __version__, "SOURCE_DIGEST": source_digest()}
    built = _build(client, _context(fill), tag, args, base, log)
    if tag == runtime_tag():
        client.images.get(built.id).tag(RUNTIME_REPOSITORY, "latest")
    return built


def ensure_runtime_image(
    client: Any,
    tag: str | None = None,
    wheelhouse: Path | None = None,
    rebuild: bool = False,
    base: str = BASE_IMAGE,
    log: Log = quiet,
) -> str:
    """The runtime image tag, building it when missing, stale or ``rebuild`` is asked.

    The default image is stale when it was built from other sources than this checkout's
    (its ``io.synthenv.runtime.source`` label); an image named by ``tag`` is used as it is.
    """
    default = tag is None
    tag = tag or runtime_tag()
    if not rebuild and image_exists(client, tag):
        if not default:
            return tag
        built_from = client.images.get(tag).labels.get(RUNTIME_SOURCE_LABEL)
        if built_from == source_digest():
            return tag
        log(f"runtime image {tag} was built from other sources; rebuilding it")
    build_runtime_image(client, wheelhouse=wheelhouse, tag=tag, base=base, log=log)
    return tag


# -- bundle images ---------------------------------------------------------------------


def default_tag(bundles: list[Bundle]) -> str:
    if len(bundles) == 1:
        return f"{BUNDLE_REPOSITORY}/{bundles[0].name}:{bundles[0].version}"
    key = hashlib.sha256(",".join(sorted(b.digest for b in bundles)).encode()).hexdigest()[:12]
    return f"{BUNDLE_REPOSITORY}/bundles:{key}"


def build_bundle_image(
    client: Any, paths: Iterable[str | Path], tag: str | None = None, runtime: str | None = None, log: Log = quiet
) -> BuiltImage:
    """One image FROM the runtime holding the bundle(s), each verified before it goes in.

    One bundle builds from ``templates/Dockerfile.bundle`` and sits at ``/bundle``; several
    build from ``templates/Dockerfile.bundles`` and sit under ``/bundles/<name>/<version>``.
    The Dockerfile inside a bundle is never used: it travels as data.
    """
    bundles = [load_bundle(p) for p in paths]
    if not bundles:
        raise ValueError("give at least one bundle")
    refs = [b.ref for b in bundles]
    if len(set(refs)) != len(refs):
        raise ValueError(f"the same bundle twice: {', '.join(sorted(refs))}")
    runtime = runtime or runtime_tag()
    if not image_exists(client, runtime):
        raise ImageError(
            f"runtime image {runtime} not found: `synthenv package BUNDLE --image` builds it "
            "(or call ensure_runtime_image); see docs/containers.md"
        )
    tag = tag or default_tag(bundles)
    if len(bundles) == 1:
        bundle = bundles[0]
        single = (templates_dir() / "Dockerfile.bundle").read_bytes()

        def fill_one(tar: tarfile.TarFile) -> None:
            _add_bytes(tar, "Dockerfile", single)
            _add_bundle(tar, bundle, "bundle")

        context = _context(fill_one)
        args = {
            "RUNTIME_IMAGE": runtime,
            "BUNDLE_NAME": bundle.name,
            "BUNDLE_VERSION": bundle.version,
            "BUNDLE_DIGEST": bundle.digest,
        }
    else:
        dockerfile = (templates_dir() / "Dockerfile.bundles").read_bytes()

        def fill(tar: tarfile.TarFile) -> None:
            _add_bytes(tar, "Dockerfile", dockerfile)
            _add_dir(tar, "bundles")
            for b in bundles:
                _add_dir(tar, f"bundles/{b.name}")
                _add_bundle(tar, b, f"bundles/{b.name}/{b.version}")

        context = _context(fill)
        listing = json.dumps({b.ref: b.digest for b in bundles}, sort_keys=True, separators=(",", ":"))
        args = {
            "RUNTIME_IMAGE": runtime,
            "BUNDLES": listing,
            "DEFAULT_BUNDLE": f"/bundles/{bundles[0].name}/{bundles[0].version}",
        }
    log(f"building {tag} FROM {runtime} with {', '.join(refs)}")
    built = _build(client, context, tag, args, runtime, log)
    if len(bundles) == 1 and built.labels.get("io.synthenv.bundle.digest") != bundles[0].digest:
        raise ImageError(f"{tag}: the built image does not carry io.synthenv.bundle.digest={bundles[0].digest}")
    return built


def save_image(client: Any, tag: str, target: Path) -> Path:
    """``docker save`` to a tarball (written beside and renamed, so never half a file)."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    try:
        with partial.open("wb") as fh:
            for chunk in client.images.get(tag).save(named=True):
                fh.write(chunk)
        partial.replace(target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return target
