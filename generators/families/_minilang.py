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
from collections.abc import Callable, Sequence
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


Compiled = Callable[["_State"], None]


class _State:
    __slots__ = ("env", "left", "out")

    def __init__(self, env: dict[str, int], max_steps: int) -> None:
        self.env = env
        self.left = max_steps
        self.out: list[int] = []


def _tick(state: _State) -> None:
    state.left -= 1
    if state.left < 0:
        raise ProgramError("step limit reached")


def compile_expr(expr: Node) -> Callable[[dict[str, int]], int]:
    """The expression as a closure over the variables; no Python source is ever built."""
    kind = expr[0]
    if kind == "n":
        constant = int(expr[1])
        return lambda env: constant
    if kind == "v":
        name = str(expr[1])

        def read(env: dict[str, int]) -> int:
            if name not in env:
                raise ProgramError(f"variable {name} is not set")
            return env[name]

        return read
    if kind != "op" or expr[1] not in _OPS:
        raise ProgramError(f"unknown expression {kind!r}")
    function, divides = _OPS[expr[1]], expr[1] in ("//", "%")
    left, right = compile_expr(expr[2]), compile_expr(expr[3])

    def apply(env: dict[str, int]) -> int:
        b = right(env)
        if divides and b == 0:
            raise ProgramError("division by zero")
        value = function(left(env), b)
        if not -VALUE_LIMIT <= value <= VALUE_LIMIT:
            raise ProgramError("value out of range")
        return value

    return apply


def compile_cond(cond: Node) -> Callable[[dict[str, int]], bool]:
    if cond[0] != "cmp" or cond[1] not in _CMPS:
        raise ProgramError("unknown condition")
    function, left, right = _CMPS[cond[1]], compile_expr(cond[2]), compile_expr(cond[3])
    return lambda env: bool(function(left(env), right(env)))


def _compile_stmt(stmt: Node) -> Compiled:
    kind = stmt[0]
    if kind == "set":
        name, value = str(stmt[1]), compile_expr(stmt[2])

        def assign(state: _State) -> None:
            _tick(state)
            state.env[name] = value(state.env)

        return assign
    if kind == "print":
        shown = compile_expr(stmt[1])

        def emit(state: _State) -> None:
            _tick(state)
            state.out.append(shown(state.env))

        return emit
    if kind == "if":
        test, then, orelse = compile_cond(stmt[1]), compile_block(stmt[2]), compile_block(stmt[3])

        def branch(state: _State) -> None:
            _tick(state)
            (then if test(state.env) else orelse)(state)

        return branch
    if kind == "for":
        counter, count, body = str(stmt[1]), int(stmt[2]), compile_block(stmt[3])

        def repeat(state: _State) -> None:
            _tick(state)
            for i in range(count):
                _tick(state)
                state.env[counter] = i
                body(state)

        return repeat
    if kind == "while":
        test, body = compile_cond(stmt[1]), compile_block(stmt[2])

        def loop(state: _State) -> None:
            _tick(state)
            while test(state.env):
                _tick(state)
                body(state)

        return loop
    raise ProgramError(f"unknown statement {kind!r}")


def compile_block(body: Sequence[Node]) -> Compiled:
    parts = [_compile_stmt(stmt) for stmt in body]

    def block(state: _State) -> None:
        for part in parts:
            part(state)

    return block


def compile_program(program: Sequence[Node]) -> Callable[[dict[str, int], int], tuple[list[int], dict[str, int]]]:
    """``program`` as a function ``(variables, max_steps) -> (printed, final variables)``."""
    block = compile_block(program)

    def call(env: dict[str, int], max_steps: int) -> tuple[list[int], dict[str, int]]:
        state = _State(dict(env), max_steps)
        block(state)
        return state.out, state.env

    return call


def run(program: Sequence[Node], env: dict[str, int] | None = None, max_steps: int = 2000) -> list[int]:
    """The printed values of ``program`` started with ``env``; ``ProgramError`` past ``max_steps``."""
    return execute(program, env, max_steps)[0]


def execute(
    program: Sequence[Node], env: dict[str, int] | None = None, max_steps: int = 2000
) -> tuple[list[int], dict[str, int]]:
    """The printed values and the final variables of ``program``."""
    return compile_program(program)(env or {}, max_steps)


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
