"""Game of 24 (and its generalisation): use every given number exactly once to hit a target.

Tests arithmetic search over expression trees. Level 0 is the classic game (four numbers
1-9, target 24); then the numbers grow to 13, the target varies, some items admit only
solutions through a fractional intermediate result (like 8 / (3 - 8 / 3)), and the top levels
use five and six numbers. Four-number items are checked solvable by exhaustive search;
larger ones are built from a random expression, so they are solvable by construction. Any
correct expression is accepted: the scorer parses it with a whitelist AST evaluator over
exact fractions and checks that each number is used exactly once. Nothing is eval'd.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._arith import (
    find_expression,
    integer_targets,
    random_expression,
    score_expression,
)

NAME = "game_24"


@dataclass(frozen=True)
class Config(Knobs):
    n_numbers: int = 4
    max_number: int = 9
    min_target: int = 24
    max_target: int = 24
    fraction_only: bool = False
    """Only items whose every solution passes through a non-integer intermediate result."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "n_numbers": (2, 6),
        "max_number": (2, 50),
        "min_target": (1, 5000),
        "max_target": (1, 5000),
    }

    def check(self) -> None:
        if self.min_target > self.max_target:
            raise ValueError("game_24: min_target must be <= max_target")
        if self.fraction_only and self.n_numbers != 4:
            raise ValueError("game_24: fraction_only needs n_numbers == 4 (it requires an exhaustive search)")


LEVELS: tuple[dict[str, object], ...] = (
    {"n_numbers": 4, "max_number": 9, "min_target": 24, "max_target": 24},
    {"n_numbers": 4, "max_number": 13, "min_target": 24, "max_target": 24},
    {"n_numbers": 4, "max_number": 13, "min_target": 25, "max_target": 100},
    {"n_numbers": 4, "max_number": 13, "min_target": 1, "max_target": 100, "fraction_only": True},
    {"n_numbers": 5, "max_number": 15, "min_target": 50, "max_target": 300},
    {"n_numbers": 6, "max_number": 20, "min_target": 100, "max_target": 999},
)

MAX_TRIES = 60


def _exhaustive(config: Config, rng: random.Random) -> tuple[list[int], int, str] | None:
    numbers = [rng.randint(1, config.max_number) for _ in range(config.n_numbers)]
    reachable = integer_targets(tuple(numbers))
    targets = sorted(
        t
        for t, integral in reachable.items()
        if config.min_target <= t <= config.max_target and not (config.fraction_only and integral)
    )
    if not targets:
        return None
    target = rng.choice(targets)
    expression = find_expression(tuple(numbers), target, integral=False if config.fraction_only else None)
    return (numbers, target, expression) if expression else None


def _constructed(config: Config, rng: random.Random) -> tuple[list[int], int, str] | None:
    numbers = [rng.randint(1, config.max_number) for _ in range(config.n_numbers)]
    built = random_expression(numbers, rng, positive_integers=True)
    if not config.min_target <= built[0] <= config.max_target:
        return None
    return numbers, built[0], built[1]


def generate(config: Config, rng: random.Random) -> Problem:
    make = _exhaustive if config.n_numbers <= 4 else _constructed
    for _ in range(MAX_TRIES):
        found = make(config, rng)
        if found is not None:
            break
    else:
        raise ValueError("game_24: no solvable instance found; widen the target range")
    numbers, target, expression = found
    shown = ", ".join(str(n) for n in numbers)
    question = (
        f"Numbers: {shown}\nTarget: {target}\n\n"
        f"Write an arithmetic expression that equals exactly {target}, using each of the numbers above exactly "
        "once (a number listed twice must be used twice) and only +, -, *, / and parentheses. Division is exact "
        "(fractions are allowed in between); do not join digits into new numbers and do not use unary minus.\n"
        "Answer with the expression only, on one line (e.g. (2 + 3) * 4 - 1)."
    )
    return Problem(question=question, answer=expression, extra={"numbers": numbers, "target": target})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 iff the expression is allowed, equals the target and uses each number exactly once."""
    return score_expression(answer_text, item, all_numbers=True)


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:puzzle24",
    description="Combine every given number once with + - * / to reach the target; any valid expression counts.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    notes="Level 0 (four numbers 1-9, target 24) has only about 400 solvable number sets, so its item space "
    "is small (orderings aside). Expressions are checked with an AST whitelist over exact fractions.",
)
