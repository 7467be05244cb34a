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
read-only for the non-root user, and equal inputs hit the build cache.
"""

from __future__ import annotations

import fnmatch
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline import __version__
from pipeline.blueprint import templates_dir
from pipeline.bundle import Bundle, load_bundle

BASE_IMAGE = "synthenv-base:bookworm"
RUNTIME_REPOSITORY = "synthenv-runtime"
BUNDLE_REPOSITORY = "synthenv"
SERVE_EXTRA = "serve"
RUNTIME_SOURCE_LABEL = "io.synthenv.runtime.source"
SERVING_PACKAGES = ("fastapi", "uvicorn", "mcp")
"""Serving dependencies to take from the project's extras while it has no ``serve`` extra."""

TARGET_PYTHON = "3.11"
TARGET_ABI = "cp311"
TARGET_GLIBC_MINOR = 36  # Debian bookworm ships glibc 2.36
# pip does not widen --platform to older manylinux tags, so list every tag bookworm accepts.
TARGET_PLATFORMS = tuple(f"manylinux_2_{minor}_x86_64" for minor in range(TARGET_GLIBC_MINOR, 4, -1)) + (
    "manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64")
SOURCE_DATE_EPOCH = "315532800"  # 1980-01-01: the oldest time a zip (wheel) can hold

Log = Callable[[str], None]


class ImageError(Exception):
    """An image could not be built, found or saved; the message says what to do."""


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
        return {"tag": self.tag, "id": self.id, "size": self.size, "added": self.added,
                "seconds": self.seconds, "labels": self.labels}


def _quiet(_: str) -> None:
    return None


def runtime_tag(version: str = __version__) -> str:
    return f"{RUNTIME_REPOSITORY}:{version}"


def default_wheelhouse() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "synthenv" / "wheelhouse"


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
        raise ImageError(f"no Docker engine reachable ({exc}); start the engine or set DOCKER_HOST") from None


def image_exists(client: Any, tag: str) -> bool:
    import docker

    try:
        client.images.get(tag)
    except docker.errors.ImageNotFound:
        return False
    return True


# -- base image ------------------------------------------------------------------------

def project_root() -> Path:
    """The source checkout this package runs from; images are built from source."""
    root = Path(__file__).resolve().parent.parent
    if not (root / "pyproject.toml").is_file():
        raise ImageError(f"building images needs a source checkout of synthenv (no pyproject.toml in {root})")
    return root


def ensure_base_image(client: Any, tag: str = BASE_IMAGE, build: bool = False, log: Log = _quiet) -> None:
    """Check the base image exists; with ``build``, make it with the debootstrap script first."""
    if image_exists(client, tag):
        return
    script = project_root() / "scripts" / "build-base-image.sh"
    if not build:
        raise ImageError(f"base image {tag} not found: build it with `sudo {script}` (debootstrap, needs a Debian "
                         f"mirror) or `docker load -i` a saved copy; see docs/containers.md")
    log(f"building base image {tag} with {script.name} (debootstrap; a few minutes)")
    env = {**os.environ, "SYNTHENV_BASE_IMAGE": tag, "PYTHON": sys.executable}
    proc = subprocess.run(["bash", str(script), "--tag", tag], env=env, capture_output=True, text=True)
    if proc.returncode != 0 or not image_exists(client, tag):
        raise ImageError(f"{script.name} failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}")


# -- wheelhouse ------------------------------------------------------------------------

def _pyproject(root: Path) -> dict[str, Any]:
    with (root / "pyproject.toml").open("rb") as fh:
        return tomllib.load(fh)


def runtime_requirements(root: Path | None = None) -> list[str]:
    """What the runtime image installs: synthenv with its serving extra.

    Until the project defines a ``serve`` extra, the serving packages are taken, with
    their pins, from whichever extra lists them.
    """
    project = _pyproject(root or project_root())["project"]
    extras: dict[str, list[str]] = project.get("optional-dependencies", {})
    if SERVE_EXTRA in extras:
        return [f"{project['name']}[{SERVE_EXTRA}]"]
    pins: dict[str, str] = {}
    for requirements in extras.values():
        for req in requirements:
            base = req.split("[")[0].split("=")[0].split("<")[0].split(">")[0].strip().lower()
            if base in SERVING_PACKAGES:
                pins.setdefault(base, req)
    return [project["name"], *(pins[p] for p in SERVING_PACKAGES if p in pins)]


