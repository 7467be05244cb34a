"""``synthenv package --openenv``: an OpenEnv environment package in OpenEnv's own layout.

Installed (without dependencies, into a private target: the test venv already has them),
``AutoEnv`` finds its client, and that client plays an episode against the installed
server on loopback, with the vendored runtime rather than the synthenv install.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("openenv.core", reason="needs the openenv extra: pip install 'synthenv[openenv]'")

from typer.testing import CliRunner

from pipeline.cli.main import app
from pipeline.runtime.environment import Environment

TOKEN = "trainer-token-for-tests-0123456789"


def tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def space(store_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("space") / "env"
    result = CliRunner().invoke(app, ["package", str(store_bundle), "--openenv", str(dest), "--json"])
    assert result.exit_code == 0, result.output
    return dest


def test_layout_is_openenvs(space: Path, store_bundle: Path) -> None:
    import yaml
    from openenv.cli._validation import validate_multi_mode_deployment

    digest = Environment.from_bundle(store_bundle).bundle.digest
    module = "online_store_s7_env"
    for name in ("__init__.py", "client.py", "models.py", "openenv.yaml", "Dockerfile", "server/app.py"):
        assert (space / name).is_file(), name
    project = tomllib.loads((space / "pyproject.toml").read_text())
    assert project["project"]["name"] == f"openenv-{module}"
    # Installs the bundle's package and its server package, never a top-level `server`.
    assert project["tool"]["setuptools"]["packages"] == [module, f"{module}.server"]
    assert project["project"]["scripts"]["server"] == f"{module}.server.app:main"
    # No bundled wheel, and no dependency on a name no index vouches for.
    assert not (space / "wheels").exists()
    assert not [d for d in project["project"]["dependencies"] if d.lower().startswith("synthenv")]
    assert project["tool"]["synthenv"]["digest"] == digest
    spec = yaml.safe_load((space / "openenv.yaml").read_text())
    assert spec["name"] == module and spec["metadata"]["synthenv"]["digest"] == digest
    front = yaml.safe_load((space / "README.md").read_text().split("---")[1])
    assert front["sdk"] == "docker" and front["synthenv_digest"] == digest and "openenv" in front["tags"]
    assert digest in (space / "Dockerfile").read_text()
    # OpenEnv's own check: everything but the lock file, which `uv lock` makes (it needs an index).
    _ok, issues = validate_multi_mode_deployment(space)
    assert issues == ["Missing uv.lock - run 'uv lock' to generate it"]


def test_same_bundle_same_bytes(space: Path, store_bundle: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    assert CliRunner().invoke(app, ["package", str(store_bundle), "--openenv", str(again)]).exit_code == 0
    assert tree_digest(again) == tree_digest(space)
    refused = CliRunner().invoke(app, ["package", str(store_bundle), "--openenv", str(space)])
    assert refused.exit_code == 2 and "not empty" in refused.output


PLAY = """
import asyncio, os, sys, threading, time
sys.path.insert(0, sys.argv[1])
from loopback import serve
from openenv import AutoEnv

Env = AutoEnv.get_env_class("online_store_s7")
models = sys.modules[Env.__module__.replace(".client", ".models")]
from online_store_s7_env.server.app import app
import pipeline

async def main(url):
    async with Env(base_url=url) as env:
        try:
            await env.reset()
        except RuntimeError as exc:
            print("refused:", "trainer token" in str(exc))
        result = await env.reset(trainer_token=os.environ["SYNTHENV_TRAINER_TOKEN"])
        result = await env.step(models.OnlineStoreS7Action(answer=None))
        print("status:", result.observation.status, result.done)

with serve(app) as url:
    asyncio.run(main(url))
print("client:", Env.__module__, Env.__name__)
print("runtime:", pipeline.__file__)
"""


@pytest.mark.slow
def test_installed_space_plays_with_its_own_client(space: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--target", target, space],
        check=True,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    assert not (target / "server").exists() and (target / "online_store_s7_env" / "server" / "app.py").is_file()
    tests_dir = str(Path(__file__).resolve().parent)
    run = subprocess.run(
        [sys.executable, "-c", PLAY, tests_dir],
        capture_output=True,
        text=True,
        timeout=300,
        env={
            **os.environ,
            "PYTHONPATH": str(target),
            "TMPDIR": str(tmp_path),  # OpenEnv's discovery cache lives in the temp dir
            "SYNTHENV_TRAINER_TOKEN": TOKEN,
        },
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert "refused: True" in lines and "status: failed True" in lines
    assert "client: online_store_s7_env.client OnlineStoreS7Env" in lines
    assert f"runtime: {target / 'online_store_s7_env' / 'server' / 'vendor' / 'pipeline' / '__init__.py'}" in lines


@pytest.mark.slow
def test_the_installed_server_cuts_off_a_client_that_sends_its_headers_slowly(space: Path, tmp_path: Path) -> None:
    """The Space's own ``server`` entry runs synthenv serve's uvicorn: headers sent one byte at a time
    are cut off at ``SYNTHENV_TIMEOUT`` (a plain ``uvicorn.run`` let 20 s of them through)."""
    import socket
    import time
    import urllib.request

    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--target", target, space],
        check=True,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        **os.environ,
        "PYTHONPATH": str(target),
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "SYNTHENV_TIMEOUT": "0.5",
        "SYNTHENV_TRAINER_TOKEN": TOKEN,
    }
    code = "from online_store_s7_env.server.app import main; main()"
    server = subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2).read()
                break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None, "the server did not start"
                time.sleep(0.2)
        request = f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: {'a' * 200}\r\n\r\n".encode()
        start = time.monotonic()
        with socket.create_connection(("127.0.0.1", port), timeout=5) as slow:
            sent = 0
            try:
                for byte in request:
                    slow.sendall(bytes([byte]))
                    sent += 1
                    time.sleep(0.05)
            except OSError:
                pass  # cut off while sending
            cut = time.monotonic() - start
        assert sent < len(request) or cut < 5, (sent, cut)
        assert cut < 5, cut  # the whole request would take about 12 s
    finally:
        server.terminate()
        server.wait(timeout=30)
