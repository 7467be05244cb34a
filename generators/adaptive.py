"""An adaptive difficulty curriculum: each family's difficulty follows the learner's success.

Levels move in whole steps, and a learner whose ability lies between two levels sees its
success rate jump across the target band at every move. With continuous difficulty
(``generators.difficulty``) the controller can move a family's difficulty by a fraction of
a level instead, in the spirit of RLVE's adaptive environments: each family keeps a
*centre* ``c`` and samples problems from the window ``[c - spread, c + spread]`` (clipped to
``[0, top]``), so the training distribution is a narrow band that slides with the learner.

Update rule, per family: once ``min_samples`` scores of problems drawn from the current
window are in, the mean success ``m`` is compared with the target band ``(low, high)``;
outside it by more than ``hysteresis`` plus ``confidence`` standard errors of ``m`` (so
sampling noise near a band edge does not move the window), the centre moves by ``gain * (m - mid)`` clipped to
``max_step`` (``mid`` the band's middle), and the evidence is cleared, since it was measured
at the old window. A step is therefore small near the band and bounded far from it, and a
learner of fixed skill brings the centre to rest where its success is inside the band.

Scores of problems drawn at a difficulty outside the current window (stale rollouts of an
older window) are counted in ``stale`` but not used.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from generators.snapshot import Snapshotted, restore_evidence
from generators.snapshot import check_integer as _integer
from generators.snapshot import check_number as _number

__all__ = ["AdaptiveCurriculum", "DifficultyState"]

FORMAT = "synthenv-adaptive-curriculum/1"


@dataclass
class DifficultyState:
    """One family's window centre, its top difficulty and the evidence since the last move."""

    centre: float
    top: float
    scores: deque[float]
    since_change: int = 0
    total: int = 0
    stale: int = 0
    moves: list[tuple[int, float, float]] = field(default_factory=list)
    """(sample count at the move, old centre, new centre)."""


