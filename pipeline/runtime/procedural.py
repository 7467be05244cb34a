"""Single-turn episodes over a procedural bundle: the question, one answer, a score.

Same contract as :class:`pipeline.runtime.environment.Environment` so a trainer can
mix both kinds; the score comes from the family's own exact scorer.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from pipeline.bundle import Bundle, load_bundle

Observation = dict[str, Any]
Info = dict[str, Any]


class ProceduralEnvironment:
    def __init__(self, bundle: Bundle) -> None:
        if bundle.manifest.get("kind") != "procedural":
            raise ValueError(f"{bundle.path} is a {bundle.manifest.get('kind')!r} bundle, not a procedural one")
        self.bundle = bundle
        self.tasks = bundle.read_jsonl("tasks.jsonl")
        self._by_id = {t["id"]: t for t in self.tasks}
        self._task: dict[str, Any] | None = None
        self._rng = random.Random(0)

    @classmethod
    def from_bundle(cls, path: str | Path) -> ProceduralEnvironment:
        return cls(load_bundle(path))

    def reset(self, task_id: str | None = None, seed: int | None = None) -> tuple[Observation, Info]:
        if task_id is not None and task_id not in self._by_id:
            raise ValueError(f"unknown task_id {task_id!r}; e.g. {self.tasks[0]['id']!r}")
        if seed is not None:
            self._rng = random.Random(seed)
        self._task = self._by_id[task_id] if task_id is not None else self._rng.choice(self.tasks)
        meta = self._task["metadata"]
        return ({"type": "task", "instruction": self._task["question"], "tools": []},
                {"task_id": self._task["id"], "family": meta["family"], "level": meta["level"],
                 "knobs": meta.get("knobs"), "bundle": self.bundle.ref, "digest": self.bundle.digest})

    def step(self, action: Any) -> tuple[Observation, float, bool, bool, Info]:
        import generators

        task = self._task
        if task is None:
            return ({"type": "error", "error": {"code": "invalid_state", "message": "call reset() first"}},
                    0.0, False, False, {})
        if not isinstance(action, dict) or set(action) != {"answer"}:
            return ({"type": "error", "error": {"code": "invalid_action",
                                                "message": "this environment takes one action: {'answer': text}"}},
                    0.0, False, False, {"call_valid": False})
        answer = action["answer"]
        text = answer if isinstance(answer, str) else "" if answer is None else str(answer)
        reward = float(generators.score(task["metadata"]["family"], text, task))
        self._task = None
        return {"type": "done", "reward": reward}, reward, True, False, {"call_valid": True}

    def close(self) -> None:
        self._task = None
