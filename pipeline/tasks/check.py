"""Re-prove a bundle from its files alone: what a trainer can run before trusting it."""

from __future__ import annotations

from contextlib import ExitStack, closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.policy.check import breaking_call
from pipeline.policy.model import Policy
from pipeline.runtime.environment import Environment
from pipeline.runtime.task import Task
from pipeline.tasks.consistency import conflict_failures
from pipeline.tasks.exploits import LibraryCounts
from pipeline.tasks.feasibility import refusal_is_sound
from pipeline.tasks.naturalness import World, task_violations
from pipeline.tasks.proof import prove
from pipeline.tasks.replay import Replayer
from pipeline.tools.executor import open_copy, open_reading
from pipeline.world.schema import Schema


@dataclass
class CheckReport:
    bundle: str
    digest: str
    tasks: int = 0
    passed: int = 0
    failures: dict[str, str] = field(default_factory=dict)
    exploits: LibraryCounts = field(default_factory=LibraryCounts)

    @property
    def ok(self) -> bool:
        return not self.failures and self.tasks > 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "bundle": self.bundle,
            "digest": self.digest,
            "tasks": self.tasks,
            "passed": self.passed,
            "failed": len(self.failures),
            "failures": self.failures,
            "exploits": self.exploits.as_dict(),
            "ok": self.ok,
        }


def check_bundle(path: str | Path) -> CheckReport:
    """Every task's proof, from the bundle's files alone, on fresh copies of the state: every
    grounding (entity the wording names) matches its rows, the reference scores 1.0, every
    exploit of the library (:mod:`pipeline.tasks.exploits`) scores 0.0, no reference does
    what a staff rule of the world's policy forbids, and every instruction reads naturally
    (:mod:`pipeline.tasks.naturalness`). Every replay starts from
    the initial state (one session, each replay rolled back)."""
    # The environment and every connection are closed however this ends (a proof may raise).
    with ExitStack() as stack:
        env = Environment.from_bundle(path)
        stack.callback(env.close)
        report = CheckReport(bundle=env.bundle.ref, digest=env.bundle.digest, tasks=len(env.tasks))
        initial = env.bundle.state_bytes
        reading = stack.enter_context(closing(open_reading(initial)))
        scratch = stack.enter_context(closing(open_copy(initial)))
        replayer = stack.enter_context(closing(Replayer(initial, env.executor)))
        rules = env.bundle.manifest.as_tool_use().policy_rules
        policy = Policy.model_validate(rules) if rules else None
        specs = {t.name: t for t in env.toolset.tools}
        world = World(env.schema, env.executor, reading)
        for task in env.tasks:
            reason, run = prove(task, initial, env.executor, scratch, replayer)
            reason = reason or unsound_refusal(env.schema, task)
            unnatural = task_violations(task, world)
            reason = reason or (f"unnatural instruction ({unnatural[0]})" if unnatural else None)
            if reason is None and policy is not None:
                broken = breaking_call(policy, specs, scratch, task.solution)
                reason = None if broken is None else f"the reference breaks policy rule {broken[1].id}"
            if run is not None:
                report.exploits.add(run)
            if reason is None:
                report.passed += 1
            else:
                report.failures[task.id] = reason
        report.failures.update(conflict_failures(env.tasks, specs))  # opposite outcomes, same record and goal
    return report


def unsound_refusal(schema: Schema, task: Task) -> str | None:
    """Why a task's expected status refusal is wrong under some reading, if it is: a legal sequence
    of moves reaches the goal the request names (:mod:`pipeline.tasks.feasibility`)."""
    if task.family != "infeasible" or task.knobs.get("kind") != "forbidden" or task.verifier.answer is None:
        return None
    op = next((o for o in schema.operations if o.name == task.knobs.get("operation")), None)
    expected = task.verifier.answer.expected
    if op is None or not isinstance(expected, dict):
        return None
    path = refusal_is_sound(schema, op.table, op.column, str(expected.get("value")), op.to)
    return None if path is None else f"expects a refusal, but legal moves reach the goal: {path}"
