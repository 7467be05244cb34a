"""The adaptive curriculum run end to end: real items, a scripted policy, the family's own scorer.

``adaptive.simulate`` checks the controller against a success curve alone. This module runs
the loop a trainer runs: each round draws, per family, ``batch`` difficulties from the
curriculum's window, generates the items at those difficulties (``dataset.make_item``),
lets a policy answer them, scores the answers with the family's scorer
(``dataset.score``) and records ``(family, difficulty, score)`` into the curriculum, whose
state is saved after every round. ``flows/curriculum_adaptive.py`` is this loop with
:func:`play_round` as a Prefect task; the functions here are what the tests run.

:class:`ScriptedPolicy` is a learner of fixed skill per family: it answers an item of
difficulty ``d`` with the gold answer with probability ``logistic(slope * (skill - d))``
(``adaptive.success_probability``) and otherwise with junk, which every family scores 0.0
(``soundness.JUNK``). Its coin is a stable hash of the item's seed and index, so a run
repeats exactly. A controller that works brings every family's window to where this
policy's expected success lies in the target band, and :func:`run` reports when.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from generators.adaptive import AdaptiveCurriculum, Convergence, expected_success, success_probability
from generators.base import Knobs, stable_seed
from generators.dataset import make_item, score
from generators.registry import get_family

__all__ = ["JUNK_ANSWER", "RunReport", "ScriptedPolicy", "open_curriculum", "play_round", "report_markdown", "run"]

JUNK_ANSWER = "<answer>synthenv junk answer</answer>"
"""What the scripted policy says when it fails: the first of ``soundness.JUNK``, 0.0 everywhere."""

Result = tuple[str, float, float]
"""(family, difficulty, score), what ``AdaptiveCurriculum.record`` takes."""


@dataclass(frozen=True)
class ScriptedPolicy:
    """A policy of fixed skill per family (see the module docstring)."""

    skills: Mapping[str, float]
    slope: float = 2.0
    seed: int = 0

    def success(self, family: str, difficulty: float) -> float:
        return success_probability(self.skills[family], difficulty, self.slope)

    def answer(self, item: Mapping[str, Any]) -> str:
        meta = item["metadata"]
        coin = random.Random(stable_seed("scripted-policy", self.seed, meta["family"], meta["seed"], meta["index"]))
        solved = coin.random() < self.success(meta["family"], float(meta["difficulty"]))
        return str(item["answer"]) if solved else JUNK_ANSWER


@lru_cache(maxsize=4096)
def _config(family: str, difficulty: float) -> Knobs:
    return get_family(family).config_for_difficulty(difficulty)


def play_round(
    curriculum: AdaptiveCurriculum, policy: ScriptedPolicy, round_index: int, batch: int, seed: int = 0
) -> list[Result]:
    """One round: ``batch`` items per family at difficulties drawn from its window, answered
    by ``policy`` and scored by the family's scorer. Item indices never repeat across rounds."""
    draw = random.Random(stable_seed("adaptive-round", seed, round_index))
    results: list[Result] = []
    for name in curriculum.families:
        family = get_family(name)
        for k in range(batch):
            difficulty = curriculum.sample(name, draw)
            level = int(difficulty) if float(difficulty).is_integer() else None
            item = make_item(family, _config(name, difficulty), level, seed, round_index * batch + k, difficulty)
            results.append((name, difficulty, score(family, policy.answer(item), item)))
    return results


@dataclass(frozen=True)
class RunReport:
    """Per family how the window settled, plus the run's settings."""

    rounds: int
    batch: int
    target: tuple[float, float]
    families: dict[str, Convergence]

    @property
    def in_band(self) -> list[str]:
        """Families whose final window gives the policy an expected success inside the band."""
        low, high = self.target
        return [name for name, c in self.families.items() if low <= c.final_expected <= high]

    def as_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "batch": self.batch,
            "target": list(self.target),
            "in_band": len(self.in_band),
            "families": {name: asdict(c) for name, c in self.families.items()},
        }


Play = Callable[[AdaptiveCurriculum, ScriptedPolicy, int, int, int], Sequence[Result]]


def run(
    curriculum: AdaptiveCurriculum,
    policy: ScriptedPolicy,
    rounds: int = 60,
    batch: int = 32,
    seed: int = 0,
    state: str | Path | None = None,
    play: Play = play_round,
    tail: int = 20,
) -> RunReport:
    """``rounds`` rounds of :func:`play_round` (or ``play``, e.g. a Prefect task of it),
    each recorded into ``curriculum`` and saved to ``state``; returns when each family's
    expected success entered the band for good, its final window and observed success
    (over the last ``tail`` rounds, or all of them when there are fewer)."""
    if rounds < 1 or batch < 1 or tail < 1:
        raise ValueError(f"need rounds, batch and tail >= 1, got {rounds}, {batch}, {tail}")
    tail = min(tail, rounds)
    missing = sorted(set(curriculum.families) - set(policy.skills))
    if missing:
        raise ValueError(f"the policy has no skill for {', '.join(missing)}")
    low, high = curriculum.target
    names = curriculum.families
    in_band: dict[str, list[bool]] = {name: [] for name in names}
    observed: dict[str, list[float]] = {name: [] for name in names}
    for round_index in range(rounds):
        results = list(play(curriculum, policy, round_index, batch, seed))
        curriculum.record(results)
        if state is not None:
            curriculum.save(state)
        for name, _, value in results:
            observed[name].append(value)
        for name in names:
            expected = expected_success(curriculum, name, policy.skills[name], policy.slope)
            in_band[name].append(low <= expected <= high)
    out = {}
    for name in names:
        first = None
        for index in range(rounds - 1, -1, -1):
            if not in_band[name][index]:
                break
            first = index + 1
        recent = observed[name][-tail * batch :]
        out[name] = Convergence(
            name,
            policy.skills[name],
            first,
            curriculum.difficulty(name),
            expected_success(curriculum, name, policy.skills[name], policy.slope),
            sum(recent) / len(recent),
        )
    return RunReport(rounds, batch, (low, high), out)


def open_curriculum(
    families: Sequence[str], state: str | Path | None = None, target: tuple[float, float] = (0.5, 0.8)
) -> AdaptiveCurriculum:
    """The saved curriculum at ``state`` if there is one (it must track ``families``), else a new one."""
    if state is not None and Path(state).is_file():
        curriculum = AdaptiveCurriculum.load(state)
        if sorted(curriculum.families) != sorted(families):
            raise ValueError(f"{state} tracks {', '.join(curriculum.families)}, not {', '.join(sorted(families))}")
        return curriculum
    return AdaptiveCurriculum(list(families), target=target)


def report_markdown(report: Mapping[str, Any]) -> str:
    """A run as a markdown table (the flow's artifact): skill, rounds to band, final window, success."""
    low, high = report["target"]
    lines = [
        f"# Adaptive curriculum: {report['in_band']} of {len(report['families'])} families in band "
        f"{low:g}-{high:g} after {report['rounds']} rounds of {report['batch']}",
        "",
        "| family | skill | rounds to band | final centre | expected success | observed (tail) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, c in report["families"].items():
        rounds = "—" if c["rounds_to_band"] is None else str(c["rounds_to_band"])
        lines.append(
            f"| {name} | {c['skill']:.2f} | {rounds} | {c['final_centre']:.2f} "
            f"| {c['final_expected']:.3f} | {c['final_observed']:.3f} |"
        )
    return "\n".join(lines) + "\n"
