"""``synthenv package BUNDLE --openenv DIR``: what an OpenEnv Space (or ``openenv push``) needs.

The directory holds a copy of the bundle (digest-checked again when the server loads it),
``server/app.py`` (OpenEnv's app from :mod:`pipeline.integrations.openenv`, with the
``main()`` entry OpenEnv's validator asks for), ``openenv.yaml``, ``pyproject.toml``,
a ``Dockerfile`` and a ``README.md`` whose front matter is the Space card. The bundle's
name, version and digest are in all three metadata files. synthenv's own wheel goes into
``wheels/`` so the image builds without synthenv on a package index. Same bundle and
synthenv version, same bytes: nothing here reads the clock.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from pipeline import __version__
from pipeline.bundle.format import Bundle

OPENENV_REQUIREMENTS = ("openenv-core==0.3.0", "fastmcp==4.1.2")
"""The OpenEnv pins the Space runs with (the ``openenv`` extra's)."""
SOURCE_DATE_EPOCH = "315532800"

APP = '''"""OpenEnv server for the synthenv bundle {ref} ({digest})."""

from __future__ import annotations

import os
from pathlib import Path

from pipeline.integrations.openenv import create_openenv_app

BUNDLE = Path(__file__).resolve().parent.parent / "bundle"
app = create_openenv_app(
    BUNDLE,
    max_sessions=int(os.environ.get("SYNTHENV_MAX_SESSIONS", "256")),
    session_ttl=float(os.environ.get("SYNTHENV_SESSION_TTL", "900")),
)


def main() -> None:
    import uvicorn

    uvicorn.run(app, host=os.environ.get("HOST", "0.0.0.0"), port=int(os.environ.get("PORT", "8000")))


if __name__ == "__main__":
    main()
'''

DOCKERFILE = """# OpenEnv Space for the synthenv bundle {ref}
# digest {digest}
FROM python:3.11-slim
WORKDIR /app/env
COPY . /app/env
RUN pip install --no-cache-dir --find-links /app/env/wheels /app/env
ENV SYNTHENV_BUNDLE_DIGEST={digest}
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \\
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health')"
CMD ["python", "-m", "server.app"]
"""


def _toml_str(value: str) -> str:
    return json.dumps(value)


def _pyproject(bundle: Bundle, wheel: str | None) -> str:
    deps = [*OPENENV_REQUIREMENTS, f"synthenv[serve]=={__version__}"]
    lines = [
        "[build-system]",
        'requires = ["setuptools>=68"]',
        'build-backend = "setuptools.build_meta"',
        "",
        "[project]",
        f"name = {_toml_str('openenv-' + bundle.name)}",
        f"version = {_toml_str(bundle.version)}",
        f"description = {_toml_str(f'synthenv bundle {bundle.ref} as an OpenEnv environment')}",
        'requires-python = ">=3.11,<3.12"',
        "dependencies = [" + ", ".join(_toml_str(d) for d in deps) + "]",
        "",
        "[project.scripts]",
        'server = "server.app:main"',
        "",
        "[tool.setuptools]",
        'packages = ["server"]',
        "",
        "[tool.synthenv]",
        f"bundle = {_toml_str(bundle.ref)}",
        f"digest = {_toml_str(bundle.digest)}",
        f"kind = {_toml_str(str(bundle.manifest.get('kind') or 'tool-use'))}",
        f"wheel = {_toml_str(wheel or '')}",
        "",
    ]
    return "\n".join(lines)


def _openenv_yaml(bundle: Bundle) -> str:
    import yaml

    doc = {
        "spec_version": 1,
        "name": bundle.name,
        "type": "space",
        "runtime": "fastapi",
        "app": "server.app:app",
        "port": 8000,
        "metadata": {"synthenv": {"bundle": bundle.ref, "version": bundle.version, "digest": bundle.digest}},
    }
    return yaml.safe_dump(doc, sort_keys=False)


def _readme(bundle: Bundle) -> str:
    import yaml

    front = {
        "title": f"{bundle.name} (synthenv)",
        "emoji": "🧪",
        "colorFrom": "blue",
        "colorTo": "green",
        "sdk": "docker",
        "pinned": False,
        "app_port": 8000,
        "tags": ["openenv", "synthenv", str(bundle.manifest.get("kind") or "tool-use")],
        "synthenv_bundle": bundle.ref,
        "synthenv_digest": bundle.digest,
    }
    counts = bundle.manifest.get("counts") or {}
    body = f"""# {bundle.name} {bundle.version}

A synthenv environment served with OpenEnv: `{bundle.ref}`, digest `{bundle.digest}`
({counts.get("tasks", len(bundle.read_jsonl("tasks.jsonl")))} tasks). The server refuses to
start if the bundle's files do not match that digest.

```python
from openenv.core import GenericEnvClient

async with GenericEnvClient(base_url="http://127.0.0.1:8000") as env:
    result = await env.reset(seed=0)                     # result.observation["content"]["instruction"]
    result = await env.step({{"tool": "NAME", "arguments": {{}}}})
    result = await env.step({{"answer": "..."}})         # result.reward on the final observation
```

Over HTTP, OpenEnv's MCP endpoint (`/mcp`, JSON-RPC with `openenv/session/create`) lists the
tools plus `start_task` and `submit_answer`. Build: `docker build -t {bundle.name} .`
"""
    return "---\n" + yaml.safe_dump(front, sort_keys=False, allow_unicode=True) + "---\n\n" + body


def _local_setuptools() -> bool:
    """Whether this environment has a setuptools new enough to build synthenv without a download."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        major = int(version("setuptools").split(".")[0])
    except (PackageNotFoundError, ValueError):
        return False
    return major >= 68


def build_synthenv_wheel(dest: Path) -> str:
    """synthenv's own wheel (reproducible: fixed SOURCE_DATE_EPOCH) into ``dest``; its file name.

    Built with this environment's setuptools when it is recent enough (no network); otherwise
    pip's isolated build fetches setuptools from the package index first.
    """
    from pipeline.package.wheelhouse import project_root

    dest.mkdir(parents=True, exist_ok=True)
    before = set(dest.glob("synthenv-*.whl"))
    isolation = ["--no-build-isolation"] if _local_setuptools() else []
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", *isolation, "--wheel-dir", str(dest)]
    subprocess.run(
        [*command, str(project_root())],
        check=True,
        env={**os.environ, "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    built = sorted(set(dest.glob("synthenv-*.whl")) - before) or sorted(dest.glob("synthenv-*.whl"))
    if not built:
        raise ValueError(f"pip wheel wrote no synthenv wheel into {dest}")
    return built[-1].name


def write_openenv_space(bundle: Bundle, dest: str | Path, wheel: bool = True) -> dict[str, Any]:
    """Write the Space directory for ``bundle`` into ``dest`` (which must be empty or absent)."""
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise ValueError(f"{dest} is not empty; give a new directory for the OpenEnv Space")
    (dest / "server").mkdir(parents=True, exist_ok=True)
    shutil.copytree(bundle.path, dest / "bundle")
    wheel_name = build_synthenv_wheel(dest / "wheels") if wheel else None
    files = {
        "openenv.yaml": _openenv_yaml(bundle),
        "pyproject.toml": _pyproject(bundle, wheel_name),
        "Dockerfile": DOCKERFILE.format(ref=bundle.ref, digest=bundle.digest),
        "README.md": _readme(bundle),
        "server/__init__.py": "",
        "server/app.py": APP.format(ref=bundle.ref, digest=bundle.digest),
    }
    for name, text in files.items():
        (dest / name).write_text(text, encoding="utf-8")
    return {
        "dir": str(dest),
        "bundle": bundle.ref,
        "digest": bundle.digest,
        "files": sorted([*files, "bundle/", *([f"wheels/{wheel_name}"] if wheel_name else [])]),
    }
