"""The wheelhouse the runtime image installs from: synthenv's own wheel plus cp311 manylinux
wheels of its serving dependencies at the pins of ``constraints/latest.txt``, downloaded on
the host so the image build itself needs no network. Also what every image build shares:
``ImageError``, the source checkout (``project_root``) and the target platform.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

SERVE_EXTRA = "serve"
SERVING_PACKAGES = ("fastapi", "uvicorn", "mcp")
"""Serving dependencies to take from the project's extras while it has no ``serve`` extra."""

TARGET_PYTHON = "3.11"
CONSTRAINTS = "constraints/latest.txt"
TARGET_ABI = "cp311"
TARGET_GLIBC_MINOR = 36  # Debian bookworm ships glibc 2.36
# pip does not widen --platform to older manylinux tags, so list every tag bookworm accepts.
TARGET_PLATFORMS = (
    *tuple(f"manylinux_2_{minor}_x86_64" for minor in range(TARGET_GLIBC_MINOR, 4, -1)),
    "manylinux2014_x86_64",
    "manylinux2010_x86_64",
    "manylinux1_x86_64",
)
SOURCE_DATE_EPOCH = "315532800"  # 1980-01-01: the oldest time a zip (wheel) can hold

Log = Callable[[str], None]


class ImageError(Exception):
    """An image could not be built, found or saved; the message says what to do."""


class ImageUnavailable(ImageError):
    """What building needs is not here (no engine answers, no base image): not a failed build."""


def quiet(_: str) -> None:
    return None


def default_wheelhouse() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "synthenv" / "wheelhouse"


def project_root() -> Path:
    """The source checkout this package runs from; images are built from source."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "pyproject.toml").is_file():
        raise ImageError(f"building images needs a source checkout of synthenv (no pyproject.toml in {root})")
    return root


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
    return [
        entry
        for entry in sorted(root.iterdir())
        if entry.is_dir()
        and (entry / "__init__.py").is_file()
        and any(fnmatch.fnmatch(entry.name, p) for p in patterns)
    ]


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
    proc = subprocess.run(
        [sys.executable, "-m", "pip", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", **(env or {})},
    )
    if proc.returncode != 0:
        raise ImageError(f"pip {args[0]} failed: {(proc.stderr or proc.stdout).strip()[-2000:]}")


def build_wheelhouse(
    dest: Path | None = None, root: Path | None = None, extra: Iterable[str] = (), log: Log = quiet
) -> Path:
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
    # The exact versions CI tested (pyproject holds ranges); absent in an installed wheel.
    pins = root / CONSTRAINTS
    constraints = ["--constraint", str(pins)] if pins.is_file() else []
    _pip(
        [
            "download",
            "-q",
            "--dest",
            str(dest),
            "--only-binary=:all:",
            *platforms,
            "--python-version",
            TARGET_PYTHON,
            "--implementation",
            "cp",
            "--abi",
            TARGET_ABI,
            *constraints,
            *deps,
        ]
    )
    (dest / "requirements.txt").write_text("\n".join(runtime_requirements(root) + extra) + "\n", encoding="utf-8")
    return dest