def _dependencies(root: Path) -> list[str]:
    """The third-party requirements of the runtime install (project deps + serving extra)."""
    project = _pyproject(root)["project"]
    extras: dict[str, list[str]] = project.get("optional-dependencies", {})
    deps = list(project.get("dependencies", []))
    for req in runtime_requirements(root)[1:]:
        deps.append(req)
    if SERVE_EXTRA in extras:
        deps.extend(r for r in extras[SERVE_EXTRA] if not r.startswith(f"{project['name']}["))
    return deps


_PROJECT_FILES = ("pyproject.toml", "README.md", "LICENSE", "setup.cfg", "MANIFEST.in")


def _packages(root: Path) -> list[Path]:
    """The top-level packages the wheel holds (setuptools' ``packages.find.include``)."""
    config = _pyproject(root).get("tool", {}).get("setuptools", {}).get("packages", {}).get("find", {})
    patterns = config.get("include", ["*"])
    return [entry for entry in sorted(root.iterdir())
            if entry.is_dir() and (entry / "__init__.py").is_file() and any(fnmatch.fnmatch(entry.name, p) for p in patterns)]


def _source_copy(root: Path, dest: Path) -> None:
    """Copy only what the wheel is built from, so stale build/ trees never leak into it."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")
    for name in _PROJECT_FILES:
        if (root / name).is_file():
            shutil.copy2(root / name, dest / name)
    for package in _packages(root):
        shutil.copytree(package, dest / package.name, ignore=ignore)


def source_digest(root: Path | None = None) -> str:
    """sha256 of the sources the runtime wheel is built from: tells a stale runtime image apart."""
    root = root or project_root()
    files = [root / n for n in _PROJECT_FILES if (root / n).is_file()]
    for package in _packages(root):
        files += [p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]
    h = hashlib.sha256()
    for path in sorted(files):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return "sha256:" + h.hexdigest()


def _pip(args: list[str], env: dict[str, str] | None = None) -> None:
    proc = subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True,
                          env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", **(env or {})})
    if proc.returncode != 0:
        raise ImageError(f"pip {args[0]} failed: {(proc.stderr or proc.stdout).strip()[-2000:]}")


def build_wheelhouse(dest: Path | None = None, root: Path | None = None, extra: Iterable[str] = (),
                     log: Log = _quiet) -> Path:
    """Wheels for the runtime image: synthenv's own wheel plus cp311 manylinux x86_64 wheels of its deps.

    ``extra`` adds requirements to the image (an fsspec backend such as ``s3fs``, say).
    Needs PyPI (run it where PyPI is reachable, then carry the directory); the image
    build that consumes it needs nothing.
    """
    extra = list(extra)
    root = root or project_root()
    dest = Path(dest or default_wheelhouse())
    dest.mkdir(parents=True, exist_ok=True)
    name = _pyproject(root)["project"]["name"]
    for old in dest.glob(f"{name}-*.whl"):
        old.unlink()
    log(f"building the {name} wheel into {dest}")
    with tempfile.TemporaryDirectory(prefix="synthenv-src-") as src:
        _source_copy(root, Path(src))
        _pip(["wheel", "--no-deps", "-q", "--wheel-dir", str(dest), src], env={"SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH})
    deps = _dependencies(root) + extra
    log(f"downloading {len(deps)} requirements for CPython {TARGET_PYTHON} manylinux x86_64")
    platforms = [arg for p in TARGET_PLATFORMS for arg in ("--platform", p)]
    _pip(["download", "-q", "--dest", str(dest), "--only-binary=:all:", *platforms, "--python-version", TARGET_PYTHON,
          "--implementation", "cp", "--abi", TARGET_ABI, *deps])
    (dest / "requirements.txt").write_text("\n".join(runtime_requirements(root) + extra) + "\n", encoding="utf-8")
    return dest


# -- build contexts --------------------------------------------------------------------

def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime, info.uid, info.gid = len(data), 0o644, 0, 0, 0
    tar.addfile(info, io.BytesIO(data))


def _add_dir(tar: tarfile.TarFile, name: str) -> None:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.mtime, info.uid, info.gid = tarfile.DIRTYPE, 0o755, 0, 0, 0
    tar.addfile(info)


def _add_tree(tar: tarfile.TarFile, source: Path, prefix: str) -> None:
    """A directory with root-owned, world-readable, non-writable entries and zero times."""
    if prefix:
        _add_dir(tar, prefix)
    for p in sorted(source.rglob("*")):
        name = f"{prefix}/{p.relative_to(source).as_posix()}" if prefix else p.relative_to(source).as_posix()
        if p.is_dir():
            _add_dir(tar, name)
        elif p.is_file():
            _add_bytes(tar, name, p.read_bytes())


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
        for chunk in client.api.build(fileobj=context, custom_context=True, tag=tag, buildargs=buildargs,
                                      network_mode="none", rm=True, forcerm=True, decode=True, pull=False):
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


def describe(client: Any, image: str, parent: str | None = None, seconds: float = 0.0, tag: str | None = None) -> BuiltImage:
    """Size, bytes added over ``parent`` (the FROM image) and labels of an image."""
    found = client.images.get(image)
    size = int(found.attrs.get("Size", 0))
    base = int(client.images.get(parent).attrs.get("Size", 0)) if parent else 0
    return BuiltImage(tag=tag or image, id=found.id, size=size, added=size - base, seconds=seconds,
                      labels=dict(found.labels or {}))


# -- runtime image ---------------------------------------------------------------------

def build_runtime_image(client: Any, wheelhouse: Path | None = None, tag: str | None = None,
                        base: str = BASE_IMAGE, log: Log = _quiet) -> BuiltImage:
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


def ensure_runtime_image(client: Any, tag: str | None = None, wheelhouse: Path | None = None,
                         rebuild: bool = False, base: str = BASE_IMAGE, log: Log = _quiet) -> str:
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


def build_bundle_image(client: Any, paths: Iterable[str | Path], tag: str | None = None,
                       runtime: str | None = None, log: Log = _quiet) -> BuiltImage:
    """One image FROM the runtime holding the bundle(s), each verified before it goes in.

    One bundle builds from the bundle's own Dockerfile (it is part of the bundle); several
    build from ``templates/Dockerfile.bundles`` and sit under ``/bundles/<name>/<version>``.
    """
    bundles = [load_bundle(p) for p in paths]
    if not bundles:
        raise ValueError("give at least one bundle")
    refs = [b.ref for b in bundles]
    if len(set(refs)) != len(refs):
        raise ValueError(f"the same bundle twice: {', '.join(sorted(refs))}")
    runtime = runtime or runtime_tag()
    if not image_exists(client, runtime):
        raise ImageError(f"runtime image {runtime} not found: `synthenv package BUNDLE --image` builds it "
                         "(or call ensure_runtime_image); see docs/containers.md")
    tag = tag or default_tag(bundles)
    if len(bundles) == 1:
        bundle = bundles[0]
        if not bundle.file("Dockerfile").is_file():
            raise ImageError(f"{bundle.ref} has no Dockerfile; regenerate it with this version of synthenv")
        context = _context(lambda tar: _add_tree(tar, bundle.path, ""))
        args = {"RUNTIME_IMAGE": runtime, "BUNDLE_DIGEST": bundle.digest}
    else:
        dockerfile = (templates_dir() / "Dockerfile.bundles").read_bytes()

        def fill(tar: tarfile.TarFile) -> None:
            _add_bytes(tar, "Dockerfile", dockerfile)
            _add_dir(tar, "bundles")
            for b in bundles:
                _add_dir(tar, f"bundles/{b.name}")
                _add_tree(tar, b.path, f"bundles/{b.name}/{b.version}")

        context = _context(fill)
        listing = json.dumps({b.ref: b.digest for b in bundles}, sort_keys=True, separators=(",", ":"))
        args = {"RUNTIME_IMAGE": runtime, "BUNDLES": listing,
                "DEFAULT_BUNDLE": f"/bundles/{bundles[0].name}/{bundles[0].version}"}
    log(f"building {tag} FROM {runtime} with {', '.join(refs)}")
    built = _build(client, context, tag, args, runtime, log)
    if len(bundles) == 1 and built.labels.get("io.synthenv.bundle.digest") != bundles[0].digest:
        raise ImageError(f"{tag}: the bundle's Dockerfile does not set io.synthenv.bundle.digest; regenerate the bundle")
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
