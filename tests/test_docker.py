"""Container images for real: base, runtime and bundle images, a served episode over HTTP.

Marked ``docker`` (and ``slow``): they skip with the reason when no engine is reachable,
or when the base image is missing and cannot be built on this machine (no debootstrap,
not root, no Debian mirror). ``.ci/run`` builds the base image first and sets
``SYNTHENV_REQUIRE_DOCKER=1``, so there a missing engine or image fails instead of skipping.
The base image (debootstrap, a few minutes) and the runtime image are built once per
session, under a file lock shared by xdist workers, and an existing base image is reused.
Timings and sizes go to stdout (``-s``) and to ``docker-report.json`` in the session's
temporary directory.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from pipeline.bundle.format import load_bundle

ROOT = Path(__file__).resolve().parent.parent
TEST_RUNTIME = "synthenv-runtime:pytest"
REPORT: dict[str, Any] = {}


def _record(key: str, value: Any, tmp_root: Path) -> None:
    REPORT[key] = value
    print(f"[docker] {key}: {value}")
    (tmp_root / "docker-report.json").write_text(json.dumps(REPORT, indent=2, sort_keys=True), encoding="utf-8")


@pytest.fixture(scope="session")
def docker_client() -> Any:
    from pipeline.package.image import ImageError, connect

    try:
        return connect()
    except ImageError as exc:
        if REQUIRED:
            raise
        pytest.skip(f"no Docker engine reachable: {exc}")


REQUIRED = os.environ.get("SYNTHENV_REQUIRE_DOCKER") == "1"
"""Set by .ci/run: Docker tests must run for real, never skip."""


def cannot_build_base() -> str | None:
    """Why scripts/build-base-image.sh cannot run here, or None."""
    if shutil.which("debootstrap") is None:
        return "debootstrap is not installed"
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        return "building it needs root"
    return None


@pytest.fixture(scope="session")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.getbasetemp()


@pytest.fixture(scope="session")
def runtime_image(docker_client: Any, tmp_path_factory: pytest.TempPathFactory, report_dir: Path) -> str:
    """Base image (built if missing), wheelhouse and runtime image, with their times and sizes.

    A file lock serialises the builds across xdist workers and concurrent sessions.
    """
    from pipeline.package.image import (
        BASE_IMAGE,
        ImageError,
        build_runtime_image,
        build_wheelhouse,
        describe,
        ensure_base_image,
        image_exists,
    )

    lock_path = Path(tempfile.gettempdir()) / "synthenv-docker-images.lock"
    with open(lock_path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            existed = image_exists(docker_client, BASE_IMAGE)
            reason = None if existed else cannot_build_base()
            if reason is not None and not REQUIRED:
                pytest.skip(
                    f"base image {BASE_IMAGE} is missing and cannot be built here ({reason}); "
                    "run scripts/build-base-image.sh as root, or .ci/run"
                )
            start = time.perf_counter()
            try:
                ensure_base_image(docker_client, BASE_IMAGE, build=True)
            except ImageError as exc:
                if REQUIRED:
                    raise
                pytest.skip(f"base image {BASE_IMAGE} could not be built here: {str(exc)[:300]}")
            _record("base_build_seconds", "reused" if existed else round(time.perf_counter() - start, 1), report_dir)
            _record("base_size_mb", round(describe(docker_client, BASE_IMAGE).size / 1e6, 1), report_dir)
            start = time.perf_counter()
            wheels = build_wheelhouse(tmp_path_factory.mktemp("wheelhouse"))
            _record("wheelhouse_seconds", round(time.perf_counter() - start, 1), report_dir)
            built = build_runtime_image(docker_client, wheelhouse=wheels, tag=TEST_RUNTIME, base=BASE_IMAGE)
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
    _record("runtime_build_seconds", built.seconds, report_dir)
    _record("runtime_size_mb", round(built.size / 1e6, 1), report_dir)
    _record("runtime_added_mb", round(built.added / 1e6, 1), report_dir)
    return TEST_RUNTIME


def _run(client: Any, image: str, command: list[str]) -> str:
    out = client.containers.run(image, command, remove=True, network_disabled=True, stderr=True)
    return out.decode() if isinstance(out, bytes) else str(out)


TRAINER_TOKEN = "container-trainer-token-0123456789"
"""Reaches the container as the SYNTHENV_TRAINER_TOKEN environment variable (docker run -e)."""


def _http(method: str, url: str, body: Any = None, timeout: float = 10.0, token: str | None = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            raw = resp.read()
            return resp.status, (json.loads(raw) if raw else None)
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        return exc.code, (json.loads(raw) if raw else None)


def test_package_without_an_engine_fails_fast(store_bundle: Path, tmp_path: Path) -> None:
    """No engine: a clear message and exit 5 (unavailable) within seconds, not a hang or a traceback."""
    env = {"DOCKER_HOST": "unix:///nonexistent/docker.sock", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline.cli.main", "package", str(store_bundle), "--image"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 5, proc.stderr
    assert "no Docker engine reachable" in proc.stderr and "Traceback" not in proc.stderr
    assert time.perf_counter() - start < 15


@pytest.mark.docker
@pytest.mark.slow
def test_runtime_image_holds_the_serving_runtime_only(docker_client: Any, runtime_image: str) -> None:
    from pipeline.package.image import RUNTIME_SOURCE_LABEL, source_digest

    labels = docker_client.images.get(runtime_image).labels
    assert labels[RUNTIME_SOURCE_LABEL] == source_digest(), "the runtime records the sources it was built from"
    out = _run(
        docker_client,
        runtime_image,
        [
            "python",
            "-c",
            (
                "import importlib.util as u, os, sys; import fastapi, uvicorn, pipeline.runtime.environment; "
                "print(sys.version_info[:2], os.getuid(), [m for m in ('prefect', 'litellm', 'pip') if u.find_spec(m)])"
            ),
        ],
    )
    assert out.strip() == "(3, 11) 10001 []", out


@pytest.mark.docker
@pytest.mark.slow
def test_bundle_image_serves_and_replays_a_reference_solution(
    docker_client: Any, runtime_image: str, store_bundle: Path, report_dir: Path
) -> None:
    from pipeline.package.image import build_bundle_image

    bundle = load_bundle(store_bundle)
    tag = f"synthenv-pytest/{bundle.name}:{bundle.version}"
    built = build_bundle_image(docker_client, [store_bundle], tag=tag, runtime=runtime_image)
    _record("bundle_build_seconds", built.seconds, report_dir)
    _record("bundle_layer_mb", round(built.added / 1e6, 2), report_dir)
    assert built.labels["org.opencontainers.image.title"] == bundle.name
    assert built.labels["org.opencontainers.image.version"] == bundle.version
    assert built.labels["io.synthenv.bundle.digest"] == bundle.digest
    bundle_bytes = sum((store_bundle / f).stat().st_size for f in [*bundle.manifest.files, "manifest.json"])
    assert built.added < bundle_bytes + 1_000_000, "the bundle image adds the bundle and nothing else"

    container = docker_client.containers.run(
        tag,
        detach=True,
        ports={"8000/tcp": ("127.0.0.1", None)},
        read_only=True,
        tmpfs={"/tmp": "size=64m"},
        environment={"SYNTHENV_TRAINER_TOKEN": TRAINER_TOKEN},
    )
    try:
        start = time.perf_counter()
        base = _wait_for_http(container)
        _record("start_to_http_200_seconds", round(time.perf_counter() - start, 2), report_dir)
        _wait_for_docker_health(container)
        _record("start_to_healthy_seconds", round(time.perf_counter() - start, 2), report_dir)

        task = next(t for t in bundle.read_jsonl("tasks.jsonl") if t["solution"])
        status, refused = _http("POST", f"{base}/trainer/sessions", {"task_id": task["id"]})
        assert status == 401, refused  # episode control needs the token the container was given
        status, created = _http("POST", f"{base}/trainer/sessions", {"task_id": task["id"]}, token=TRAINER_TOKEN)
        assert status == 201, created
        sid = created["session_id"]
        assert created["observation"]["instruction"] == task["instruction"]
        for call in task["solution"]:
            status, step = _http("POST", f"{base}/sessions/{sid}/step", {"action": call})
            assert status == 200 and step["observation"]["type"] == "tool_result", step
        status, final = _http("POST", f"{base}/sessions/{sid}/step", {"action": {"answer": task["answer"]}})
        assert status == 200, final
        assert final["reward"] == 1.0 and final["terminated"] is True, final
        assert final["info"]["verification"]["task_id"] == task["id"], final
        status, _ = _http("DELETE", f"{base}/trainer/sessions/{sid}", token=TRAINER_TOKEN)
        assert status in (200, 204)

        code, output = container.exec_run(["sh", "-c", "id -u; touch /bundle/x 2>&1 || echo read-only"])
        assert output.decode().split()[0] == "10001" and "read-only" in output.decode()
        code, output = container.exec_run(["synthenv", "info", "/bundle", "--json"])
        assert code == 0 and json.loads(output)["digest"] == bundle.digest
    except BaseException:
        print(container.logs().decode(errors="replace")[-4000:])
        raise
    finally:
        container.stop(timeout=5)
        container.remove(force=True)
        docker_client.images.remove(tag, force=True)


def _wait_for_http(container: Any, timeout: float = 120.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        container.reload()
        if container.status == "exited":
            raise AssertionError(f"container exited: {container.logs().decode(errors='replace')[-2000:]}")
        binding = (container.ports.get("8000/tcp") or [None])[0]
        if binding:
            base = f"http://127.0.0.1:{binding['HostPort']}"
            try:
                status, body = _http("GET", f"{base}/health", timeout=2)
                if status == 200 and body.get("status") == "ok":
                    return base
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
        time.sleep(0.1)
    raise AssertionError(f"/health did not answer 200 within {timeout}s")


def _wait_for_docker_health(container: Any, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        container.reload()
        health = container.attrs["State"].get("Health", {}).get("Status")
        if health == "healthy":
            return
        if health == "unhealthy":
            raise AssertionError(f"HEALTHCHECK reports unhealthy: {container.attrs['State']['Health']}")
        time.sleep(0.2)
    raise AssertionError(f"docker did not report healthy within {timeout}s")


@pytest.mark.docker
@pytest.mark.slow
def test_package_command_builds_one_image_of_several_bundles_and_saves_it(
    docker_client: Any, runtime_image: str, bundles: dict[str, Path], tmp_path: Path, report_dir: Path
) -> None:
    from typer.testing import CliRunner

    from pipeline.cli.main import app

    loaded = [load_bundle(p) for p in bundles.values()]
    tag = "synthenv-pytest/bundles:test"
    target = tmp_path / "image.tar"
    result = CliRunner().invoke(
        app,
        [
            "package",
            *map(str, bundles.values()),
            "--image",
            "--runtime",
            runtime_image,
            "--tag",
            tag,
            "--save",
            str(target),
            "--json",
        ],
    )
    try:
        assert result.exit_code == 0, result.output
        out = json.loads(result.stdout)
        _record("multi_bundle_build_seconds", out["seconds"], report_dir)
        _record("multi_bundle_layer_mb", round(out["added"] / 1e6, 2), report_dir)
        assert out["tag"] == tag
        assert json.loads(out["labels"]["io.synthenv.bundles"]) == {b.ref: b.digest for b in loaded}
        script = "; ".join(f"synthenv info /bundles/{b.name}/{b.version} --json" for b in loaded)
        found = _run(docker_client, tag, ["sh", "-c", f"{script}; echo $SYNTHENV_BUNDLE"])
        lines = found.splitlines()
        assert [json.loads(line)["digest"] for line in lines if line.startswith("{")] == [b.digest for b in loaded]
        assert lines[-1] == f"/bundles/{loaded[0].name}/{loaded[0].version}"
        with tarfile.open(target) as tar:
            names = tar.getnames()
        assert "manifest.json" in names and "repositories" in names
    finally:
        docker_client.images.remove(tag, force=True)


def test_package_without_image_writes_the_reproducible_archive(store_bundle: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from pipeline.cli.main import app

    copy = tmp_path / store_bundle.parent.name / store_bundle.name
    shutil.copytree(store_bundle, copy)
    result = CliRunner().invoke(app, ["package", str(copy), "--json"])
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)
    archive = Path(row["archive"])
    assert archive == copy.parent / f"{copy.parent.name}-{copy.name}.tar.gz"
    assert archive.read_bytes() == (store_bundle.parent / archive.name).read_bytes()
    assert CliRunner().invoke(app, ["package", str(copy), "--save", "x.tar"]).exit_code == 2
