"""Single-turn episodes over a procedural bundle: the question, one answer, a score.

Same contract as :class:`pipeline.runtime.environment.Environment` so a trainer can
mix both kinds; the score comes from the family's own exact scorer. The final step's
``info["verification"]`` carries the same ``status``: ``passed`` (full marks),
``failed`` (less, partial credit included in the reward), or ``error`` when the scorer
could not run (an unknown family, a corrupt item, an internal error): reward 0.0, to be
masked rather than learned from, with an ``error`` naming the family and the exception
type (``generators.scoring.ScorerError``), never the exception's text. The verdict names
the task it scored (``task_id``) and the one ``reset`` assigned (``assigned_task_id``),
and the first one stands: any action after the answer is an ``episode_over`` error with
reward 0.0 and no ``verification`` key (:func:`pipeline.runtime.environment.episode_over`).
"""

from __future__ import annotations

import logging
import random
from pathlib import Path
from typing import Any

from pipeline.bundle.format import Bundle, load_bundle
from pipeline.runtime.environment import episode_over
from pipeline.runtime.verify import TASK_MISMATCH
from pipeline.runtime.wire import PublicVerdict, ResetInfo, Step, StepInfo, TaskObservation
from pipeline.tools.jsonvalues import json_problem

log = logging.getLogger("synthenv.verify")


def _score(task: dict[str, Any], text: str) -> float:
    """The family's own score through the one dispatcher, raising when it cannot be computed
    (``generators.scoring.ScorerError``: a broken item or scorer, never a wrong answer)."""
    from generators.scoring import score_checked

    return score_checked(task["metadata"]["family"], text, task)


def _failure_reason(exc: Exception) -> str:
    """Why scoring could not run, for the verdict: the family and the kind of failure,
    never the exception's message (which might quote the item's gold answer)."""
    from generators.scoring import ScorerError

    if isinstance(exc, ScorerError):
        return f"the verification could not run: {exc.family}: {exc.reason}"
    return f"the verification could not run: {type(exc).__name__}"


class ProceduralEnvironment:
    def __init__(self, bundle: Bundle) -> None:
        if bundle.manifest.kind != "procedural":
            raise ValueError(f"{bundle.path} is a {bundle.manifest.kind!r} bundle, not a procedural one")
        self.bundle = bundle
        self.tasks = bundle.read_jsonl("tasks.jsonl")
        self._by_id = {t["id"]: t for t in self.tasks}
        self._task: dict[str, Any] | None = None
        self._rng = random.Random(0)
        self._done = False
        self.assigned_task_id: str | None = None
        """The task the last ``reset`` assigned; every verdict is checked against it."""
        self.verdict: PublicVerdict | None = None
        """The episode's final verdict (the first answer's; later actions never change it)."""

    @property
    def done(self) -> bool:
        """Whether the current episode has ended (an answer was scored)."""
        return self._done

    @classmethod
    def from_bundle(cls, path: str | Path) -> ProceduralEnvironment:
        return cls(load_bundle(path))

    def reset(self, task_id: str | None = None, seed: int | None = None) -> tuple[TaskObservation, ResetInfo]:
        if task_id is not None and task_id not in self._by_id:
            raise ValueError(f"unknown task_id {task_id!r}; e.g. {self.tasks[0]['id']!r}")
        if seed is not None:
            self._rng = random.Random(seed)
        self._task = self._by_id[task_id] if task_id is not None else self._rng.choice(self.tasks)
        self.assigned_task_id = str(self._task["id"])
        self._done, self.verdict = False, None
        meta = self._task["metadata"]
        return (
            {"type": "task", "instruction": self._task["question"], "tools": []},
            {
                "task_id": self._task["id"],
                "family": meta["family"],
                "level": meta["level"],
                "knobs": meta.get("knobs"),
                "bundle": self.bundle.ref,
                "digest": self.bundle.digest,
            },
        )

    def step(self, action: Any) -> Step:
        """One action (any value: the one this environment takes is ``{"answer": text}``)."""
        task = self._task
        if self._done:
            return episode_over()
        if task is None:
            return (
                {"type": "error", "error": {"code": "invalid_state", "message": "call reset() first"}},
                0.0,
                False,
                False,
                {},
            )
        if not isinstance(action, dict) or set(action) != {"answer"}:
            return (
                {
                    "type": "error",
                    "error": {
                        "code": "invalid_action",
                        "message": "this environment takes one action: {'answer': text}",
                    },
                },
                0.0,
                False,
                False,
                {"call_valid": False},
            )
        answer = action["answer"]
        problem = json_problem(answer, "answer")
        if isinstance(answer, bool):
            problem = "action['answer'] must be text (or a number), not a boolean"
        if problem is not None:
            return {"type": "error", "error": {"code": "invalid_action", "message": problem}}, 0.0, False, False, {}
        text = answer if isinstance(answer, str) else "" if answer is None else str(answer)
        self._done = True
        ids = {"task_id": str(task.get("id")), "assigned_task_id": self.assigned_task_id}
        verification: PublicVerdict
        try:
            reward = _score(task, text)
        except Exception as exc:  # reported as an error verdict so a trainer can mask it
            log.warning("scoring %s could not run: %s", task.get("id"), exc)
            reward, verification = 0.0, {"status": "error", "reward": 0.0, "error": _failure_reason(exc)}
        else:
            verification = {"status": "passed" if reward >= 1.0 else "failed", "reward": reward}
        if ids["task_id"] != ids["assigned_task_id"]:
            reward, verification = 0.0, {"status": "error", "reward": 0.0, "error": TASK_MISMATCH}
        self.verdict = {**verification, "task_id": ids["task_id"], "assigned_task_id": ids["assigned_task_id"]}
        info: StepInfo = {"call_valid": True, "verification": self.verdict.copy()}
        return {"type": "done", "reward": reward}, reward, True, False, info

    def close(self) -> None:
        self._task = None
        self._done = False


JUNK_ANSWER = "<answer>synthenv junk answer</answer>"
"""An answer no item accepts: ``check_items`` requires it to score 0.0 everywhere."""


def check_items(bundle: Bundle) -> dict[str, Any]:
    """Re-score every item of a procedural bundle from its files: the gold answer must score 1.0,
    an empty and a junk answer 0.0. ``failures`` maps an item id to what went wrong."""
    tasks = bundle.read_jsonl("tasks.jsonl")
    failures: dict[str, str] = {}
    for task in tasks:
        tid = str(task.get("id"))
        try:
            gold = _score(task, str(task["answer"]))
            junk = max(_score(task, JUNK_ANSWER), _score(task, ""))
        except Exception as exc:  # a broken item is reported, not raised
            failures[tid] = f"the scorer could not run: {type(exc).__name__}: {exc}"[:300]
            continue
        if gold != 1.0:
            failures[tid] = f"the gold answer scores {gold:g}, not 1.0"
        elif junk != 0.0:
            failures[tid] = f"a junk answer scores {junk:g}, not 0.0"
    return {
        "bundle": bundle.ref,
        "digest": bundle.digest,
        "kind": "procedural",
        "tasks": len(tasks),
        "passed": len(tasks) - len(failures),
        "failures": failures,
        "ok": not failures,
    }