class AdaptiveCurriculum(Snapshotted):
    """Per-family difficulty windows that slide to keep success inside ``target``.

    ``families`` is a list of names (the top difficulty is read from the registry) or a
    mapping ``{name: top_difficulty}``. ``start`` is one centre for all or a mapping.
    """

    FORMAT = FORMAT
    WHAT = "an adaptive curriculum"

    def __init__(
        self,
        families: Iterable[str] | Mapping[str, float],
        target: tuple[float, float] = (0.5, 0.8),
        spread: float = 0.25,
        min_samples: int = 32,
        window: int = 64,
        gain: float = 2.0,
        max_step: float = 0.25,
        hysteresis: float = 0.02,
        start: float | Mapping[str, float] = 0.0,
        confidence: float = 1.5,
    ) -> None:
        if isinstance(families, (str, bytes)):
            raise ValueError("families must be a list of names or a {name: top} mapping, not a string")
        if isinstance(families, Mapping):
            tops = {str(name): _number(f"top of {name}", top) for name, top in families.items()}
        else:
            from generators.difficulty import top_difficulty
            from generators.registry import get_family

            tops = {name: top_difficulty(get_family(name)) for name in families}
        if not tops:
            raise ValueError("a curriculum needs at least one family")
        if any(top <= 0 for top in tops.values()):
            raise ValueError(f"every top difficulty must be > 0, got {tops}")
        if not isinstance(target, (tuple, list)) or len(target) != 2:
            raise ValueError(f"target must be a (low, high) pair, got {target!r}")
        low, high = (_number("target", value) for value in target)
        if not 0.0 <= low < high <= 1.0:
            raise ValueError(f"target must satisfy 0 <= low < high <= 1, got {target!r}")
        self.target = (low, high)
        self.spread = _number("spread", spread)
        self.gain = _number("gain", gain)
        self.max_step = _number("max_step", max_step)
        self.hysteresis = _number("hysteresis", hysteresis)
        self.confidence = _number("confidence", confidence)
        if self.confidence < 0:
            raise ValueError(f"confidence must be >= 0, got {confidence!r}")
        if self.spread < 0 or self.gain <= 0 or self.max_step <= 0 or not 0 <= self.hysteresis < (high - low) / 2:
            raise ValueError("spread must be >= 0, gain and max_step > 0, hysteresis in [0, half the band)")
        self.min_samples = _integer("min_samples", min_samples, 1)
        self.window = _integer("window", window, 1)
        if self.min_samples > self.window:
            raise ValueError(f"min_samples ({min_samples}) cannot exceed window ({window})")
        starts = dict(start) if isinstance(start, Mapping) else {}
        unknown = sorted(set(starts) - set(tops))
        if unknown:
            raise ValueError(f"start given for unknown families: {', '.join(unknown)}")
        self._states: dict[str, DifficultyState] = {}
        for name in sorted(tops):
            centre = _number(f"start of {name}", starts.get(name, 0.0 if isinstance(start, Mapping) else start))
            if not 0.0 <= centre <= tops[name]:
                raise ValueError(f"start {centre} of {name} is outside [0, {tops[name]:g}]")
            self._states[name] = DifficultyState(centre, tops[name], deque(maxlen=self.window))

    @property
    def families(self) -> list[str]:
        return list(self._states)

    def state(self, family: str) -> DifficultyState:
        state = self._states.get(family) if isinstance(family, str) else None
        if state is None:
            raise ValueError(f"family {family!r} is not in this curriculum ({', '.join(self._states)})")
        return state

    def difficulty(self, family: str) -> float:
        """The centre of ``family``'s window."""
        return self.state(family).centre

    def bounds(self, family: str) -> tuple[float, float]:
        """The window difficulties are drawn from: ``centre ± spread`` within ``[0, top]``."""
        state = self.state(family)
        return max(0.0, state.centre - self.spread), min(state.top, state.centre + self.spread)

    def sample(self, family: str, rng: random.Random) -> float:
        """A difficulty drawn uniformly from ``family``'s window (rounded to 1e-6 for stable metadata)."""
        low, high = self.bounds(family)
        return round(rng.uniform(low, high), 6)

    def next_difficulties(self) -> dict[str, float]:
        """The window centre of every family."""
        return {name: state.centre for name, state in self._states.items()}

    @staticmethod
    def _parse(result: Any) -> tuple[str, float | None, float]:
        if isinstance(result, Mapping):
            found = result.get("metadata")
            metadata: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
            family = result.get("family", metadata.get("family"))
            difficulty = result.get("difficulty", metadata.get("difficulty"))
            value = result.get("score", result.get("reward"))
        elif isinstance(result, (tuple, list)) and len(result) in (2, 3):
            family, *rest = result
            difficulty, value = (None, rest[0]) if len(rest) == 1 else rest
        else:
            raise ValueError(
                "a result must be (family, score), (family, difficulty, score) or a mapping with "
                f"family and score/reward, got {result!r}"
            )
        score = _number("score", value)
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"score must be in [0, 1], got {value!r}")
        return family, None if difficulty is None else _number("difficulty", difficulty), score

    def record(self, results: Iterable[Any]) -> dict[str, float]:
        """Record scores and move windows; returns :meth:`next_difficulties`.

        Every result is validated before any is applied, so a bad batch changes nothing.
        """
        if isinstance(results, Mapping) or (
            isinstance(results, tuple) and len(results) in (2, 3) and isinstance(results[0], str)
        ):
            results = [results]
        parsed = [self._parse(result) for result in results]
        for family, _, _ in parsed:
            self.state(family)
        for family, difficulty, value in parsed:
            self._observe(family, difficulty, value)
        return self.next_difficulties()

    def _observe(self, family: str, difficulty: float | None, value: float) -> None:
        state = self._states[family]
        state.total += 1
        if difficulty is not None:
            low, high = self.bounds(family)
            if not low - 1e-6 <= difficulty <= high + 1e-6:
                state.stale += 1
                return
        state.scores.append(value)
        state.since_change += 1
        if state.since_change < self.min_samples:
            return
        mean = sum(state.scores) / len(state.scores)
        low, high = self.target
        # Move only when the mean is outside the band by more than its noise: ``confidence``
        # standard errors (a floor keeps an all-0 or all-1 window from reading as exact).
        noise = self.confidence * math.sqrt(max(mean * (1 - mean), 0.01) / len(state.scores))
        margin = self.hysteresis + noise
        if low - margin <= mean <= high + margin:
            return
        step = max(-self.max_step, min(self.max_step, self.gain * (mean - (low + high) / 2)))
        centre = min(state.top, max(0.0, state.centre + step))
        if centre != state.centre:
            state.moves.append((state.total, state.centre, centre))
            state.centre = centre
            state.scores.clear()
            state.since_change = 0

    # -- persistence (generators.snapshot) -----------------------------------------------

    def _settings(self) -> dict[str, Any]:
        return {
            "target": list(self.target),
            "spread": self.spread,
            "min_samples": self.min_samples,
            "window": self.window,
            "gain": self.gain,
            "max_step": self.max_step,
            "hysteresis": self.hysteresis,
            "confidence": self.confidence,
        }

    def _family_json(self, state: DifficultyState) -> dict[str, Any]:
        return {
            "centre": state.centre,
            "top": state.top,
            "stale": state.stale,
            "moves": [list(move) for move in state.moves],
        }

    @classmethod
    def _restore(cls, data: Mapping[str, Any]) -> AdaptiveCurriculum:
        families = data["families"]
        curriculum = cls(
            {name: entry["top"] for name, entry in families.items()},
            target=tuple(data["target"]),
            spread=data["spread"],
            min_samples=data["min_samples"],
            window=data["window"],
            gain=data["gain"],
            max_step=data["max_step"],
            hysteresis=data["hysteresis"],
            confidence=data.get("confidence", 1.5),
            start={name: entry["centre"] for name, entry in families.items()},
        )
        for name, entry in families.items():
            state = curriculum._states[name]
            restore_evidence(state, entry)
            state.stale = _integer("stale", entry["stale"], 0)
            state.moves = [(int(a), float(b), float(c)) for a, b, c in entry["moves"]]
        return curriculum


