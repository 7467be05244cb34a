"""Re-prove a bundle from its files alone: what a trainer can run before trusting it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.runtime.environment import Environment
from pipeline.tasks.exploits import LibraryCounts
from pipeline.tasks.proof import prove
from pipeline.tasks.replay import Replayer
from pipeline.tools.executor import open_copy


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
    grounding (entity the wording names) matches its rows, the reference scores 1.0, and every
    exploit of the library (:mod:`pipeline.tasks.exploits`) scores 0.0. Every replay starts from
    the initial state (one session, each replay rolled back)."""
    env = Environment.from_bundle(path)
    report = CheckReport(bundle=env.bundle.ref, digest=env.bundle.digest, tasks=len(env.tasks))
    initial = env.bundle.state_bytes
    scratch = open_copy(initial)
    replayer = Replayer(initial, env.executor)
    try:
        for task in env.tasks:
            reason, run = prove(task, initial, env.executor, scratch, replayer)
            if run is not None:
                report.exploits.add(run)
            if reason is None:
                report.passed += 1
            else:
                report.failures[task.id] = reason
    finally:
        replayer.close()
        scratch.close()
        env.close()
    return report
