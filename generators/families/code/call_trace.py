"""Evaluate a recursive function by hand: its value, or how many calls it makes.

Tests unrolling recursion: a one-argument function with a base case and a recursive case
that calls itself once (``f(n - 1)``, ``f(n // 2)``), twice (``f(n - 1)`` and ``f(n - 2)``)
or along a parity branch. Harder levels unlock the two-call and branching shapes, use larger
arguments and, for the two-call shape, ask more often for the number of calls made
(counting the first one), which grows quickly when a call spawns two more and rewards a
systematic trace over pattern guessing. Functions are trees of the family's own expression language, rendered as Python
and evaluated by its own memoised interpreter; nothing is run by Python.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families import _minilang as ml

NAME = "call_trace"

_SHAPES = ("linear", "scaled", "halving", "fibonacci", "branching")
_MAX_TRIES = 50
_LIMIT = 10**9

Node = tuple[Any, ...]
"""The ``_minilang`` expression nodes plus ``("call", argument)``."""


@dataclass(frozen=True)
class Config(Knobs):
    shapes: int = 2
    """How many recursion shapes (in the order of ``_SHAPES``) can be drawn."""
    max_arg: int = 6
    calls_rate: float = 0.0
    """Chance that a two-call (Fibonacci-like) item asks for the number of calls, not the value."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "shapes": (1, len(_SHAPES)),
        "max_arg": (3, 40),
        "calls_rate": (0.0, 1.0),
    }


LEVELS = (
    {"shapes": 2, "max_arg": 7, "calls_rate": 0.0},
    {"shapes": 3, "max_arg": 8, "calls_rate": 0.0},
    {"shapes": 4, "max_arg": 10, "calls_rate": 0.4},
    {"shapes": 5, "max_arg": 12, "calls_rate": 0.5},
    {"shapes": 5, "max_arg": 16, "calls_rate": 0.6},
    {"shapes": 5, "max_arg": 20, "calls_rate": 0.6},
)


def _n(value: int) -> Node:
    return ("n", value)


_ARG: Node = ("v", "n")


def _op(symbol: str, left: Node, right: Node) -> Node:
    return ("op", symbol, left, right)


def _call(argument: Node) -> Node:
    return ("call", argument)


def _function(shape: str, rng: random.Random) -> dict[str, Any]:
    """``{"base": k, "base_value": expr, "cases": [(cond or None, expr), ...]}``: ``n <= k`` returns
    ``base_value``; otherwise the first case whose condition holds (None: always) gives the result."""
    a, b = rng.randint(2, 3), rng.randint(1, 12)
    base = rng.randint(0, 2)
    base_value = rng.choice((_n(rng.randint(1, 9)), _op("+", _ARG, _n(rng.randint(1, 6)))))
    sign = rng.choice("+-")
    if shape == "linear":
        body = _op(sign, _op("+", _call(_op("-", _ARG, _n(1))), _op("*", _n(a), _ARG)), _n(b))
    elif shape == "scaled":
        body = _op(sign, _op("*", _call(_op("-", _ARG, _n(1))), _n(a)), _ARG)
    elif shape == "halving":
        body = _op("+", _op("*", _n(a), _call(_op("//", _ARG, _n(2)))), _op("%", _ARG, _n(b + 1)))
        base = max(base, 1)
    elif shape == "fibonacci":
        second = _call(_op("-", _ARG, _n(2)))
        body = _op(
            sign, _op("+", _call(_op("-", _ARG, _n(1))), _op("*", _n(a - 1), second) if a > 2 else second), _n(b)
        )
        base = max(base, 1)
    else:
        even = ("cmp", "==", _op("%", _ARG, _n(2)), _n(0))
        return {
            "base": max(base, 1),
            "base_value": base_value,
            "cases": [
                [even, _op("+", _call(_op("//", _ARG, _n(2))), _n(b))],
                [None, _op(sign, _op("*", _call(_op("-", _ARG, _n(1))), _n(a)), _n(1))],
            ],
        }
    return {"base": base, "base_value": base_value, "cases": [[None, body]]}


