"""Near-duplicate scenarios and blueprints, rejected with the project's distinctness measure.

The measure is :mod:`pipeline.world.distinctness`: Jaccard similarity of normalised
tokens, near-duplicates at or above its ``THRESHOLD``. A blueprint is compared through
its schema's tokens (tables and columns, spelling undone), exactly as random schemas are.
A scenario is compared before any request is spent on it, through the normalised words
of its name and description (short function words left out), and by its slug: two
scenarios that would make bundles of the same name are duplicates whatever their text.

Decisions follow input order: the earlier of two near-duplicates is kept, so a batch
rejects the same scenarios however its requests were scheduled.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from pipeline.llm.scenario import Scenario
from pipeline.world.blueprint import Blueprint
from pipeline.world.distinctness import THRESHOLD, jaccard, schema_tokens, singular
from pipeline.world.schema import build_schema

_WORD = re.compile(r"[a-z0-9]+")
STOP = frozenset(
    _WORD.findall(
        "a an and are as at be by for from has have in into is it its of on or that the their them they this to "
        "where which while who with can users user"
    )
)


def scenario_tokens(s: Scenario) -> frozenset[str]:
    words = _WORD.findall(f"{s.name} {s.description}".lower())
    return frozenset(singular(w) for w in words if w not in STOP)


def blueprint_tokens(bp: Blueprint) -> frozenset[str]:
    return schema_tokens(build_schema(bp))


@dataclass(frozen=True)
class Rejection:
    name: str
    kind: str
    """``scenario``, ``blueprint`` or ``name``."""
    like: str
    """The earlier scenario it is too close to."""
    similarity: float


@dataclass
class DistinctFilter:
    """Remembers what it has accepted; rejects what is too close to any of it."""

    threshold: float = THRESHOLD
    rejections: list[Rejection] = field(default_factory=list)
    _scenarios: list[tuple[str, str, frozenset[str]]] = field(default_factory=list)
    _blueprints: list[tuple[str, frozenset[str]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {self.threshold}")

    def _closest(self, tokens: frozenset[str], seen: list[tuple[str, frozenset[str]]]) -> tuple[str, float]:
        best, best_sim = "", 0.0
        for name, other in seen:
            sim = jaccard(tokens, other)
            if sim > best_sim:
                best, best_sim = name, sim
        return best, round(best_sim, 4)

    def admit_scenario(self, s: Scenario) -> Rejection | None:
        """None (and remembered) when ``s`` is new enough; otherwise the recorded rejection."""
        for name, slug, _ in self._scenarios:
            if slug == s.slug:
                return self._reject(Rejection(s.name, "name", name, 1.0))
        tokens = scenario_tokens(s)
        like, sim = self._closest(tokens, [(n, t) for n, _, t in self._scenarios])
        if sim >= self.threshold:
            return self._reject(Rejection(s.name, "scenario", like, sim))
        self._scenarios.append((s.name, s.slug, tokens))
        return None

    def admit_blueprint(self, name: str, bp: Blueprint) -> Rejection | None:
        tokens = blueprint_tokens(bp)
        like, sim = self._closest(tokens, self._blueprints)
        if sim >= self.threshold:
            return self._reject(Rejection(name, "blueprint", like, sim))
        self._blueprints.append((name, tokens))
        return None

    def _reject(self, r: Rejection) -> Rejection:
        self.rejections.append(r)
        return r

    def report(self) -> dict[str, Any]:
        """Threshold and every rejection: part of the run summary."""
        return {"threshold": self.threshold, "rejections": [asdict(r) for r in self.rejections]}
