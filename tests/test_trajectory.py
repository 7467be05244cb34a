"""The trajectory log: rows per reset and step, verdicts, masking, Parquet export, curriculum input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pipeline.bundle.format import Bundle
from pipeline.cli.main import app
from pipeline.integrations.episode import open_env
from pipeline.integrations.trajectory import COLUMNS, RecordTrajectory, TrajectoryWriter
from pipeline.jobs import curriculum as loop
from pipeline.package.procedural import build_procedural_bundle
from pipeline.registry.registry import Registry

runner = CliRunner()


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def procedural(tmp_path_factory: pytest.TempPathFactory) -> Bundle:
    return build_procedural_bundle(["gcd_lcm"], tmp_path_factory.mktemp("proc"), n=6, seed=0)


def test_tool_use_episode_rows(store_bundle: Path, tmp_path: Path) -> None:
    log = tmp_path / "t.jsonl"
    env = RecordTrajectory(open_env(store_bundle), log)
    task = env.tasks[0]
    env.reset(task_id=task.id)
    for call in task.solution:
        env.step(call.model_dump())
    env.step({"answer": task.answer})
    env.reset(task_id=task.id)
    env.step({"tool": "no_such_tool", "arguments": {}})
    env.step({"answer": None})
    env.close()
    got = rows(log)
    assert all(set(r) == set(COLUMNS) for r in got)
    first = got[: len(task.solution) + 2]
    assert [r["step"] for r in first] == list(range(len(task.solution) + 2))
    assert first[0]["action"] is None and first[0]["observation"]["instruction"] == task.instruction
    assert first[-1]["status"] == "passed" and first[-1]["reward"] == 1.0 and first[-1]["terminated"]
    assert all(r["status"] is None for r in first[:-1])
    assert first[-1]["components"]["outcome"] == 1.0
    second = got[len(first) :]
    assert second[0]["episode"] != first[0]["episode"]
    assert second[1]["observation"]["type"] == "tool_error" and second[1]["components"]["call_valid"] == 0.0
    assert second[-1]["status"] == "failed" and second[-1]["reward"] == 0.0
    assert {r["digest"] for r in got} == {env.bundle.digest} and got[0]["bundle"] == env.bundle.ref
    # The log carries what the agent saw and the reward, never the verifier's expected values.
    assert "expected" not in log.read_text(encoding="utf-8")


class Broken:
    """An environment whose step fails like an infrastructure fault would."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.bundle = inner, inner.bundle

    def reset(self, task_id: str | None = None, seed: int | None = None) -> Any:
        return self.inner.reset(task_id=task_id, seed=seed)

    def step(self, action: Any) -> Any:
        raise OSError("disk full")

    def close(self) -> None:
        self.inner.close()


def test_an_infrastructure_error_is_logged_as_error_and_reraised(procedural: Bundle, tmp_path: Path) -> None:
    log = tmp_path / "t.jsonl"
    env = RecordTrajectory(Broken(open_env(procedural.path)), log)
    try:
        env.reset(seed=0)
        with pytest.raises(OSError, match="disk full"):
            env.step({"answer": "1"})
    finally:
        env.close()  # the recorder owns the log file it opened
    last = rows(log)[-1]
    assert last["status"] == "error" and last["truncated"] and "disk full" in last["error"]


def test_shared_writer_export_and_curriculum(procedural: Bundle, tmp_path: Path) -> None:
    registry = str(tmp_path / "registry")
    Registry(registry).publish(procedural.path)
    log = tmp_path / "t.jsonl"
    writer = TrajectoryWriter(log)
    items = procedural.read_jsonl("tasks.jsonl")
    for i, item in enumerate(items):
        env = RecordTrajectory(open_env(procedural.path), writer)
        env.reset(task_id=item["id"])
        env.step({"answer": f"<answer>{item['answer']}</answer>" if i % 2 == 0 else "no idea"})
    errored = RecordTrajectory(Broken(open_env(procedural.path)), writer)
    errored.reset(task_id=items[0]["id"])
    with pytest.raises(OSError):
        errored.step({"answer": "x"})
    writer.close()

    parquet = tmp_path / "t.parquet"
    result = runner.invoke(app, ["trajectories", "export", str(log), "--out", str(parquet), "--json"])
    assert result.exit_code == 0, result.output
    counts = json.loads(result.stdout)
    assert counts == {
        "out": str(parquet),
        "format": "parquet",
        "rows": 2 * len(items) + 2,
        "episodes": len(items) + 1,
        "finished": len(items) + 1,
        "errors": 1,
    }
    import duckdb

    statuses = duckdb.sql(f"SELECT status, count(*) FROM '{parquet}' WHERE status IS NOT NULL GROUP BY 1 ORDER BY 1")
    assert statuses.fetchall() == [("error", 1), ("failed", 3), ("passed", 3)]

    # The curriculum reads the final, non-error row of each episode, from JSONL or Parquet alike.
    for source in (log, parquet):
        got = loop.read_results(source)
        assert len(got) == len(items) and sorted(r.reward for r in got) == [0.0] * 3 + [1.0] * 3
    report = loop.update(log, tmp_path / "state.json", registry, tmp_path / "work", min_samples=4)
    assert report.families["gcd_lcm"]["rollouts"] == len(items)


def test_export_refuses_missing_files(tmp_path: Path) -> None:
    result = runner.invoke(app, ["trajectories", "export", str(tmp_path / "nope.jsonl")])
    assert result.exit_code == 2 and "no such trajectory file" in result.output


def test_http_server_sessions_are_logged(store_bundle: Path, tmp_path: Path) -> None:
    import httpx
    from loopback import serve

    from pipeline.server.http import create_app

    log = tmp_path / "http.jsonl"
    task = open_env(store_bundle).tasks[0]
    app = create_app(store_bundle, max_sessions=4, session_ttl=60, trajectories=log)
    with serve(app) as url, httpx.Client(base_url=url) as http:
        auth = {"Authorization": f"Bearer {app.state.trainer_token}"}
        sid = http.post("/trainer/sessions", json={"task_id": task.id}, headers=auth).json()["session_id"]
        for call in task.solution:
            assert http.post(f"/tools/{call.tool}", json=call.arguments, headers={"X-Session-Id": sid}).is_success
        done = http.post(f"/sessions/{sid}/step", json={"action": {"answer": task.answer}}).json()
    assert done["reward"] == 1.0
    got = rows(log)
    assert [r["step"] for r in got] == list(range(len(task.solution) + 2))
    assert got[-1]["status"] == "passed" and {r["task_id"] for r in got} == {task.id}