class _Trace:
    """Memoised value and call count of ``f``; each distinct argument is evaluated once."""

    def __init__(self, function: Mapping[str, Any]) -> None:
        self.function = function
        self.values: dict[int, tuple[int, int]] = {}

    def _expr(self, node: Node, n: int, calls: list[int]) -> int:
        if node[0] == "call":
            value, count = self.at(self._expr(node[1], n, calls))
            calls[0] += count
            return value
        if node[0] == "n":
            return int(node[1])
        if node[0] == "v":
            return n
        left, right = self._expr(node[2], n, calls), self._expr(node[3], n, calls)
        if node[1] in ("//", "%") and right == 0:
            raise ml.ProgramError("division by zero")
        symbol = node[1]
        if symbol == "+":
            value = left + right
        elif symbol == "-":
            value = left - right
        elif symbol == "*":
            value = left * right
        else:
            value = left // right if symbol == "//" else left % right
        if abs(value) > _LIMIT:
            raise ml.ProgramError("value out of range")
        return value

    def at(self, n: int) -> tuple[int, int]:
        """(f(n), calls made by computing f(n), the first one included)."""
        if n in self.values:
            return self.values[n]
        if n < -1 or len(self.values) > 500:
            raise ml.ProgramError("recursion does not reach the base case")
        calls = [1]
        if n <= int(self.function["base"]):
            value = self._expr(self.function["base_value"], n, calls)
        else:
            for cond, body in self.function["cases"]:
                if cond is None or ml.compile_cond(cond)({"n": n}):
                    value = self._expr(body, n, calls)
                    break
        if calls[0] > _LIMIT:
            raise ml.ProgramError("too many calls")
        self.values[n] = (value, calls[0])
        return value, calls[0]


def _text(node: Node) -> str:
    """Python text of an expression with calls: each call rendered in place of a placeholder."""
    calls: list[str] = []

    def strip(part: Node) -> Node:
        if part[0] == "call":
            calls.append(f"f({ml.expr_text(part[1])})")
            return ("v", f"@{len(calls) - 1}@")
        if part[0] == "op":
            return ("op", part[1], strip(part[2]), strip(part[3]))
        return part

    text = ml.expr_text(strip(node))
    for i, call in enumerate(calls):
        text = text.replace(f"@{i}@", call)
    return text


def source(function: Mapping[str, Any]) -> str:
    out = ["def f(n):", f"    if n <= {function['base']}:", f"        return {_text(function['base_value'])}"]
    for cond, body in function["cases"]:
        if cond is None:
            out.append(f"    return {_text(body)}")
        else:
            out.extend([f"    if {ml.cond_text(cond)}:", f"        return {_text(body)}"])
    return "\n".join(out)


def generate(config: Config, rng: random.Random) -> Problem:
    for _ in range(_MAX_TRIES):
        shape = rng.choice(_SHAPES[: config.shapes])
        function = _function(shape, rng)
        k = rng.randint(3, config.max_arg)
        try:
            value, calls = _Trace(function).at(k)
        except ml.ProgramError:
            continue
        # Only a two-call recursion has call counts spread widely enough: with one call they
        # are k minus the base case plus one, and a constant "4" was right on an eighth.
        ask_calls = shape == "fibonacci" and rng.random() < config.calls_rate
        if ask_calls and calls < 9:
            continue
        if ask_calls or abs(value) >= 10:
            break
    else:
        raise ValueError("call_trace: no function within the limits")
    if ask_calls:
        ask = (
            f"How many times is f called in total when f({k}) is evaluated, counting the first call "
            f"f({k}) itself and every recursive call (nothing is cached)? Answer with one integer."
        )
        answer = calls
    else:
        ask = f"What is the value of f({k})? Answer with one integer."
        answer = value
    question = f"```python\n{source(function)}\n```\n\n{ml.SEMANTICS} {ask}"
    return Problem(question, str(answer), {"shape": shape, "k": k, "asked": "calls" if ask_calls else "value"})


FAMILY = Family(
    name=NAME,
    description="The value of a recursive function at an argument, or the number of calls it makes.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
)
