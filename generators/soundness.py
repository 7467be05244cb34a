"""Soundness of a family's reward, checked the same way for every family × level.

A reward is sound when the gold answer earns 1.0, junk and the empty answer earn 0.0, no
constant answer earns more than its bound (:func:`generators.priors.constant_bound`), and
the scorer stays fast on a huge answer: a policy can emit a megabyte, and a scorer that is
quadratic in the answer's length (or a regex that backtracks catastrophically) stalls a
whole training batch on it. :data:`HUGE_SHAPES` are the megabyte answers tried; each must
score within :data:`TIME_LIMIT` seconds.

``check_bundle`` is what ``synthenv check`` runs on a procedural bundle (``check_item``
on every item, timings on a few); ``check_family`` runs everything over a generated sample
of one family × level.
"""

from __future__ import annotations

import contextlib
import functools
import json
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "HUGE_BYTES",
    "HUGE_SHAPES",
    "JUNK",
    "TIME_LIMIT",
    "FamilyReport",
    "check_bundle",
    "check_family",
    "check_item",
    "huge_answers",
    "time_huge",
]

HUGE_BYTES = 1 << 20
"""The size of an adversarial answer: 1 MiB."""
TIME_LIMIT = 0.050
"""Most CPU seconds one scoring of a 1 MiB answer may take."""
JUNK = ("<answer>synthenv junk answer</answer>", "", "   \n ", "junk")
"""Answers no item accepts."""