# -- a scripted learner, to tune and check the controller ------------------------------------


def success_probability(skill: float, difficulty: float, slope: float = 2.0) -> float:
    """A learner of fixed ``skill``: solves a problem of ``difficulty`` with probability
    ``logistic(slope * (skill - difficulty))``, 0.5 where difficulty equals skill."""
    return 1.0 / (1.0 + math.exp(-slope * (skill - difficulty)))


@dataclass(frozen=True)
class Convergence:
    """How one family's window settled for a scripted learner."""

    family: str
    skill: float
    rounds_to_band: int | None
    """First round from which the expected success of the window stays in the band."""
    final_centre: float
    final_expected: float
    """Expected success of the final window (mean of the learner's curve over it)."""
    final_observed: float
    """Observed success over the last ``tail`` rounds."""


def expected_success(curriculum: AdaptiveCurriculum, family: str, skill: float, slope: float = 2.0) -> float:
    """The learner's mean success over ``family``'s current window (21-point average)."""
    low, high = curriculum.bounds(family)
    points = [low + (high - low) * k / 20 for k in range(21)]
    return sum(success_probability(skill, d, slope) for d in points) / len(points)


def simulate(
    curriculum: AdaptiveCurriculum,
    skills: Mapping[str, float],
    rounds: int = 150,
    batch: int = 32,
    seed: int = 0,
    slope: float = 2.0,
    tail: int = 30,
) -> dict[str, Convergence]:
    """Run ``rounds`` rounds of ``batch`` problems per family through ``curriculum`` with a
    learner of fixed skill per family (:func:`success_probability`) and report convergence."""
    if tail > rounds:
        raise ValueError(f"tail ({tail}) cannot exceed rounds ({rounds})")
    rng = random.Random(seed)
    low, high = curriculum.target
    names = sorted(skills)
    in_band: dict[str, list[bool]] = {name: [] for name in names}
    observed: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(rounds):
        results = []
        for name in names:
            for _ in range(batch):
                difficulty = curriculum.sample(name, rng)
                solved = rng.random() < success_probability(skills[name], difficulty, slope)
                results.append((name, difficulty, 1.0 if solved else 0.0))
                observed[name].append(1.0 if solved else 0.0)
        curriculum.record(results)
        for name in names:
            in_band[name].append(low <= expected_success(curriculum, name, skills[name], slope) <= high)
    out: dict[str, Convergence] = {}
    for name in names:
        flags = in_band[name]
        first = None
        for index in range(len(flags) - 1, -1, -1):
            if not flags[index]:
                break
            first = index + 1
        recent = observed[name][-tail * batch :]
        out[name] = Convergence(
            name,
            skills[name],
            first,
            curriculum.difficulty(name),
            expected_success(curriculum, name, skills[name], slope),
            sum(recent) / len(recent),
        )
    return out
