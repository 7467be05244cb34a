"""Re-prove a bundle from its files alone: what a trainer can run before trusting it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pipeline.runtime.environment import Environment
from pipeline.tasks import prove


@dataclass
class CheckReport:
    bundle: str
    digest: str
    tasks: int = 0
    passed: int = 0
    failures: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failures and self.tasks > 0

    def as_dict(self) -> dict[str, object]:
        return {"bundle": self.bundle, "digest": self.digest, "tasks": self.tasks, "passed": self.passed,
                "failed": len(self.failures), "failures": self.failures, "ok": self.ok}


def check_bundle(path: str | Path) -> CheckReport:
    """Every task's proof, from the bundle's files alone, on fresh copies of the state: gold
    replay 1.0; doing nothing, a blanket refusal, wrong or stuffed answers, repeated or
    misdirected writes 0.0; every grounding (entity the wording names) matches its rows."""
    env = Environment.from_bundle(path)
    report = CheckReport(bundle=env.bundle.ref, digest=env.bundle.digest, tasks=len(env.tasks))
    initial = env.bundle.state_bytes
    for task in env.tasks:
        reason = prove(task, initial, env.executor)
        if reason is None:
            report.passed += 1
        else:
            report.failures[task.id] = reason
    env.close()
    return report
