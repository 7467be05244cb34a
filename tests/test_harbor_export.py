"""``synthenv export --format harbor``: every task of a tool-use and a procedural bundle, parsed by
Harbor's own models, replayed by its reference solution (1.0) and left alone (0.0), with the
agent's part of the container holding nothing of the answer.

The replays here run the task's own ``solution/solve.sh`` lines through the ``tools`` command's
entry point and the verifier ``tests/test.sh`` runs, in process, on directories standing in for
the container's ``/env`` and ``/app``; ``test_harbor_docker.py`` runs them in Harbor itself.
The parsing tests need the ``harbor`` package (its own venv, ``.venv-harbor``; ``.ci/run``
runs this file there) and skip without it.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pipeline.bundle.format import load_bundle
from pipeline.cli.main import app
from pipeline.harbor import container, verify
from pipeline.harbor.container import World
from pipeline.harbor.export import WORLD_SUMMARY_KEYS, export_harbor
from pipeline.jobs.steps import Inputs, generate
from pipeline.package.procedural import build_procedural_bundle

LAYOUT = {
    "task.toml",
    "instruction.md",
    "environment/Dockerfile",
    "environment/world/world.json",
    "solution/solve.sh",
    "tests/test.sh",
    "tests/task.json",
}
WORLD = {"environment/world/schema.json", "environment/world/tools.json", "environment/world/state.sqlite"}


@pytest.fixture(scope="module")
def tool_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("harbor-bundles")
    summary = generate(Inputs(domain="online_store", seed=0, rows=10), root, tmp_path_factory.mktemp("harbor-work"))
    return Path(summary["path"])


@pytest.fixture(scope="module")
def proc_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("harbor-proc")
    return build_procedural_bundle(["basic_arithmetic", "sort_numbers", "caesar_cipher"], root, n=9, seed=0).path


@pytest.fixture(scope="module")
def tool_tasks(tool_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("harbor-tool") / "tasks"
    export_harbor(tool_bundle, out)
    return out


@pytest.fixture(scope="module")
def proc_tasks(proc_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("harbor-proc-out") / "tasks"
    export_harbor(proc_bundle, out)
    return out


def task_dirs(out: Path) -> list[Path]:
    return sorted(p for p in out.iterdir() if p.is_dir())


def files_of(task: Path) -> set[str]:
    return {p.relative_to(task).as_posix() for p in task.rglob("*") if p.is_file()}


def bundle_ids(bundle: Path) -> list[str]:
    return [str(t["id"]) for t in load_bundle(bundle).read_jsonl("tasks.jsonl")]


def play(task: Path, work: Path, logs: Path, commands: list[list[str]]) -> dict[str, Any]:
    """Run ``tools`` command lines against the task's world, then its verifier; the public verdict."""
    world = World(env_dir=task / "environment", work_dir=work)
    for args in commands:
        assert container.main(args, world) == 0, args
    spec = json.loads((task / "tests" / "task.json").read_text())
    fresh = World(env_dir=task / "environment", work_dir=work)  # the verifier's own process
    verdict = (
        verify.verify_procedural(spec, fresh) if spec["kind"] == "procedural" else verify.verify_tool_use(spec, fresh)
    )
    verify.write_reward(verdict, logs)
    return verdict


def solution(task: Path) -> list[list[str]]:
    """The ``tools`` command lines of the task's solve.sh (every other line is a comment or shell setting)."""
    lines = (task / "solution" / "solve.sh").read_text().splitlines()
    commands = [shlex.split(line) for line in lines if line.startswith("tools ")]
    assert all(c[0] == "tools" for c in commands)
    assert [line for line in lines if line and not line.startswith(("tools ", "#", "set "))] == []
    return [c[1:] for c in commands]


# -- layout and CLI ----------------------------------------------------------------------


