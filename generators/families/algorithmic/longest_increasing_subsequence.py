"""A longest strictly increasing subsequence, given as its values.

Tests dynamic programming over a sequence, where the elements need not be adjacent.
Harder levels lengthen the sequence, allow repeated values (which do not count as
increasing), and with ``run_trap`` keep only sequences whose longest contiguous
increasing run is shorter than the answer, so the "longest run" misreading scores zero.
The answer is the subsequence itself (any longest one is verified), not its length:
lengths cluster on a few values that one constant answer would hit.
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
from generators.base import Family, Knobs, Problem

NAME = "longest_increasing_subsequence"

_MAX_TRIES = 100


@dataclass(frozen=True)
class Config(Knobs):
    length: int = 6
    max_value: int = 20
    run_trap: bool = False

    RANGES: ClassVar = {"length": (3, 80), "max_value": (3, 10_000)}


LEVELS = (
    {"length": 5, "max_value": 20},
    {"length": 8, "max_value": 30},
    {"length": 12, "max_value": 40, "run_trap": True},
    {"length": 18, "max_value": 30, "run_trap": True},
    {"length": 25, "max_value": 50, "run_trap": True},
    {"length": 35, "max_value": 60, "run_trap": True},
)


def lis_length(seq: list[int]) -> int:
    """Patience sorting; ``bisect_left`` makes the subsequence strictly increasing."""
    tails: list[int] = []
    for x in seq:
        i = bisect.bisect_left(tails, x)
        if i == len(tails):
            tails.append(x)
        else:
            tails[i] = x
    return len(tails)


def one_lis(seq: list[int]) -> list[int]:
    """One longest strictly increasing subsequence (patience sorting with back links)."""
    tails: list[int] = []
    tail_index: list[int] = []
    back = [-1] * len(seq)
    for i, x in enumerate(seq):
        k = bisect.bisect_left(tails, x)
        back[i] = tail_index[k - 1] if k else -1
        if k == len(tails):
            tails.append(x)
            tail_index.append(i)
        else:
            tails[k] = x
            tail_index[k] = i
    out: list[int] = []
    i = tail_index[-1] if tail_index else -1
    while i != -1:
        out.append(seq[i])
        i = back[i]
    return out[::-1]


def longest_run(seq: list[int]) -> int:
    best = run = 1
    for prev, cur in itertools.pairwise(seq):
        run = run + 1 if cur > prev else 1
        best = max(best, run)
    return best


def generate(config: Config, rng: random.Random) -> Problem:
    for _ in range(_MAX_TRIES):
        seq = [rng.randint(1, config.max_value) for _ in range(config.length)]
        answer = lis_length(seq)
        if not config.run_trap or longest_run(seq) < answer:
            break
    question = (
        f"Sequence: {', '.join(map(str, seq))}.\n"
        "Give a longest strictly increasing subsequence. A subsequence keeps the original order "
        "but may skip elements; equal values do not count as increasing. If several are longest, "
        "any one of them is right. Answer with its values separated by commas."
    )
    gold = one_lis(seq)
    if len(gold) != answer:
        raise ValueError(f"{NAME}: reconstruction disagrees with the length")
    return Problem(question=question, answer=", ".join(map(str, gold)), extra={"sequence": seq})


def _values(answer_text: str, most: int) -> list[int] | None:
    from generators.answers import extract_answer

    text = extract_answer(answer_text)
    if len(text) > 12 * most + 16 or text.count(",") > most:  # longer than any answer: no parse
        return None
    tokens = text.strip().strip("[]()").replace(",", " ").split()
    if not tokens or not all(token.lstrip("+-").isdigit() and len(token) < 12 for token in tokens):
        return None
    return [int(token) for token in tokens]


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 for any strictly increasing subsequence of the longest length; verified, so a
    length alone or a constant list scores 0."""
    try:
        meta = item.get("metadata") or item.get("extra") or {}
        seq = [int(x) for x in meta["sequence"]]
        values = _values(answer_text, len(seq))
        if values is None or len(values) != lis_length(seq):
            return 0.0
        if any(b <= a for a, b in itertools.pairwise(values)):
            return 0.0
        remaining = iter(seq)
        return 1.0 if all(any(x == v for x in remaining) for v in values) else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """Too short (the gold minus its last value) and the gold reversed."""
    values = [token.strip() for token in str(item["answer"]).split(",")]
    return [", ".join(values[:-1]) or "0", ", ".join(reversed(values))]


FAMILY = Family(
    name=NAME,
    description="A longest strictly increasing subsequence of an integer list (any one, verified).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
    score=score,
)
