"""Trace a ``while`` loop: every value a program prints, in order.

Tests following a loop whose number of iterations is not written down: the loop runs until
its condition fails (a Collatz-style walk, growth past a limit, digit peeling, subtractive
GCD, a countdown with an accumulator, a Fibonacci-like pair). Harder levels unlock more loop
shapes, allow more iterations, and add side computations to the body that feed the printed
value, so the reader must carry more state per iteration. Programs are the family's own tiny
language (``_minilang``), run by its own interpreter with a step budget, never by Python.
The answer is the whole printed sequence, compared as an ordered list.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem
from generators.families import _minilang as ml

NAME = "loop_trace"

_SHAPES = ("countdown", "growth", "digits", "collatz", "gcd", "pair")
_MAX_TRIES = 100


@dataclass(frozen=True)
class Config(Knobs):
    shapes: int = 2
    """How many loop shapes (in the order of ``_SHAPES``) can be drawn."""
    max_iterations: int = 5
    side_statements: int = 0
    """Extra assignments in the loop body, one of which feeds the printed value."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "shapes": (1, len(_SHAPES)),
        "max_iterations": (3, 16),
        "side_statements": (0, 3),
    }


LEVELS = (
    {"shapes": 3, "max_iterations": 5, "side_statements": 0},
    {"shapes": 3, "max_iterations": 6, "side_statements": 0},
    {"shapes": 4, "max_iterations": 7, "side_statements": 1},
    {"shapes": 5, "max_iterations": 8, "side_statements": 1},
    {"shapes": 6, "max_iterations": 10, "side_statements": 2},
    {"shapes": 6, "max_iterations": 12, "side_statements": 2},
)


def _v(name: str) -> ml.Node:
    return ("v", name)


def _n(value: int) -> ml.Node:
    return ("n", value)


def _op(symbol: str, left: ml.Node, right: ml.Node) -> ml.Node:
    return ("op", symbol, left, right)


def _loop(shape: str, most: int, rng: random.Random) -> tuple[list[ml.Node], ml.Node, list[ml.Node], str]:
    """Initial assignments, loop condition, loop body and the variable the loop is about."""
    body: list[ml.Node]
    if shape == "countdown":
        step = rng.randint(1, 4)
        init = [("set", "k", _n(rng.randint(6, 30))), ("set", "s", _n(rng.randint(0, 9)))]
        body = [
            ("set", "s", _op("+", _v("s"), _op("*", _v("k"), _n(rng.randint(1, 3))))),
            ("set", "k", _op("-", _v("k"), _n(step))),
        ]
        return init, ("cmp", ">", _v("k"), _n(0)), body, "s"
    if shape == "growth":
        init = [("set", "x", _n(rng.randint(1, 9)))]
        body = [("set", "x", _op("+", _op("*", _v("x"), _n(rng.randint(2, 3))), _n(rng.randint(-3, 5))))]
        return init, ("cmp", "<", _v("x"), _n(rng.choice((100, 200, 500, 1000, 5000)))), body, "x"
    if shape == "digits":
        digits = rng.randint(3, min(7, most))  # one iteration per digit
        init = [("set", "x", _n(rng.randint(10 ** (digits - 1), 10**digits - 1))), ("set", "s", _n(0))]
        body = [("set", "s", _op("+", _v("s"), _op("%", _v("x"), _n(10)))), ("set", "x", _op("//", _v("x"), _n(10)))]
        return init, ("cmp", ">", _v("x"), _n(0)), body, "s"
    if shape == "collatz":
        init = [("set", "x", _n(rng.randint(3, 60)))]
        odd = _op("+", _op("*", _v("x"), _n(3)), _n(1))
        body = [
            (
                "if",
                ("cmp", "==", _op("%", _v("x"), _n(2)), _n(0)),
                [("set", "x", _op("//", _v("x"), _n(2)))],
                [("set", "x", odd)],
            )
        ]
        return init, ("cmp", "!=", _v("x"), _n(1)), body, "x"
    if shape == "gcd":
        init = [("set", "a", _n(rng.randint(5, 80))), ("set", "b", _n(rng.randint(5, 80)))]
        body = [
            (
                "if",
                ("cmp", ">", _v("a"), _v("b")),
                [("set", "a", _op("-", _v("a"), _v("b")))],
                [("set", "b", _op("-", _v("b"), _v("a")))],
            )
        ]
        return init, ("cmp", "!=", _v("a"), _v("b")), body, rng.choice("ab")
    init = [("set", "a", _n(rng.randint(0, 5))), ("set", "b", _n(rng.randint(1, 6)))]
    body = [("set", "t", _op("+", _v("a"), _v("b"))), ("set", "a", _v("b")), ("set", "b", _v("t"))]
    return init, ("cmp", "<", _v("b"), _n(rng.choice((50, 100, 200, 400)))), body, "b"


def generate(config: Config, rng: random.Random) -> Problem:
    for _ in range(_MAX_TRIES):
        shape = rng.choice(_SHAPES[: config.shapes])
        init, cond, body, about = _loop(shape, config.max_iterations, rng)
        shown = about
        if config.side_statements:
            names = sorted({stmt[1] for stmt in init} | {"y"})
            init = [*init, ("set", "y", _n(rng.randint(0, 9)))]
            for _ in range(config.side_statements - 1):
                body = [*body, ("set", "y", ml.random_expr(rng, names, 9))]
            body = [*body, ("set", "y", _op(rng.choice("+-"), _v("y"), _v(about)))]
            shown = "y"
        program = [*init, ("while", cond, [*body, ("print", _v(shown))])]
        try:
            printed = ml.run(program, max_steps=400)
        except ml.ProgramError:
            continue
        if 3 <= len(printed) <= config.max_iterations and len(set(printed)) >= 3 and max(map(abs, printed)) <= 10**6:
            break
    else:
        raise ValueError("loop_trace: no loop within the iteration range")
    source = ml.text(program)
    question = (
        "What does this program print? List every printed value in order.\n\n"
        f"```python\n{source}\n```\n\n{ml.SEMANTICS} "
        "Answer with the printed integers separated by commas, first printed first."
    )
    return Problem(question, ", ".join(str(value) for value in printed), {"program": source, "shape": shape})


FAMILY = Family(
    name=NAME,
    description="Every value a while-loop program prints, in order (Collatz, digits, GCD, growth...).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
)