def test_every_task_of_both_kinds_is_written_in_harbors_layout(
    tool_bundle: Path, tool_tasks: Path, proc_bundle: Path, proc_tasks: Path
) -> None:
    assert [p.name for p in task_dirs(tool_tasks)] == sorted(bundle_ids(tool_bundle))
    assert [p.name for p in task_dirs(proc_tasks)] == sorted(bundle_ids(proc_bundle))
    assert len(bundle_ids(tool_bundle)) >= 20 and len(bundle_ids(proc_bundle)) == 9
    for task in task_dirs(tool_tasks):
        assert files_of(task) == LAYOUT | WORLD, task.name
    for task in task_dirs(proc_tasks):
        assert files_of(task) == LAYOUT, task.name
    assert not (tool_tasks / ".world").exists()


def test_cli_exports_both_kinds_and_refuses_a_used_directory(
    tool_bundle: Path, proc_bundle: Path, tmp_path: Path
) -> None:
    runner = CliRunner()
    for bundle, out in ((tool_bundle, tmp_path / "a"), (proc_bundle, tmp_path / "b")):
        result = runner.invoke(app, ["export", str(bundle), "--format", "harbor", "--out", str(out), "--json"])
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        assert data["tasks"] == len(bundle_ids(bundle)) == len(task_dirs(out))
        assert data["digest"] == load_bundle(bundle).digest
    again = runner.invoke(app, ["export", str(tool_bundle), "--format", "harbor", "--out", str(tmp_path / "a")])
    assert again.exit_code == 2 and "not an empty directory" in again.output
    unknown = runner.invoke(app, ["export", str(tool_bundle), "--format", "harbour", "--out", str(tmp_path / "c")])
    assert unknown.exit_code == 2


def test_task_toml_carries_names_and_metadata(tool_bundle: Path, tool_tasks: Path) -> None:
    import tomllib

    bundle = load_bundle(tool_bundle)
    tasks = {t["id"]: t for t in bundle.read_jsonl("tasks.jsonl")}
    for task in task_dirs(tool_tasks):
        config = tomllib.loads((task / "task.toml").read_text())
        meta = config["metadata"]
        source = tasks[task.name]
        assert config["task"]["name"] == f"synthenv/{bundle.name}.{task.name}"
        assert meta["bundle_digest"] == bundle.digest and meta["task_id"] == task.name
        assert (meta["family"], meta["level"], meta["knobs"]) == (source["family"], source["level"], source["knobs"])
        assert config["agent"]["user"] == "synthenv" and config["verifier"]["user"] == "root"
        assert config["verifier"]["environment_mode"] == "separate" and config["artifacts"] == ["/app"]


# -- what the agent's container holds ---------------------------------------------------------


def test_the_agents_container_holds_no_task_answer_or_solution(tool_bundle: Path, tool_tasks: Path) -> None:
    """Exploit: reading the expected answer, the verifier or the reference solution from inside the container.

    The image is built from ``environment/`` alone; the Dockerfile copies ``world/`` and nothing
    else, and ``world/`` holds the bundle's schema, tools and initial state and a manifest summary:
    no task's instruction, verifier, reference calls or answer.
    """
    bundle = load_bundle(tool_bundle)
    tasks = bundle.read_jsonl("tasks.jsonl")
    for task in task_dirs(tool_tasks):
        dockerfile = (task / "environment" / "Dockerfile").read_text()
        assert [line for line in dockerfile.splitlines() if line.startswith(("COPY", "ADD"))] == [
            "COPY --chown=0:0 world/ /env/world/"
        ]
        world = json.loads((task / "environment" / "world" / "world.json").read_text())
        assert set(world) <= {*WORLD_SUMMARY_KEYS, "bundle"}
        blob = b"".join(p.read_bytes() for p in (task / "environment").rglob("*") if p.is_file())
        for word in (b'"verifier"', b'"solution"', b'"expected"', b'"instruction"', b"tasks.jsonl"):
            assert word not in blob, (task.name, word)
        for other in tasks:
            assert other["instruction"].encode() not in blob
            calls = [json.dumps(c["arguments"], sort_keys=True).encode() for c in other["solution"]]
            assert not any(c in blob for c in calls if len(c) > 20)
        assert "/tests" not in (task / "instruction.md").read_text()


# -- replays ------------------------------------------------------------------------------------


