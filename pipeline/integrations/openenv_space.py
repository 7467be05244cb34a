"""``synthenv package BUNDLE --openenv DIR``: an OpenEnv environment package (and Space) for one bundle.

The layout is OpenEnv's own (``openenv init``'s scaffold): DIR is the package ``<module>``
(``<bundle name>_env``) holding the client (``client.py``, ``models.py``, importing only
openenv-core), with the server package ``<module>.server`` in ``server/`` (``app.py`` with
the ``main()`` OpenEnv's validator asks for, the digest-checked bundle in
``server/bundle/``), plus ``openenv.yaml``, ``pyproject.toml`` (distribution
``openenv-<module>``, so ``AutoEnv`` discovers it), a ``Dockerfile`` and a ``README.md`` whose
front matter is the Space card. An install adds no top-level ``server`` package.

**No synthenv distribution.** The server's runtime (synthenv's ``pipeline`` and
``generators`` sources) is vendored into ``server/vendor/`` and put on ``sys.path`` by
``server/app.py`` alone; the Space's dependencies are synthenv's own third-party
requirements and the OpenEnv pins. So the image installs without a bundled wheel and without
asking any index for a ``synthenv`` (a name nobody has claimed there, which anyone could).
Same bundle and synthenv sources, same bytes: nothing here reads the clock.
"""

from __future__ import annotations

import json
import re
import shutil
from importlib import metadata
from pathlib import Path
from typing import Any

from pipeline.bundle.format import Bundle
from pipeline.integrations import openenv_space_files as files

OPENENV_REQUIREMENTS = ("openenv-core==0.3.0", "fastmcp==4.1.2")
"""The OpenEnv pins the Space runs with (the ``openenv`` extra's)."""
VENDORED = ("pipeline", "generators")
"""synthenv's import packages the server runs on, copied into ``server/vendor/``."""
_SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo")


def module_name(bundle_name: str) -> str:
    """The Python package of a bundle's Space: ``online-store-s0`` -> ``online_store_s0_env``."""
    base = re.sub(r"[^0-9a-zA-Z_]+", "_", bundle_name).strip("_").lower() or "bundle"
    if base[0].isdigit():
        base = "b_" + base
    return base if base.endswith("_env") else f"{base}_env"


def class_stem(module: str) -> str:
    """The class-name stem OpenEnv's discovery infers from a module: ``online_store_s0_env`` -> ``OnlineStoreS0``."""
    return "".join(word.capitalize() for word in module.removesuffix("_env").split("_"))


def runtime_requirements() -> list[str]:
    """synthenv's own third-party requirements (no extras): what the vendored runtime imports."""
    try:
        found = metadata.requires("synthenv") or []
    except metadata.PackageNotFoundError as exc:
        raise ValueError("synthenv's package metadata is missing; install synthenv (pip install -e .)") from exc
    return sorted(r for r in found if "extra ==" not in r)


def _toml(value: Any) -> str:
    return json.dumps(value)


def _pyproject(bundle: Bundle, module: str) -> str:
    deps = [*OPENENV_REQUIREMENTS, *runtime_requirements()]
    lines = [
        "[build-system]",
        'requires = ["setuptools>=68"]',
        'build-backend = "setuptools.build_meta"',
        "",
        "[project]",
        f"name = {_toml('openenv-' + module)}",
        f"version = {_toml(bundle.version)}",
        f"description = {_toml(f'synthenv bundle {bundle.ref} as an OpenEnv environment')}",
        'requires-python = ">=3.11"',
        "dependencies = [" + ", ".join(_toml(d) for d in deps) + "]",
        "",
        "[project.scripts]",
        f"server = {_toml(module + '.server.app:main')}",
        "",
        "[tool.setuptools]",
        f"packages = [{_toml(module)}, {_toml(module + '.server')}]",
        f'package-dir = {{ {_toml(module)} = ".", {_toml(module + ".server")} = "server" }}',
        "include-package-data = false",
        "",
        "[tool.setuptools.package-data]",
        f'{_toml(module)} = ["openenv.yaml", "README.md"]',
        f'{_toml(module + ".server")} = ["bundle/**/*", "vendor/**/*"]',
        "",
        "[tool.synthenv]",
        f"bundle = {_toml(bundle.ref)}",
        f"digest = {_toml(bundle.digest)}",
        f"kind = {_toml(bundle.manifest.kind)}",
        "",
    ]
    return "\n".join(lines)


def _openenv_yaml(bundle: Bundle, module: str) -> str:
    import yaml

    doc = {
        "spec_version": 1,
        "name": module,
        "type": "space",
        "runtime": "fastapi",
        "app": "server.app:app",
        "port": 8000,
        "description": f"synthenv bundle {bundle.ref}",
        "metadata": {"synthenv": {"bundle": bundle.ref, "version": bundle.version, "digest": bundle.digest}},
    }
    return yaml.safe_dump(doc, sort_keys=False)


def _readme(bundle: Bundle, module: str) -> str:
    import yaml

    front = {
        "title": f"{bundle.name} (synthenv)",
        "emoji": "🧪",
        "colorFrom": "blue",
        "colorTo": "green",
        "sdk": "docker",
        "pinned": False,
        "app_port": 8000,
        "tags": ["openenv", "synthenv", bundle.manifest.kind],
        "synthenv_bundle": bundle.ref,
        "synthenv_digest": bundle.digest,
    }
    body = files.README_BODY.format(
        name=bundle.name,
        version=bundle.version,
        ref=bundle.ref,
        digest=bundle.digest,
        tasks=bundle.manifest.counts.tasks,
        module=module,
        cls=class_stem(module),
        key=module.removesuffix("_env"),
    )
    return "---\n" + yaml.safe_dump(front, sort_keys=False, allow_unicode=True) + "---\n\n" + body


def _vendor(dest: Path) -> list[str]:
    """Copy synthenv's import packages into ``dest`` (sources only, no caches); their names."""
    import importlib

    for name in VENDORED:
        package = importlib.import_module(name)
        source = Path(next(iter(package.__path__)))
        shutil.copytree(source, dest / name, ignore=_SKIP)
    return [f"server/vendor/{name}/" for name in VENDORED]


def write_openenv_space(bundle: Bundle, dest: str | Path) -> dict[str, Any]:
    """Write the environment package for ``bundle`` into ``dest`` (which must be empty or absent)."""
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise ValueError(f"{dest} is not empty; give a new directory for the OpenEnv Space")
    module = module_name(bundle.name)
    fields = {"ref": bundle.ref, "digest": bundle.digest, "cls": class_stem(module)}
    (dest / "server").mkdir(parents=True, exist_ok=True)
    shutil.copytree(bundle.path, dest / "server" / "bundle")
    vendored = _vendor(dest / "server" / "vendor")
    texts = {
        "openenv.yaml": _openenv_yaml(bundle, module),
        "pyproject.toml": _pyproject(bundle, module),
        "Dockerfile": files.DOCKERFILE.format(**fields),
        "README.md": _readme(bundle, module),
        "__init__.py": files.INIT.format(**fields),
        "client.py": files.CLIENT.format(**fields),
        "models.py": files.MODELS.format(**fields),
        "server/__init__.py": files.SERVER_INIT.format(**fields),
        "server/app.py": files.APP.format(**fields),
    }
    for name, text in texts.items():
        (dest / name).write_text(text, encoding="utf-8")
    return {
        "dir": str(dest),
        "bundle": bundle.ref,
        "digest": bundle.digest,
        "module": module,
        "client": f"{module}.client.{class_stem(module)}Env",
        "files": sorted([*texts, "server/bundle/", *vendored]),
    }
