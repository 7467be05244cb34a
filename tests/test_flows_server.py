"""Deployments and the Dask path against a standalone Prefect server on loopback.

Prefect's temporary in-process server cannot schedule, and Dask worker processes would
each start their own, so these start ``prefect server start`` once for the module.
Every process started here runs in its own session and is killed with its children on
the way out, whatever happened.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.registry.registry import Registry

pytestmark = [pytest.mark.slow, pytest.mark.prefect]

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SERVER_START_SECONDS = 180


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop(proc: subprocess.Popen[bytes], grace: float = 20.0) -> None:
    """SIGTERM the process group, then SIGKILL what is left."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    except ProcessLookupError:
        pass


def _run(args: list[str], env: dict[str, str], timeout: float, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Like subprocess.run, but a timeout kills the whole process group (Dask workers included)."""
    proc = subprocess.Popen(
        args, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise AssertionError(f"{' '.join(args)} timed out after {timeout} s\n{err[-3000:]}") from None
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A Prefect server on a free loopback port; yields the environment that points at it."""
    home = tmp_path_factory.mktemp("prefect-server")
    port = _free_port()
    env = {
        **os.environ,
        "PREFECT_HOME": str(home),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "DO_NOT_TRACK": "1",
        "PREFECT_LOGGING_LEVEL": "WARNING",
    }
    env.pop("PREFECT_API_URL", None)
    log = (home / "server.log").open("wb")
    proc = subprocess.Popen(
        [str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/api"
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while True:
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"prefect server did not start:\n{(home / 'server.log').read_text()[-3000:]}")
            time.sleep(1)
        yield {**env, "PREFECT_API_URL": url, "PREFECT_HOME": str(tmp_path_factory.mktemp("prefect-client"))}
    finally:
        _stop(proc)
        log.close()


def test_served_deployments_run_when_triggered(server: dict[str, str], tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    env = {**server, "PREFECT_LOGGING_LEVEL": "INFO"}
    log = (tmp_path / "serve.log").open("wb")
    serve = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "flows.deploy",
            "--n",
            "1",
            "--domains",
            "online_store",
            "--tasks-per-family",
            "1",
            "--registry",
            str(registry),
            "--families",
            "gcd_lcm",
            "--procedural-n",
            "10",
            "--out",
            str(tmp_path / "out"),
        ],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=log,
        start_new_session=True,
    )
    prefect = str(BIN / "prefect")
    try:
        deadline = time.monotonic() + 120
        while _run([prefect, "deployment", "inspect", "build_procedural/weekly"], server, 60).returncode != 0:
            assert serve.poll() is None and time.monotonic() < deadline, (tmp_path / "serve.log").read_text()[-3000:]
            time.sleep(2)
        inspected = _run([prefect, "deployment", "inspect", "generate_batch/nightly"], server, 60)
        assert "'cron': '0 2 * * *'" in inspected.stdout
        done = _run(
            [prefect, "deployment", "run", "generate_batch/nightly", "--watch", "--watch-timeout", "300"], server, 330
        )
        assert done.returncode == 0 and "Completed" in done.stdout, done.stdout[-3000:] + done.stderr[-3000:]
        assert [e.ref for e in Registry(str(registry)).entries()] == ["online-store-s0@1.0.0"]
    finally:
        _stop(serve, grace=30)
        log.close()
    assert serve.returncode is not None


def test_prefect_yaml_deploys_to_a_work_pool_and_a_worker_runs_it(server: dict[str, str], tmp_path: Path) -> None:
    prefect = str(BIN / "prefect")
    env = {**server, "PWD": str(ROOT)}
    created = _run([prefect, "work-pool", "create", "synthenv", "--type", "process"], env, 120)
    assert created.returncode == 0, created.stderr[-2000:]
    deployed = _run([prefect, "--no-prompt", "deploy", "--all"], env, 300)
    assert deployed.returncode == 0, deployed.stdout[-3000:] + deployed.stderr[-3000:]
    registry = tmp_path / "registry"
    triggered = _run(
        [
            prefect,
            "deployment",
            "run",
            "generate_batch/nightly",
            "--param",
            "n=1",
            "--param",
            'domains=["library_loans"]',
            "--param",
            "tasks_per_family=1",
            "--param",
            f"registry={registry}",
        ],
        env,
        120,
    )
    assert triggered.returncode == 0, triggered.stderr[-2000:]
    worker = _run([prefect, "worker", "start", "--pool", "synthenv", "--run-once"], env, 420)
    assert worker.returncode == 0, worker.stderr[-3000:]
    assert [e.ref for e in Registry(str(registry)).entries()] == ["library-loans-s0@1.0.0"]


def test_generate_batch_on_a_dask_local_cluster_of_two_processes(server: dict[str, str], tmp_path: Path) -> None:
    pytest.importorskip("prefect_dask")
    registry = tmp_path / "registry"
    done = _run(
        [
            str(BIN / "synthenv"),
            "batch",
            "--n",
            "3",
            "--domains",
            "online_store,library_loans",
            "--tasks-per-family",
            "1",
            "--registry",
            str(registry),
            "--dask-address",
            "local",
            "--workers",
            "2",
            "--json",
        ],
        server,
        480,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["counts"]["published"] == 3 and summary["ok"]
    assert {e.ref for e in Registry(str(registry)).entries()} == {
        "online-store-s0@1.0.0",
        "library-loans-s1@1.0.0",
        "online-store-s2@1.0.0",
    }


def test_dask_without_a_server_is_refused_with_instructions(tmp_path: Path) -> None:
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "home")}
    env.pop("PREFECT_API_URL", None)
    done = _run(
        [str(BIN / "synthenv"), "batch", "--n", "1", "--registry", str(tmp_path), "--dask-address", "local"], env, 120
    )
    assert done.returncode == 2 and "prefect server start" in done.stderr
