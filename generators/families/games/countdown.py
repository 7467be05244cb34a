"""Countdown numbers round: reach a target using some of the given numbers at most once each.

Tests open-ended arithmetic planning: unlike the game of 24, not every number has to be used,
so the solver must choose a subset as well as an expression. Numbers follow the TV format
(small numbers 1-10, large numbers 25/50/75/100). Harder levels give more numbers, larger
targets and, most importantly, targets that provably cannot be reached with only one, two or
three of the numbers (checked exhaustively), so quick two-step tricks do not work. Every
target is reachable by construction (a random expression over a subset of the numbers with
positive-integer intermediate results). Any correct expression is accepted; the scorer
uses a whitelist AST evaluator over exact fractions, never eval.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._arith import (
    integer_targets,
    random_expression,
    score_expression,
)

NAME = "countdown"

LARGE = (25, 50, 75, 100)


@dataclass(frozen=True)
class Config(Knobs):
    n_numbers: int = 4
    min_large: int = 0
    max_large: int = 0
    min_target: int = 10
    max_target: int = 50
    min_needed: int = 2
    """The target is not reachable with fewer than this many of the numbers (checked up to 4)."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "n_numbers": (2, 7),
        "min_large": (0, 4),
        "max_large": (0, 4),
        "min_target": (1, 9999),
        "max_target": (1, 9999),
        "min_needed": (1, 4),
    }

    def check(self) -> None:
        if self.min_large > self.max_large:
            raise ValueError("countdown: min_large must be <= max_large")
        if self.max_large > self.n_numbers:
            raise ValueError("countdown: max_large must be <= n_numbers")
        if self.min_target > self.max_target:
            raise ValueError("countdown: min_target must be <= max_target")
        if self.min_needed > self.n_numbers:
            raise ValueError("countdown: min_needed must be <= n_numbers")


LEVELS: tuple[dict[str, object], ...] = (
    {"n_numbers": 4, "min_large": 0, "max_large": 0, "min_target": 10, "max_target": 60, "min_needed": 2},
    {"n_numbers": 5, "min_large": 0, "max_large": 1, "min_target": 50, "max_target": 200, "min_needed": 3},
    {"n_numbers": 6, "min_large": 1, "max_large": 2, "min_target": 100, "max_target": 500, "min_needed": 3},
    {"n_numbers": 6, "min_large": 1, "max_large": 2, "min_target": 100, "max_target": 999, "min_needed": 4},
    {"n_numbers": 6, "min_large": 0, "max_large": 1, "min_target": 300, "max_target": 999, "min_needed": 4},
    {"n_numbers": 6, "min_large": 0, "max_large": 1, "min_target": 500, "max_target": 999, "min_needed": 4},
)

MAX_DRAWS = 20
EXPRESSIONS_PER_DRAW = 40


def reachable_with_fewer(numbers: list[int], k: int) -> set[int]:
    """Integers reachable using at most ``k`` of the numbers (any rationals in between)."""
    out: set[int] = set()
    for size in range(1, k + 1):
        for subset in sorted(set(itertools.combinations(sorted(numbers), size))):
            out.update(integer_targets(subset))
    return out


def draw_numbers(config: Config, rng: random.Random) -> list[int]:
    n_large = rng.randint(config.min_large, config.max_large)
    large = rng.sample(LARGE, n_large)
    # Two copies of each small number, as in the TV show's small-number pile.
    small = rng.sample([n for n in range(1, 11) for _ in range(2)], config.n_numbers - n_large)
    numbers = large + small
    rng.shuffle(numbers)
    return numbers


def generate(config: Config, rng: random.Random) -> Problem:
    for _ in range(MAX_DRAWS):
        numbers = draw_numbers(config, rng)
        too_easy = reachable_with_fewer(numbers, config.min_needed - 1)
        found = None
        for _ in range(EXPRESSIONS_PER_DRAW):
            used = rng.sample(numbers, rng.randint(max(config.min_needed, 2), config.n_numbers))
            target, expression = random_expression(used, rng, positive_integers=True)
            if config.min_target <= target <= config.max_target and target not in too_easy:
                found = (target, expression)
                break
        if found is not None:
            target, expression = found
            break
    else:
        raise ValueError("countdown: no instance found; widen the target range")
    shown = ", ".join(str(n) for n in numbers)
    question = (
        f"Numbers: {shown}\nTarget: {target}\n\n"
        f"Write an arithmetic expression that equals exactly {target}, using some or all of the numbers above, "
        "each at most once (a number listed twice may be used twice), and only +, -, *, / and parentheses. "
        "Division is exact (fractions are allowed in between); do not join digits into new numbers and do not "
        "use unary minus.\n"
        "Answer with the expression only, on one line (e.g. (25 + 5) * 4 - 3)."
    )
    return Problem(question=question, answer=expression, extra={"numbers": numbers, "target": target})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 iff the expression is allowed, equals the target and uses each number at most once."""
    return score_expression(answer_text, item, all_numbers=False)


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:countdown",
    description="Countdown numbers game: reach the target using given numbers at most once each; any valid "
    "expression counts.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    notes="Targets are reachable by construction; min_needed is verified by exhaustive search over subsets.",
)
