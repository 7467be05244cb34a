"""ATIF out: trajectory logs as ATIF v1.4 documents that Harbor's own models validate and that read
back into the same rows; the log's new optional fields (model text, token ids, rollout and
training-step ids); old logs still read.

The validation test needs the ``harbor`` package (``.venv-harbor``) and skips without it; the
round trip and the CLI run everywhere.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pipeline.cli.main import app
from pipeline.evaluate import trajectory as eval_log
from pipeline.harbor.atif import SCHEMA_VERSION, episodes, export_atif, read_rows, rows_of, to_atif
from pipeline.integrations.trajectory import COLUMNS, RecordTrajectory, TrajectoryWriter
from pipeline.jobs.steps import Inputs, generate
from pipeline.package.procedural import build_procedural_bundle
from pipeline.runtime.environment import Environment
from pipeline.runtime.procedural import ProceduralEnvironment


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log of every kind of episode: reference solutions with model text and tokens, a wrong
    answer, a malformed action, an episode cut from outside, a procedural item."""
    root = tmp_path_factory.mktemp("atif")
    bundle = Path(generate(Inputs(domain="online_store", seed=0, rows=10), root / "b", root / "w")["path"])
    proc = build_procedural_bundle(["basic_arithmetic"], root / "p", n=2, seed=0).path
    path = root / "run" / "trajectories.jsonl"
    writer = TrajectoryWriter(path)
    env = RecordTrajectory(
        Environment.from_bundle(bundle), writer, model="test-model", rollout_id="r-1", training_step=7
    )
    for n, task in enumerate(env.tasks[:4]):
        env.rollout_id = f"r-{n}"
        env.reset(task_id=task.id)
        for k, call in enumerate(task.solution):
            env.note(model_text=f"calling {call.tool}", prompt_token_ids=[1, 2, k], completion_token_ids=[3, k])
            env.step({"tool": call.tool, "arguments": dict(call.arguments)})
        env.note(model_text="done", logprobs=[-0.5, -0.25])
        env.step({"answer": task.answer if n != 1 else "wrong"})
    env.reset(task_id=env.tasks[4].id)
    env.step({"tool": "no_such_tool"})
    env.step("not an action")
    env.step({"answer": "x", "extra": 1})
    cut = eval_log.record(Environment.from_bundle(bundle), writer, model="test-model", rollout_id="r-cut")
    cut.reset(task_id=env.tasks[5].id)
    eval_log.note(cut, "thinking")
    cut.step({"tool": "get_record"})
    eval_log.cut(cut, "failed", "no answer within 1 steps")
    pe = RecordTrajectory(ProceduralEnvironment.from_bundle(proc), writer)
    pe.reset(task_id=pe.tasks[0]["id"])
    pe.step({"answer": pe.tasks[0]["answer"]})
    writer.close()
    return path


def test_the_log_records_the_new_fields_and_every_row_has_every_column(log: Path) -> None:
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert all(set(r) == set(COLUMNS) for r in rows)
    first = [r for r in rows if r["rollout_id"] == "r-0"]
    assert {r["model"] for r in first} == {"test-model"} and {r["training_step"] for r in first} == {7}
    assert first[0]["model_text"] is None and first[1]["model_text"].startswith("calling ")
    assert first[1]["prompt_token_ids"] == [1, 2, 0] and first[1]["completion_token_ids"] == [3, 0]
    assert first[-1]["logprobs"] == [-0.5, -0.25] and first[-1]["status"] == "passed"
    assert [r["status"] for r in rows if r["rollout_id"] == "r-1"][-1] == "failed"
    bare = object.__new__(RecordTrajectory)  # note() checks its input before touching the wrapper
    with pytest.raises(ValueError, match="list of integers"):
        bare.note(prompt_token_ids=["a"])  # type: ignore[list-item]


