"""Find an input for which a short Python-like program prints a given value.

Tests reasoning backwards through code: the program reads an integer ``n``, transforms it
with assignments, conditionals and counted loops, and prints one value; the question gives
the printed value and asks for an ``n`` in a stated range that produces it. Harder levels
use longer, more nested programs and a wider input range, so guessing and forward trial
both get expensive. Programs are the family's own tiny language (``_minilang``), run by its
own interpreter with a step budget, never by Python.

Several inputs may work, so the scorer runs the program on the answer and compares the
output with the target: any correct ``n`` scores 1. A program that maps many inputs to one
output would let a constant answer win, so an item is kept only if none of a few junk
constants and a sample of other inputs hits the target.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer, parse_number
from generators.base import Family, Knobs, Problem
from generators.families import _minilang as ml

NAME = "program_input"

_NAMES = ("a", "b", "c")
_JUNK_INPUTS = (0, 1, 2, 3, 10)
_SAMPLED = 5
_MAX_STEPS = 600
_MAX_TRIES = 300


@dataclass(frozen=True)
class Config(Knobs):
    variables: int = 1
    """Helper variables besides the input ``n``."""
    statements: int = 2
    depth: int = 0
    loops: bool = False
    max_input: int = 50

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "variables": (0, len(_NAMES)),
        "statements": (1, 12),
        "depth": (0, 3),
        "max_input": (20, 100_000),
    }

    def check(self) -> None:
        if not isinstance(self.loops, bool):
            raise ValueError(f"Config.loops must be a bool, got {self.loops!r}")


LEVELS = (
    {"variables": 1, "statements": 2, "depth": 0, "max_input": 50},
    {"variables": 1, "statements": 3, "depth": 1, "max_input": 100},
    {"variables": 2, "statements": 4, "depth": 1, "loops": True, "max_input": 200},
    {"variables": 2, "statements": 5, "depth": 2, "loops": True, "max_input": 500},
    {"variables": 3, "statements": 5, "depth": 2, "loops": True, "max_input": 999},
    {"variables": 3, "statements": 6, "depth": 2, "loops": True, "max_input": 999},
)


def _output(program: list[Any], n: int) -> int | None:
    try:
        printed = ml.run(program, {"n": n}, max_steps=_MAX_STEPS)
    except (ml.ProgramError, IndexError, KeyError, TypeError):
        return None
    return printed[0] if len(printed) == 1 else None


def generate(config: Config, rng: random.Random) -> Problem:
    helpers = _NAMES[: config.variables]
    names = ("n", *helpers)
    for _ in range(_MAX_TRIES):
        init: list[ml.Node] = [("set", name, ("n", rng.randint(1, 20))) for name in helpers]
        body = ml.random_block(rng, names, config.statements, config.depth, 20, config.loops)
        n = rng.randint(0, config.max_input)
        others = [*_JUNK_INPUTS, *(rng.randint(0, config.max_input) for _ in range(_SAMPLED))]
        fit = sorted({stmt[1] for stmt in body if stmt[0] == "set"})
        runner = ml.compile_program([*init, *body])
        try:
            env = runner({"n": n}, _MAX_STEPS)[1]
        except ml.ProgramError:
            continue
        fit = [name for name in fit if abs(env[name]) <= 10**6]
        for other in others:
            if not fit:
                break
            if other == n:
                continue
            try:
                seen = runner({"n": other}, _MAX_STEPS)[1]
            except ml.ProgramError:
                continue  # an input the program fails on never prints the target
            fit = [name for name in fit if seen[name] != env[name]]
        if fit:
            shown = rng.choice(fit)
            break
    else:
        raise ValueError("program_input: no program with a rare enough output")
    program = [*init, *body, ("print", ("v", shown))]
    target = env[shown]
    if _output(program, n) != target:
        raise ValueError("program_input: the gold input does not print the target")
    wrong = next(other for other in others if other != n)
    question = (
        "The program below reads an integer n.\n\n"
        f"```python\n{ml.text(program)}\n```\n\n{ml.SEMANTICS} "
        f"Find an integer n with 0 <= n <= {config.max_input} for which the program prints {target}. "
        "If several values work, any one of them is accepted. Answer with the integer n only."
    )
    extra = {"program": program, "target": target, "max_input": config.max_input, "wrong_input": wrong}
    return Problem(question, str(n), extra)


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the program, run on the answer (an integer in range), prints the target."""
    try:
        meta = item.get("metadata") or item.get("extra") or {}
        text = extract_answer(answer_text)
        if len(text) > 64:
            return 0.0
        value = parse_number(text)
        if value is None or value.denominator != 1 or not 0 <= value.numerator <= int(meta["max_input"]):
            return 0.0
        return 1.0 if _output(meta["program"], value.numerator) == int(meta["target"]) else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """An input checked at generation not to print the target."""
    meta = item.get("metadata") or item.get("extra") or {}
    return [str(meta["wrong_input"])]


FAMILY = Family(
    name=NAME,
    description="Any input n for which a random Python-like program prints a target (run to check).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
    score=score,
    counterpart="reasoning_gym:codeio",
)
