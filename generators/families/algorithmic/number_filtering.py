"""Keep the numbers of a list that are above (or below) a threshold, in their original order.

The list mixes integers and decimals, some negative, written as they would appear in data;
the solver compares each with the threshold and copies the survivors in order. Harder
levels use longer lists, more decimal places and values clustered near the threshold, so
``23.49`` against ``23.5`` has to be read digit by digit.

The answer is the list of kept numbers in order, compared by exact value (``7.50`` equals
``7.5``); a missing, extra, reordered or rounded number scores 0.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer, parse_number
from generators.base import Family, Knobs, Problem

NAME = "number_filtering"

_SPLIT = re.compile(r"[,;\s]+")


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"min_count": (3, 60), "max_count": (3, 60), "max_places": (0, 4), "spread": (1, 10_000)}

    min_count: int = 5
    max_count: int = 8
    max_places: int = 1
    spread: int = 100
    """Values lie within +-spread of the threshold; a smaller spread crowds them round it."""

    def check(self) -> None:
        if self.min_count > self.max_count:
            raise ValueError("Config.min_count must be <= max_count")


LEVELS = (
    {"min_count": 5, "max_count": 8, "max_places": 1, "spread": 100},
    {"min_count": 8, "max_count": 12, "max_places": 2, "spread": 100},
    {"min_count": 10, "max_count": 15, "max_places": 2, "spread": 100},
    {"min_count": 12, "max_count": 20, "max_places": 3, "spread": 100},
    {"min_count": 15, "max_count": 25, "max_places": 3, "spread": 100},
    {"min_count": 20, "max_count": 30, "max_places": 4, "spread": 100},
)


def _value(config: Config, rng: random.Random, centre: Decimal, level_spread: Decimal) -> Decimal:
    places = rng.randint(0, config.max_places)
    step = Decimal(1).scaleb(-places)
    offset = Decimal(rng.randint(-int(level_spread / step), int(level_spread / step))) * step
    return centre + offset


def generate(config: Config, rng: random.Random) -> Problem:
    count = rng.randint(config.min_count, config.max_count)
    places = rng.randint(0, config.max_places)
    threshold = Decimal(rng.randint(-50 * 10**places, 50 * 10**places)).scaleb(-places)
    # Harder levels (more places) crowd values nearer the threshold.
    spread = Decimal(config.spread) / (1 + config.max_places)
    while True:
        values = [_value(config, rng, threshold, spread) for _ in range(count)]
        keep_larger = rng.random() < 0.5
        kept = [v for v in values if (v > threshold if keep_larger else v < threshold)]
        if 0 < len(kept) < count:
            break
    shown = ", ".join(str(v) for v in values)
    what = "larger" if keep_larger else "smaller"
    question = (
        f"From the list below, keep only the numbers that are strictly {what} than {threshold}, in their original "
        f"order.\n[{shown}]\nGive the kept numbers separated by commas."
    )
    answer = ", ".join(str(v) for v in kept)
    return Problem(question, answer, {"kept": [str(Fraction(v)) for v in kept]})


def parse_values(text: str, limit: int) -> list[Fraction] | None:
    """Exact values of a ``1.5, -3, 7`` / ``[1.5, -3, 7]`` / ``['1.5', '-3']`` answer, or None."""
    if len(text) > 24 * limit + 32:
        return None
    body = text.strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    out: list[Fraction] = []
    for token in _SPLIT.split(body):
        token = token.strip("'\"")
        if not token:
            continue
        value = parse_number(token)
        if value is None:
            return None
        out.append(value)
    return out or None


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the answer lists exactly the kept values, in the original order."""
    try:
        want = [Fraction(v) for v in (item.get("metadata") or {})["kept"]]
        got = parse_values(extract_answer(answer_text), len(want))
        return 1.0 if got == want else 0.0
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    description="Keep the numbers above/below a threshold in order (exact values, ordered list).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
    score=score,
    counterpart="reasoning_gym:number_filtering",
)