def test_round_trip_export_read_back_same_steps(log: Path, tmp_path: Path) -> None:
    rows = read_rows([log])
    out = tmp_path / "out.atif.jsonl"
    counts = export_atif([log], out)
    documents = [json.loads(line) for line in out.read_text().splitlines()]
    grouped = list(episodes(rows))
    assert counts["episodes"] == len(documents) == len(grouped) == 7
    assert counts["rows"] == len(rows)
    for doc, original in zip(documents, grouped, strict=True):
        assert doc["schema_version"] == SCHEMA_VERSION
        assert rows_of(doc) == original
        assert doc["extra"]["digest"].startswith("sha256:") and doc["extra"]["task_id"] == original[0]["task_id"]
        assert doc["extra"]["status"] == original[-1]["status"] and doc["extra"]["reward"] == original[-1]["reward"]
        assert len(doc["steps"]) == len(original)


def test_harbors_trajectory_model_validates_every_document(log: Path) -> None:
    pytest.importorskip("harbor", reason="harbor is installed in .venv-harbor (constraints/harbor.txt)")
    from harbor.models.trajectories import Trajectory

    rows = read_rows([log])
    for original in episodes(rows):
        document = to_atif(original)
        parsed = Trajectory.model_validate(document)
        assert parsed.schema_version == "ATIF-v1.4" and parsed.session_id == original[0]["episode"]
        # what Harbor writes back is what we read back
        assert rows_of(parsed.to_json_dict()) == original
        sources = [s.source for s in parsed.steps]
        assert sources[0] == "user" and set(sources[1:]) <= {"agent", "system"}
        calls = [s.tool_calls[0].function_name for s in parsed.steps if s.tool_calls]
        answers = [r for r in original if isinstance(r["action"], dict) and set(r["action"]) == {"answer"}]
        assert calls.count("submit_answer") == len(answers)
        tokens = [s.metrics.prompt_token_ids for s in parsed.steps if s.metrics and s.metrics.prompt_token_ids]
        assert len(tokens) == sum(r["prompt_token_ids"] is not None for r in original)


def test_cli_writes_atif_beside_the_input_by_default(log: Path, tmp_path: Path) -> None:
    copy = tmp_path / "trajectories.jsonl"
    copy.write_bytes(log.read_bytes())
    runner = CliRunner()
    result = runner.invoke(app, ["trajectories", "export", str(copy), "--format", "atif", "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    assert data["out"] == str(tmp_path / "trajectories.atif.jsonl") and data["episodes"] == 7
    result = runner.invoke(app, ["trajectories", "export", str(copy), "--format", "jsonl", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["out"] == str(tmp_path / "trajectories.export.jsonl")
    same = runner.invoke(app, ["trajectories", "export", str(copy), "--format", "jsonl", "--out", str(copy)])
    assert same.exit_code == 2 and "one of the inputs" in same.output
    assert runner.invoke(app, ["trajectories", "export", str(copy), "--format", "xml"]).exit_code == 2


def test_a_log_written_before_the_new_fields_still_reads(log: Path, tmp_path: Path) -> None:
    pytest.importorskip("duckdb")
    new = set(COLUMNS) - {
        "bundle", "name", "version", "digest", "task_id", "episode", "step", "action", "observation",
        "reward", "components", "terminated", "truncated", "status", "error", "seconds",
    }  # fmt: skip
    assert new == {
        "model",
        "model_text",
        "prompt_token_ids",
        "completion_token_ids",
        "logprobs",
        "rollout_id",
        "training_step",
    }
    old = tmp_path / "old.jsonl"
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    old.write_text("".join(json.dumps({k: v for k, v in r.items() if k not in new}) + "\n" for r in lines))
    runner = CliRunner()
    result = runner.invoke(app, ["trajectories", "export", str(old), "--json"])
    assert result.exit_code == 0, result.output
    import duckdb

    con = duckdb.connect()
    query = f"SELECT count(*), count(model), count(prompt_token_ids) FROM '{tmp_path / 'old.parquet'}'"
    got = con.execute(query).fetchall()
    con.close()
    assert got == [(len(lines), 0, 0)]
    assert export_atif([old], tmp_path / "old.atif.jsonl")["episodes"] == 7
