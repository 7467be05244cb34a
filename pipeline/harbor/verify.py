"""The verifier a Harbor task's ``tests/test.sh`` runs: ``python -m pipeline.harbor.verify /tests/task.json``.

It runs as root after the agent has finished, with the task's verifier data that Harbor
has just copied in (``/tests/task.json``), and writes what Harbor reads:
``/logs/verifier/reward.txt`` (the reward) and ``reward.json`` (numbers only, as Harbor
requires: ``reward``, ``outcome`` and the verdict status as ``passed`` / ``failed`` /
``error`` flags), plus ``verdict.json`` (the public verdict: status, reward, each check's
name and pass/fail, never an expected value).

It trusts nothing the agent could write:

* the initial state and the world files under ``/env/world`` must have the sha256 the
  test data records (they are root-owned and read-only; a mismatch is an ``error``);
* the episode's state (``/app/state.sqlite``, the agent's file) is copied first, must hold
  exactly the schema's objects and readable values, and is compared with the initial
  state table by table (no write log is read: the agent could have edited one);
* no answer recorded means ``failed``, as an episode that never answered is.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

from pipeline.harbor.container import ANSWER_TEXT, World

LOGS_DIR = Path(os.environ.get("SYNTHENV_HARBOR_LOGS", "/logs/verifier"))
STATUSES = ("passed", "failed", "error")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _answer(world: World) -> tuple[bool, Any]:
    """Whether an answer was recorded, and its value (``answer.json``, or ``answer.txt`` for a procedural task)."""
    if world.answer_path.is_file():
        return True, json.loads(world.answer_path.read_text(encoding="utf-8"))["answer"]
    text = world.work_dir / ANSWER_TEXT
    if world.procedural and text.is_file():
        return True, text.read_text(encoding="utf-8").strip()
    return False, None


def _verdict(status: str, reward: float, checks: list[dict[str, Any]], error: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"status": status, "reward": reward, "checks": checks}
    if error is not None:
        out["error"] = error
    return out


def verify_tool_use(spec: dict[str, Any], world: World) -> dict[str, Any]:
    """The public verdict of a tool-use task on the container's final state and recorded answer."""
    from pipeline.runtime.verify import Verifier, error_verdict, for_task, verify
    from pipeline.world.ddl import undeclared_objects, unreadable_values

    for name, digest in spec["world_sha256"].items():
        if _sha256(world.env_dir / "world" / name) != digest:
            return _verdict("error", 0.0, [], f"the world file {name} changed since the task was exported")
    answered, answer = _answer(world)
    source = world.state_path if world.state_path.is_file() else world.initial_path
    with tempfile.TemporaryDirectory(prefix="synthenv-verify-") as tmp:
        final = Path(tmp) / "final.sqlite"
        final.write_bytes(source.read_bytes())
        conn = sqlite3.connect(f"file:{final}", uri=True, isolation_level=None)
        try:
            problems = undeclared_objects(world.schema, conn) or unreadable_values(world.schema, conn)
            if problems:
                checks = [{"name": "state matches the schema", "passed": False}]
                return _verdict("failed", 0.0, checks)
            initial = world.initial_path.resolve().as_posix()
            conn.execute("ATTACH DATABASE ? AS init", (f"file:{initial}?mode=ro&immutable=1",))
            try:
                verdict = verify(conn, Verifier.model_validate(spec["verifier"]), answer, initial="init")
            except Exception as exc:  # the verification could not run: an error, masked by the trainer
                verdict = error_verdict(exc)
        finally:
            conn.close()
    public = for_task(verdict, spec["task_id"], spec["task_id"]).public()
    if not answered and public["status"] != "error":
        public = _verdict("failed", 0.0, [{"name": "answer given", "passed": False}, *public["checks"]])
    return public


def verify_procedural(spec: dict[str, Any], world: World) -> dict[str, Any]:
    """The public verdict of a procedural item: the family's own scorer on the recorded answer."""
    from generators.scoring import ScorerError, score_checked

    answered, answer = _answer(world)
    if not answered:
        return _verdict("failed", 0.0, [{"name": "answer given", "passed": False}])
    item = spec["item"]
    text = answer if isinstance(answer, str) else "" if answer is None else json.dumps(answer)
    try:
        reward = float(score_checked(item["metadata"]["family"], text, item))
    except ScorerError as exc:
        return _verdict("error", 0.0, [], f"the verification could not run: {exc.family}: {exc.reason}")
    except Exception as exc:
        return _verdict("error", 0.0, [], f"the verification could not run: {type(exc).__name__}")
    return _verdict("passed" if reward >= 1.0 else "failed", reward, [{"name": "score", "passed": reward >= 1.0}])


def write_reward(verdict: dict[str, Any], logs: Path = LOGS_DIR) -> None:
    """``reward.txt``, ``reward.json`` (numbers only: Harbor rejects any other value) and ``verdict.json``."""
    logs.mkdir(parents=True, exist_ok=True)
    reward = float(verdict["reward"])
    numbers = {"reward": reward, "outcome": reward, **{s: float(verdict["status"] == s) for s in STATUSES}}
    (logs / "reward.txt").write_text(f"{reward}\n", encoding="utf-8")
    (logs / "reward.json").write_text(json.dumps(numbers, sort_keys=True) + "\n", encoding="utf-8")
    (logs / "verdict.json").write_text(json.dumps(verdict, sort_keys=True, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Score the task named by the test data file; exit 0 whenever a reward was written."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        sys.stderr.write("usage: python -m pipeline.harbor.verify /tests/task.json\n")
        return 2
    spec = json.loads(Path(args[0]).read_text(encoding="utf-8"))
    world = World()
    try:
        scorer = verify_procedural if spec["kind"] == "procedural" else verify_tool_use
        verdict = scorer(spec, world)
    except Exception as exc:  # still a reward file: a verifier that crashed scores an error, never a pass
        verdict = _verdict("error", 0.0, [], f"the verification could not run: {type(exc).__name__}")
    write_reward(verdict)
    sys.stdout.write(json.dumps(verdict, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover - the container's entry point
    raise SystemExit(main())