def _fill(unit: str, size: int) -> str:
    return (unit * (size // max(1, len(unit)) + 1))[:size]


@functools.lru_cache(maxsize=4)
def _random_text(size: int) -> str:
    """Seeded noise (cached: it does not depend on the item, and drawing it is slow)."""
    rng = random.Random(0)
    alphabet = "abcdefghij0123456789 ,.;:-+/()[]{}<>=\n#*|"
    return "".join(rng.choices(alphabet, k=size))


HUGE_SHAPES: dict[str, Callable[[str, int], str]] = {
    "reasoning_then_gold": lambda gold, size: _fill("so we try again. ", size - len(gold) - 9) + "\nAnswer: " + gold,
    "gold_repeated": lambda gold, size: _fill((gold or "0") + "\n", size),
    "gold_comma_list": lambda gold, size: _fill((gold or "0") + ", ", size),
    "digits": lambda gold, size: _fill("7", size),
    "letters": lambda gold, size: _fill("A", size),
    "number_list": lambda gold, size: _fill("12, ", size),
    "words": lambda gold, size: _fill("red ", size),
    "lines": lambda gold, size: _fill("a -> b\n", size),
    "grid_rows": lambda gold, size: _fill("#.#.#.#.\n", size),
    "tagged": lambda gold, size: "<answer>" + _fill("1 2 ", size - 17) + "</answer>",
    "open_tags": lambda gold, size: _fill("<answer>", size),
    "open_braces": lambda gold, size: _fill("\\boxed{", size),
    "nested_braces": lambda gold, size: (
        "\\boxed{" + _fill("{", (size - 7) // 2) + _fill("}", size - 7 - (size - 7) // 2)
    ),
    "answer_lines": lambda gold, size: _fill("Answer: ", size),
    "assignments": lambda gold, size: _fill("x=1, ", size),
    "spaces": lambda gold, size: _fill(" ", size - 1) + "1",
    "random": lambda gold, size: _random_text(size),
    "unicode": lambda gold, size: _fill("\u00e9\u0661\uff12\u2212\u0130\u212a\u2028\u00a0\U0001f600 ", size),
    "separators": lambda gold, size: _fill(", ;= |", size),
    "decorated_gold": lambda gold, size: (
        _fill("**Answer: ", (size - len(gold)) // 2) + gold + _fill("**.", size - len(gold) - (size - len(gold)) // 2)
    ),
}
"""Answer shapes that stress a scorer: plain text, the gold answer many times, long lists,
deep brackets, unclosed tags, whitespace runs, separators, non-ASCII text, decorations
stacked around the gold (each one a second reading for the dispatcher) and noise."""


def huge_answers(gold: str, size: int = HUGE_BYTES) -> dict[str, str]:
    """Every :data:`HUGE_SHAPES` answer of ``size`` characters built around ``gold``."""
    return {name: make(gold, size) for name, make in HUGE_SHAPES.items()}


def _family(name: Any) -> Any:
    from generators.registry import get_family

    return get_family(name)


def _raw_score(family: Any, answer: str, item: Mapping[str, Any]) -> float:
    """The score through the one dispatcher (a scorer that cannot run raises
    :class:`generators.scoring.ScorerError`: a broken scorer must be seen)."""
    from generators.scoring import score_checked

    return score_checked(family, answer, item)


def time_huge(family: Any, item: Mapping[str, Any], size: int = HUGE_BYTES, repeats: int = 3) -> dict[str, float]:
    """CPU seconds one scoring of each :data:`HUGE_SHAPES` answer takes on ``item``: the
    best of ``repeats`` runs after one untimed run (a scorer's lazy imports, such as numpy
    for deep braces, are paid once per process, not per answer). CPU time of this process,
    not wall time, so other processes competing for the cores do not count."""
    fam = _family(family)
    out: dict[str, float] = {}
    for name, answer in huge_answers(str(item["answer"]), size).items():
        best = float("inf")
        for attempt in range(repeats + 1):
            start = time.process_time()
            with contextlib.suppress(Exception):  # a raising scorer is reported by check_item
                _raw_score(fam, answer, item)
            elapsed = time.process_time() - start
            if attempt:
                best = min(best, elapsed)
                if best > TIME_LIMIT * 20:  # hopeless: do not spend more
                    break
        out[name] = best
    return out


def check_item(
    family: Any, item: Mapping[str, Any], *, huge: bool = False, time_limit: float = TIME_LIMIT
) -> list[str]:
    """What is wrong with one item's reward (empty when sound).

    Gold must score 1.0, every :data:`JUNK` answer 0.0; with ``huge``, every 1 MiB shape
    must score within ``time_limit`` seconds.
    """
    problems: list[str] = []
    try:
        fam = _family(family if family is not None else item["metadata"]["family"])
        gold = _raw_score(fam, str(item["answer"]), item)
        if gold != 1.0:
            problems.append(f"the gold answer scores {gold:g}, not 1.0")
        for junk in JUNK:
            value = _raw_score(fam, junk, item)
            if value != 0.0:
                problems.append(f"the junk answer {junk!r} scores {value:g}, not 0.0")
                break
    except Exception as exc:  # a broken item is reported, not raised
        return [f"the scorer could not run: {type(exc).__name__}: {exc}"[:300]]
    if huge:
        for shape, seconds in time_huge(fam, item).items():
            if seconds > time_limit:
                problems.append(
                    f"a 1 MiB {shape} answer takes {seconds * 1000:.0f} ms to score (limit {time_limit * 1000:.0f} ms)"
                )
    return problems


@dataclass
class FamilyReport:
    """The soundness of one family × level over a sample of items."""

    family: str
    level: int
    items: int
    constant_answer: str = ""
    constant_reward: float = 0.0
    constant_bound: float = 0.0
    worst_shape: str = ""
    worst_seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_family(
    name: str,
    level: int,
    *,
    size: int = 60,
    seed: int = 0,
    huge: bool = True,
    huge_items: int = 1,
    time_limit: float = TIME_LIMIT,
    constant_slack: float = 0.0,
    constant: bool = True,
) -> FamilyReport:
    """Gold/junk on ``size`` items, the best constant answer against its bound (plus
    ``constant_slack`` for a small sample's noise), and (with ``huge``) 1 MiB timings on the
    first ``huge_items`` items."""
    from generators.dataset import create_dataset
    from generators.priors import best_constant, constant_bound, constant_candidates

    fam = _family(name)
    items = list(create_dataset(fam, level=level, seed=seed, size=size, on_shortfall="truncate"))
    report = FamilyReport(name, level, len(items))
    if not items:
        report.problems.append("no items generated")
        return report
    for item in items:
        for problem in check_item(fam, item):
            report.problems.append(f"item {item['metadata']['index']}: {problem}")
    bound = constant_bound(fam.choices)
    answer, reward = "", 0.0
    if constant:
        answer, reward = best_constant(fam, items, constant_candidates(item["answer"] for item in items))
    report.constant_answer, report.constant_reward, report.constant_bound = answer, reward, bound
    if reward > bound + constant_slack:
        report.problems.append(f"the constant answer {answer!r} earns {reward:.3f} > bound {bound:.3f}")
    if huge:
        for item in items[:huge_items]:
            for shape, seconds in time_huge(fam, item).items():
                if seconds > report.worst_seconds:
                    report.worst_shape, report.worst_seconds = shape, seconds
        if report.worst_seconds > time_limit:
            report.problems.append(
                f"a 1 MiB {report.worst_shape} answer takes {report.worst_seconds * 1000:.0f} ms "
                f"to score (limit {time_limit * 1000:.0f} ms)"
            )
    return report


HUGE_PER_FAMILY = 3
"""Distinct knob settings per family whose first item ``check_bundle`` times at 1 MiB."""


def check_bundle(bundle: Any, *, huge: bool = True, time_limit: float = TIME_LIMIT) -> dict[str, Any]:
    """``synthenv check`` for a procedural bundle: :func:`check_item` on every item, 1 MiB
    timings on the first item of up to :data:`HUGE_PER_FAMILY` knob settings per family,
    and the best constant answer per family (reported; judged by the priors tests, since a
    bundle's sample may be too small to judge it).

    ``bundle`` is a :class:`pipeline.bundle.format.Bundle` (or anything with ``ref``,
    ``digest`` and ``read_jsonl``). ``failures`` maps an item id to what went wrong.
    """
    from generators.priors import best_constant, constant_bound, constant_candidates

    tasks = bundle.read_jsonl("tasks.jsonl")
    failures: dict[str, str] = {}
    timed: dict[str, list[str]] = {}
    by_family: dict[str, list[dict[str, Any]]] = {}
    worst: dict[str, Any] = {"family": None, "shape": None, "ms": 0.0}
    for task in tasks:
        tid = str(task.get("id"))
        metadata = task.get("metadata") if isinstance(task.get("metadata"), Mapping) else {}
        name = metadata.get("family")
        problems = check_item(name, task)
        if not problems and huge and isinstance(name, str):
            knobs = json.dumps(metadata.get("knobs"), sort_keys=True)
            seen = timed.setdefault(name, [])
            if knobs not in seen and len(seen) < HUGE_PER_FAMILY:
                seen.append(knobs)
                for shape, seconds in time_huge(name, task).items():
                    if seconds * 1000 > worst["ms"]:
                        worst = {"family": name, "shape": shape, "ms": round(seconds * 1000, 2)}
                    if seconds > time_limit:
                        problems.append(
                            f"a 1 MiB {shape} answer takes {seconds * 1000:.0f} ms to score "
                            f"(limit {time_limit * 1000:.0f} ms)"
                        )
        if problems:
            failures[tid] = "; ".join(problems)[:300]
        elif isinstance(name, str):
            by_family.setdefault(name, []).append(task)
    constants: dict[str, Any] = {}
    for name, items in sorted(by_family.items()):
        family = _family(name)
        answer, reward = best_constant(family, items, constant_candidates(item["answer"] for item in items))
        constants[name] = {
            "answer": answer,
            "reward": round(reward, 4),
            "bound": round(constant_bound(family.choices), 4),
            "items": len(items),
        }
    return {
        "bundle": bundle.ref,
        "digest": bundle.digest,
        "kind": "procedural",
        "tasks": len(tasks),
        "passed": len(tasks) - len(failures),
        "failures": failures,
        "huge_answer_worst": worst,
        "constant_answers": constants,
        "ok": not failures,
    }
