"""Predict what a short Python-like program prints.

Tests step-by-step execution of code in the head: assignments with arithmetic (including
floor division and remainder), conditionals and counted loops. Harder levels use more
variables and statements and nest ``if``/``for`` blocks deeper, so the reader must track a
growing state through branches and repetitions. Programs are random trees of the family's
own tiny language (``_minilang``), printed as Python and run by its own interpreter with a
step budget; generated code is never executed by Python. One integer is printed, so the
answer is unique and compared as an integer.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem
from generators.families import _minilang as ml

NAME = "program_output"

_NAMES = ("a", "b", "c", "d", "e")
_MAX_TRIES = 200
_MIN_OUTPUT = 10
"""Programs printing a single digit are redrawn: remainders made 0, 1 and 2 so common that
the constant "0" was right on a tenth of the items."""


@dataclass(frozen=True)
class Config(Knobs):
    variables: int = 2
    statements: int = 3
    """Top-level statements after the initial assignments."""
    depth: int = 0
    """Nesting depth of ``if``/``for`` blocks (0: straight-line code)."""
    loops: bool = False
    max_value: int = 20
    """Largest initial value and additive constant."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "variables": (1, len(_NAMES)),
        "statements": (1, 20),
        "depth": (0, 3),
        "max_value": (2, 1000),
    }

    def check(self) -> None:
        if not isinstance(self.loops, bool):
            raise ValueError(f"Config.loops must be a bool, got {self.loops!r}")


LEVELS = (
    {"variables": 2, "statements": 3, "depth": 0, "max_value": 20},
    {"variables": 2, "statements": 4, "depth": 1, "max_value": 20},
    {"variables": 3, "statements": 5, "depth": 1, "loops": True, "max_value": 30},
    {"variables": 3, "statements": 6, "depth": 2, "loops": True, "max_value": 50},
    {"variables": 4, "statements": 7, "depth": 2, "loops": True, "max_value": 50},
    {"variables": 4, "statements": 7, "depth": 3, "loops": True, "max_value": 100},
)


def generate(config: Config, rng: random.Random) -> Problem:
    names = _NAMES[: config.variables]
    for _ in range(_MAX_TRIES):
        init: list[ml.Node] = [("set", name, ("n", rng.randint(0, config.max_value))) for name in names]
        body = ml.random_block(rng, names, config.statements, config.depth, config.max_value, config.loops)
        try:
            _, env = ml.execute([*init, *body], max_steps=600)
        except ml.ProgramError:
            continue
        assigned = sorted({stmt[1] for stmt in body if stmt[0] == "set"})
        fit = [name for name in assigned if _MIN_OUTPUT <= abs(env[name]) <= 100_000]
        if fit:
            shown = rng.choice(fit)
            break
    else:
        raise ValueError("program_output: no program within the value range")
    program = [*init, *body, ("print", ("v", shown))]
    source = ml.text(program)
    question = (
        f"What does this program print?\n\n```python\n{source}\n```\n\n{ml.SEMANTICS} Answer with the printed integer."
    )
    return Problem(question, str(env[shown]), {"program": source})


FAMILY = Family(
    name=NAME,
    description="The integer a random Python-like program (assignments, if, for) prints.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
    counterpart="reasoning_gym:codeio",
)
