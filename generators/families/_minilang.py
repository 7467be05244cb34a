"""A tiny Python-like language for the code families: random programs, their text, an interpreter.

Programs are trees of tuples, rendered as Python-looking text and run by :func:`run`, a
small interpreter with a step budget: generated code is never handed to Python's own
``exec``/``eval``, so a program (or an input a model proposes) can do nothing but count.

Statements:  ``("set", var, expr)``, ``("if", cond, body, orelse)``, ``("for", var, count, body)``
(``for var in range(count)``), ``("while", cond, body)``, ``("print", expr)``.
Expressions: ``("n", value)``, ``("v", name)``, ``("op", symbol, left, right)`` with ``+ - *``
and ``// %`` by a positive constant only (Python's floor semantics, stated in every question).
Conditions:  ``("cmp", symbol, left, right)``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

Node = tuple[Any, ...]

SEMANTICS = (
    "The language behaves like Python: integers are unbounded, `//` is floor division and `%` is "
    "the remainder with the sign of the divisor (so -7 // 2 is -4 and -7 % 2 is 1)."
)
VALUE_LIMIT = 10**9
"""Programs whose values leave this range are rejected at generation (and fail when scored)."""


class ProgramError(ValueError):
    """A program ran out of steps, produced a too large value or is malformed."""


def _floordiv(a: int, b: int) -> int:
    return a // b


def _mod(a: int, b: int) -> int:
    return a % b


_OPS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": _floordiv,
    "%": _mod,
}
_CMPS = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


def evaluate(expr: Node, env: dict[str, int]) -> int:
    kind = expr[0]
    if kind == "n":
        return int(expr[1])
    if kind == "v":
        if expr[1] not in env:
            raise ProgramError(f"variable {expr[1]} is not set")
        return env[expr[1]]
    left, right = evaluate(expr[2], env), evaluate(expr[3], env)
    if expr[1] in ("//", "%") and right == 0:
        raise ProgramError("division by zero")
    value = _OPS[expr[1]](left, right)
    if abs(value) > VALUE_LIMIT:
        raise ProgramError("value out of range")
    return value


def holds(cond: Node, env: dict[str, int]) -> bool:
    return bool(_CMPS[cond[1]](evaluate(cond[2], env), evaluate(cond[3], env)))


class _Runner:
    def __init__(self, env: dict[str, int], max_steps: int) -> None:
        self.env = env
        self.steps = 0
        self.max_steps = max_steps
        self.out: list[int] = []

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            raise ProgramError("step limit reached")

    def block(self, body: Sequence[Node]) -> None:
        for stmt in body:
            self.stmt(stmt)

    def stmt(self, stmt: Node) -> None:
        self.tick()
        kind = stmt[0]
        if kind == "set":
            self.env[stmt[1]] = evaluate(stmt[2], self.env)
        elif kind == "print":
            self.out.append(evaluate(stmt[1], self.env))
        elif kind == "if":
            self.block(stmt[2] if holds(stmt[1], self.env) else stmt[3])
        elif kind == "for":
            for i in range(stmt[2]):
                self.env[stmt[1]] = i
                self.tick()
                self.block(stmt[3])
        elif kind == "while":
            while holds(stmt[1], self.env):
                self.tick()
                self.block(stmt[2])
        else:
            raise ProgramError(f"unknown statement {kind!r}")


def run(program: Sequence[Node], env: dict[str, int] | None = None, max_steps: int = 2000) -> list[int]:
    """The printed values of ``program`` started with ``env``; ``ProgramError`` past ``max_steps``."""
    return execute(program, env, max_steps)[0]


def execute(
    program: Sequence[Node], env: dict[str, int] | None = None, max_steps: int = 2000
) -> tuple[list[int], dict[str, int]]:
    """The printed values and the final variables of ``program``."""
    runner = _Runner(dict(env or {}), max_steps)
    runner.block(program)
    return runner.out, runner.env


def expr_text(expr: Node, min_rank: int = 0) -> str:
    """Python-looking text; parentheses only where precedence or left-associativity needs them."""
    if expr[0] == "n":
        return f"({expr[1]})" if expr[1] < 0 and min_rank > 0 else str(expr[1])
    if expr[0] == "v":
        return str(expr[1])
    rank = 1 if expr[1] in ("+", "-") else 2
    body = f"{expr_text(expr[2], rank)} {expr[1]} {expr_text(expr[3], rank + 1)}"
    return f"({body})" if rank < min_rank else body


def cond_text(cond: Node) -> str:
    return f"{expr_text(cond[2])} {cond[1]} {expr_text(cond[3])}"


def lines(program: Sequence[Node], indent: int = 0) -> list[str]:
    pad = "    " * indent
    out: list[str] = []
    for stmt in program:
        kind = stmt[0]
        if kind == "set":
            out.append(f"{pad}{stmt[1]} = {expr_text(stmt[2])}")
        elif kind == "print":
            out.append(f"{pad}print({expr_text(stmt[1])})")
        elif kind == "if":
            out.append(f"{pad}if {cond_text(stmt[1])}:")
            out.extend(lines(stmt[2], indent + 1))
            if stmt[3]:
                out.append(f"{pad}else:")
                out.extend(lines(stmt[3], indent + 1))
        elif kind == "for":
            out.append(f"{pad}for {stmt[1]} in range({stmt[2]}):")
            out.extend(lines(stmt[3], indent + 1))
        elif kind == "while":
            out.append(f"{pad}while {cond_text(stmt[1])}:")
            out.extend(lines(stmt[2], indent + 1))
    return out


def text(program: Sequence[Node]) -> str:
    return "\n".join(lines(program))


# -- random programs --------------------------------------------------------------------------


def random_expr(rng: random.Random, names: Sequence[str], small: int) -> Node:
    """``var op var`` or ``var op constant`` (constants small for ``*``, positive for ``// %``)."""
    first = rng.choice(names)
    left: Node = ("v", first)
    op = rng.choice(("+", "+", "-", "-", "*", "//", "%"))
    if op in ("//", "%"):
        return ("op", op, left, ("n", rng.randint(2, 9)))
    others = [name for name in names if name != first]
    if op == "*":
        use_var = others and rng.random() < 0.4
        right: Node = ("v", rng.choice(others)) if use_var else ("n", rng.randint(2, 4))
        return ("op", op, left, right)
    right = ("v", rng.choice(others)) if others and rng.random() < 0.5 else ("n", rng.randint(1, small))
    if rng.random() < 0.3:
        left, right = right, left
    return ("op", op, left, right)


def random_cond(rng: random.Random, names: Sequence[str], small: int) -> Node:
    first = rng.choice(names)
    left: Node = ("v", first)
    if rng.random() < 0.3:
        left = ("op", "%", left, ("n", rng.randint(2, 5)))
        return ("cmp", rng.choice(("==", "!=")), left, ("n", 0))
    others = [name for name in names if name != first]
    right: Node = ("v", rng.choice(others)) if others and rng.random() < 0.4 else ("n", rng.randint(0, small))
    return ("cmp", rng.choice(tuple(_CMPS)), left, right)


def random_block(
    rng: random.Random,
    names: Sequence[str],
    length: int,
    depth: int,
    small: int,
    loops: bool,
    readable: Sequence[str] = (),
) -> list[Node]:
    """``length`` statements assigning ``names`` (reading also ``readable``, e.g. loop
    counters, which are never assigned); with ``depth`` > 0 some are ``if``/``for`` blocks."""
    reads = [*names, *readable]
    body: list[Node] = []
    for _ in range(length):
        roll = rng.random()
        if depth > 0 and roll < 0.25:
            then = random_block(rng, names, rng.randint(1, 2), depth - 1, small, loops, readable)
            orelse = random_block(rng, names, rng.randint(1, 2), depth - 1, small, loops, readable)
            body.append(("if", random_cond(rng, reads, small), then, orelse if rng.random() < 0.6 else []))
        elif depth > 0 and loops and roll < 0.45:
            counter = "ijk"[len(readable)] if len(readable) < 3 else "k"
            loop_body = random_block(rng, names, rng.randint(1, 2), depth - 1, small, False, [*readable, counter])
            target = rng.choice(names)
            loop_body.append(("set", target, ("op", rng.choice("+-"), ("v", target), ("v", counter))))
            body.append(("for", counter, rng.randint(2, 5), loop_body))
        else:
            body.append(("set", rng.choice(names), random_expr(rng, reads, small)))
    return body