def test_every_reference_solution_scores_one_and_doing_nothing_zero(tool_tasks: Path, tmp_path: Path) -> None:
    for i, task in enumerate(task_dirs(tool_tasks)):
        oracle = play(task, tmp_path / f"o{i}", tmp_path / f"ol{i}", solution(task))
        assert oracle["status"] == "passed" and oracle["reward"] == 1.0, (task.name, oracle)
        reward = json.loads((tmp_path / f"ol{i}" / "reward.json").read_text())
        assert reward == {"reward": 1.0, "outcome": 1.0, "passed": 1.0, "failed": 0.0, "error": 0.0}
        nothing = play(task, tmp_path / f"n{i}", tmp_path / f"nl{i}", [])
        assert nothing["status"] == "failed" and nothing["reward"] == 0.0, (task.name, nothing)
        assert (tmp_path / f"nl{i}" / "reward.txt").read_text() == "0.0\n"


def test_procedural_gold_answers_score_one_and_no_answer_zero(proc_tasks: Path, tmp_path: Path) -> None:
    for i, task in enumerate(task_dirs(proc_tasks)):
        oracle = play(task, tmp_path / f"o{i}", tmp_path / f"ol{i}", solution(task))
        assert oracle["status"] == "passed" and oracle["reward"] == 1.0, (task.name, oracle)
        assert play(task, tmp_path / f"n{i}", tmp_path / f"nl{i}", [])["reward"] == 0.0
        wrong = play(task, tmp_path / f"w{i}", tmp_path / f"wl{i}", [["answer", "synthenv wrong answer"]])
        assert wrong["reward"] == 0.0 and wrong["status"] == "failed"


def test_the_answer_text_file_counts_for_a_procedural_task(proc_tasks: Path, tmp_path: Path) -> None:
    task = task_dirs(proc_tasks)[0]
    gold = json.loads((task / "tests" / "task.json").read_text())["item"]["answer"]
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "answer.txt").write_text(f"{gold}\n")
    assert play(task, tmp_path / "w", tmp_path / "l", [])["reward"] == 1.0


# -- exploits of the new surface ------------------------------------------------------------------


def _write_task(tasks: Path) -> Path:
    found = [t for t in task_dirs(tasks) if json.loads((t / "tests" / "task.json").read_text())["verifier"]["changes"]]
    assert found, "the bundle has a write task"
    return found[0]


def test_the_first_answer_stands(tool_tasks: Path, tmp_path: Path) -> None:
    task = _write_task(tool_tasks)
    commands = solution(task)
    refusal = '{"cannot": "missing", "id": 1, "value": null}'  # wrong for a task that can be done
    wrong_then_right = [*commands[:-1], ["answer", refusal], commands[-1]]
    verdict = play(task, tmp_path / "w", tmp_path / "l", wrong_then_right)
    assert verdict["reward"] == 0.0
    world = World(env_dir=task / "environment", work_dir=tmp_path / "w")
    assert "episode is over" in world.call("list_records", {"table": "customers"})


def test_writes_hidden_from_a_write_log_or_the_schema_still_count(tool_tasks: Path, tmp_path: Path) -> None:
    """Exploit: changing the episode's state file behind the tools' back (the agent owns /app).

    The verifier compares whole tables with the pristine initial state, so a write outside the
    expected diff fails however it was made, and a state whose schema objects differ (a
    trigger, a table the schema does not declare) fails outright.
    """
    import sqlite3

    task = _write_task(tool_tasks)
    commands = solution(task)
    play(task, tmp_path / "a", tmp_path / "al", commands[:-1])
    conn = sqlite3.connect(tmp_path / "a" / "state.sqlite")
    conn.execute("UPDATE customers SET full_name = full_name || ' x' WHERE id = (SELECT max(id) FROM customers)")
    conn.commit()
    conn.close()
    assert play(task, tmp_path / "a", tmp_path / "al2", commands[-1:])["reward"] == 0.0

    play(task, tmp_path / "b", tmp_path / "bl", commands[:-1])
    conn = sqlite3.connect(tmp_path / "b" / "state.sqlite")
    conn.execute("CREATE TABLE synthenv_touched (tbl TEXT, id INTEGER)")
    conn.commit()
    conn.close()
    verdict = play(task, tmp_path / "b", tmp_path / "bl2", commands[-1:])
    assert verdict["reward"] == 0.0 and verdict["checks"] == [{"name": "state matches the schema", "passed": False}]


