"""Fill in a truth table: on which rows of its table is a propositional formula true?

Tests systematic evaluation of a formula with not, and, or, implication (->),
biconditional (<->) and exclusive or over every assignment of its variables. Harder levels
use more variables (so more rows) and deeper formulas with the less familiar connectives.
The rows are listed and numbered in the question; the answer is the set of numbers of the
rows where the formula is true. Every formula depends on all its variables and is true on
at least two rows and false on at least two, which spreads the answers over many sets so
that no constant set of rows pays.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem

NAME = "truth_table"

_VARIABLES = "PQRS"
_BASIC = ("and", "or")
_EXTRA = ("->", "<->", "xor")
_MAX_TRIES = 200

Formula = Any
"""A variable name, ("not", f) or (connective, f, g)."""


@dataclass(frozen=True)
class Config(Knobs):
    variables: int = 3
    depth: int = 2
    extra_connectives: bool = False

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "variables": (2, len(_VARIABLES)),
        "depth": (1, 6),
    }

    def check(self) -> None:
        if not isinstance(self.extra_connectives, bool):
            raise ValueError(f"Config.extra_connectives must be a bool, got {self.extra_connectives!r}")


LEVELS = (
    {"variables": 3, "depth": 3},
    {"variables": 3, "depth": 4},
    {"variables": 3, "depth": 4, "extra_connectives": True},
    {"variables": 4, "depth": 4, "extra_connectives": True},
    {"variables": 4, "depth": 5, "extra_connectives": True},
    {"variables": 4, "depth": 6, "extra_connectives": True},
)


def table(formula: Formula, names: str) -> int:
    """Bit ``r`` is the formula's value on row ``r`` (row bits: first variable most significant,
    so row 0 is all false); one integer operation per connective."""
    rows = 1 << len(names)
    full = (1 << rows) - 1
    if isinstance(formula, str):
        shift = len(names) - 1 - names.index(formula)
        return sum(1 << r for r in range(rows) if r >> shift & 1)
    if formula[0] == "not":
        return full & ~table(formula[1], names)
    a, b = table(formula[1], names), table(formula[2], names)
    return (
        full
        & {
            "and": a & b,
            "or": a | b,
            "xor": a ^ b,
            "->": ~a | b,
            "<->": ~(a ^ b),
        }[formula[0]]
    )


def _random(depth: int, names: str, connectives: tuple[str, ...], rng: random.Random) -> Formula:
    if depth <= 0 or rng.random() < 0.2:
        leaf = rng.choice(names)
        return ("not", leaf) if rng.random() < 0.3 else leaf
    if rng.random() < 0.15:
        return ("not", _random(depth - 1, names, connectives, rng))
    return (
        rng.choice(connectives),
        _random(depth - 1, names, connectives, rng),
        _random(depth - 1, names, connectives, rng),
    )


def text(formula: Formula, top: bool = True) -> str:
    if isinstance(formula, str):
        return formula
    if formula[0] == "not":
        return f"not {text(formula[1], False)}"
    body = f"{text(formula[1], False)} {formula[0]} {text(formula[2], False)}"
    return body if top else f"({body})"


def _depends_on_all(truth: int, names: str) -> bool:
    rows = 1 << len(names)
    for i in range(len(names)):
        shift = len(names) - 1 - i
        if all((truth >> r & 1) == (truth >> (r ^ (1 << shift)) & 1) for r in range(rows)):
            return False
    return True


def generate(config: Config, rng: random.Random) -> Problem:
    names = _VARIABLES[: config.variables]
    connectives = _BASIC + (_EXTRA if config.extra_connectives else ())
    rows = 1 << len(names)
    for _ in range(_MAX_TRIES):
        formula = _random(config.depth, names, connectives, rng)
        truth = table(formula, names)
        ones = truth.bit_count()
        if 2 <= ones <= rows - 2 and _depends_on_all(truth, names):
            break
    else:
        raise ValueError("truth_table: no formula depending on every variable")
    listing = "\n".join(
        f"{r + 1}. " + ", ".join(f"{v}={'T' if r >> (len(names) - 1 - i) & 1 else 'F'}" for i, v in enumerate(names))
        for r in range(rows)
    )
    question = (
        f"Consider the formula {text(formula)}\n(-> is implication, <-> is 'if and only if', xor is 'exactly one "
        "of the two'). Its truth table has these rows:\n"
        f"{listing}\n\nOn which rows is the formula true? Answer with the row numbers separated by commas."
    )
    answer = ", ".join(str(r + 1) for r in range(rows) if truth >> r & 1)
    return Problem(question, answer, {"formula": text(formula), "variables": names})


FAMILY = Family(
    name=NAME,
    description="The rows of a truth table on which a propositional formula (and/or/not/->/<->/xor) is true.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="set",
)