def test_a_changed_initial_state_is_an_error_not_a_pass(tool_tasks: Path, tmp_path: Path) -> None:
    """Exploit: rewriting the initial state the verifier compares with (root-owned and read-only in the
    container, and the verifier runs in a container of its own; here checked by its sha256)."""
    import shutil

    task = _write_task(tool_tasks)
    copy = tmp_path / "task"
    shutil.copytree(task, copy)
    state = copy / "environment" / "world" / "state.sqlite"
    state.unlink()
    shutil.copyfile(task / "environment" / "world" / "state.sqlite", state)
    play(copy, tmp_path / "w", tmp_path / "l", solution(copy))  # the solution's writes, then:
    shutil.copyfile(tmp_path / "w" / "state.sqlite", state)  # the final state passed off as the initial one
    spec = json.loads((copy / "tests" / "task.json").read_text())
    verdict = verify.verify_tool_use(spec, World(env_dir=copy / "environment", work_dir=tmp_path / "w"))
    assert verdict["status"] == "error" and verdict["reward"] == 0.0


def test_tools_command_usage(tool_tasks: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = World(env_dir=task_dirs(tool_tasks)[0] / "environment", work_dir=tmp_path)
    assert container.main(["list"], world) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[-1]["name"] == "submit_answer" and {"get_record", "list_records"} <= {t["name"] for t in listed}
    assert container.main(["help", "get_record"], world) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "get_record"
    assert container.main(["call", "get_record", "{not json"], world) == 2
    assert container.main(["frobnicate"], world) == 2
    assert container.main(["call", "get_record", '{"table": "customers", "id": 999999}'], world) == 0
    assert "error" in capsys.readouterr().out
    assert not (tmp_path / "answer.json").exists()


# -- Harbor's own models -----------------------------------------------------------------------


def test_harbor_parses_every_exported_task(tool_bundle: Path, tool_tasks: Path, proc_tasks: Path) -> None:
    pytest.importorskip("harbor", reason="harbor is installed in .venv-harbor (constraints/harbor.txt)")
    from harbor.models.task.config import TaskConfig, VerifierEnvironmentMode
    from harbor.models.task.task import Task

    digest = load_bundle(tool_bundle).digest
    parsed = 0
    for out in (tool_tasks, proc_tasks):
        for directory in task_dirs(out):
            assert Task.is_valid_dir(directory), directory
            task = Task(directory)
            config = TaskConfig.model_validate_toml((directory / "task.toml").read_text())
            assert task.config == config
            assert task.instruction.strip() and task.paths.solve_path.is_file() and task.paths.test_path.is_file()
            assert (task.paths.environment_dir / "Dockerfile").is_file()
            assert config.task is not None and config.task.name.startswith("synthenv/")
            assert config.agent.user == "synthenv" and config.verifier.user == "root"
            assert config.verifier.environment_mode == VerifierEnvironmentMode.SEPARATE
            assert config.metadata["task_id"] == directory.name
            if out is tool_tasks:
                assert config.metadata["bundle_digest"] == digest
            parsed += 1
    assert parsed == len(task_dirs(tool_tasks)) + len(task_dirs(proc_tasks))


def test_harbor_lint_finds_nothing(tool_tasks: Path, proc_tasks: Path) -> None:
    pytest.importorskip("harbor", reason="harbor is installed in .venv-harbor (constraints/harbor.txt)")
    import subprocess
    import sys

    harbor = Path(sys.executable).with_name("harbor")
    for out in (tool_tasks, proc_tasks):
        dirs = [str(d) for d in task_dirs(out)[:5]]
        done = subprocess.run([str(harbor), "lint", *dirs], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
