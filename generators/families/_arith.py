"""Safe exact arithmetic for the number-puzzle families (game_24, countdown).

Candidate expressions come from model output, so they are parsed with :mod:`ast` and
walked by a whitelist evaluator over :class:`fractions.Fraction`: only integer literals,
parentheses and binary ``+ - * /``. Nothing is ever passed to ``eval``. The evaluator also
reports which literals were used so a scorer can check "each number exactly once".
"""

from __future__ import annotations

import ast
import random
import re
import threading
from collections import Counter
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from generators.answers import ANSWER_ERRORS

MAX_EXPRESSION_CHARS = 300
MAX_DEPTH = 40
_PARSE_LOCK = threading.Lock()
"""CPython 3.11 builds AST objects with an interpreter-wide recursion counter, so two threads
parsing at once (a trainer scoring completions from a thread pool) can raise SystemError."""

_TRANSLATE = str.maketrans(
    {"×": "*", "∗": "*", "·": "*", "÷": "/", "−": "-", "–": "-", "[": "(", "]": ")", "{": "(", "}": ")"}
)


class ExpressionError(ValueError):
    """The text is not an allowed arithmetic expression (or divides by zero)."""


def _walk(node: ast.AST, used: list[int], depth: int) -> Fraction:
    if depth > MAX_DEPTH:
        raise ExpressionError("expression nested too deeply")
    if isinstance(node, ast.Expression):
        return _walk(node.body, used, depth + 1)
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ExpressionError(f"only non-negative integer literals are allowed, got {value!r}")
        used.append(value)
        return Fraction(value)
    if isinstance(node, ast.BinOp):
        left = _walk(node.left, used, depth + 1)
        right = _walk(node.right, used, depth + 1)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Div):
            if right == 0:
                raise ExpressionError("division by zero")
            return left / right
        raise ExpressionError(f"operator {type(node.op).__name__} is not allowed")
    raise ExpressionError(f"{type(node).__name__} is not allowed")


def normalize(text: str) -> str:
    """Map common typographic operators to ASCII and drop a trailing ``= target``."""
    text = text.translate(_TRANSLATE).strip().strip("`$").strip()
    text = re.sub(r"(?<=[\d)])\s*[xX]\s*(?=[\d(])", "*", text)
    return text


def evaluate(text: str) -> tuple[Fraction, list[int]]:
    """Value and used literals of ``text``; raises :class:`ExpressionError` if not allowed."""
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ExpressionError("expression too long")
    try:
        with _PARSE_LOCK:
            tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise ExpressionError(f"not an expression: {exc}") from None
    used: list[int] = []
    value = _walk(tree, used, 0)
    return value, used


def split_claim(text: str, target: int) -> str:
    """The expression part of ``"expr"`` or ``"expr = target"``; other right sides are rejected."""
    parts = [p.strip() for p in normalize(text).split("=")]
    expression = parts[0]
    for rhs in parts[1:]:
        if rhs.replace(" ", "") != str(target):
            raise ExpressionError("the right-hand side is not the target")
    return expression


def check_expression(text: str, numbers: list[int], target: int, *, all_numbers: bool) -> bool:
    """True iff ``text`` evaluates exactly to ``target`` using the numbers as allowed.

    ``all_numbers``: each given number exactly once (game of 24); otherwise each at most
    once (countdown). Multiplicity matters: ``[5, 5]`` allows two 5s, ``[5]`` only one.
    """
    expression = split_claim(text, target)
    value, used = evaluate(expression)
    if value != target:
        return False
    available = Counter(numbers)
    needed = Counter(used)
    if all_numbers:
        return available == needed
    return all(available[n] >= c for n, c in needed.items())


# --- exhaustive search over small multisets (generation side) ---------------------------
# Rationals are (numerator, positive denominator) int pairs, unreduced: for at most four
# small numbers they stay tiny and this is several times faster than Fraction.

_Q = tuple[int, int]


def score_expression(answer_text: str, item: Mapping[str, Any], *, all_numbers: bool) -> float:
    """The shared scorer of the expression games: 1.0 iff the extracted expression is valid.

    A malformed answer scores 0.0; a malformed item raises (the dispatcher reports it).
    """
    try:
        from generators.answers import extract_answer

        meta = item["metadata"]
        numbers = [int(n) for n in meta["numbers"]]
        ok = check_expression(extract_answer(answer_text), numbers, int(meta["target"]), all_numbers=all_numbers)
        return 1.0 if ok else 0.0
    except ANSWER_ERRORS:
        return 0.0


def _combine(a: _Q, b: _Q) -> list[_Q]:
    (p, q), (r, s) = a, b
    out = [(p * s + r * q, q * s), (p * s - r * q, q * s), (r * q - p * s, q * s), (p * r, q * s)]
    if r != 0:
        out.append((p * s, q * r) if r > 0 else (-p * s, -q * r))
    if p != 0:
        out.append((r * q, s * p) if p > 0 else (-r * q, -s * p))
    return out


def integer_targets(numbers: tuple[int, ...]) -> dict[int, bool]:
    """Every integer reachable using each number exactly once -> True if some derivation keeps
    all intermediate results integral, False if every derivation needs a fraction.

    Exhaustive pairwise combination; meant for at most 4 numbers (a few ms).
    """
    result: dict[int, bool] = {}

    def solve(state: list[_Q], integral: bool) -> None:
        if len(state) == 1:
            p, q = state[0]
            if p % q == 0:
                value = p // q
                result[value] = result.get(value, False) or integral
            return
        n = len(state)
        for i in range(n):
            for j in range(i + 1, n):
                rest = [state[k] for k in range(n) if k != i and k != j]
                for combined in _combine(state[i], state[j]):
                    solve([*rest, combined], integral and combined[0] % combined[1] == 0)

    solve([(n, 1) for n in numbers], True)
    return result


def find_expression(numbers: tuple[int, ...], target: int, *, integral: bool | None = None) -> str | None:
    """A fully parenthesised expression using every number once that equals ``target``.

    ``integral=True`` only accepts derivations whose intermediate results are all integers,
    ``False`` only those that need a fraction somewhere, ``None`` either. Exhaustive with
    early exit; meant for at most 4 numbers.
    """

    def solve(state: list[tuple[_Q, str]], ok_integral: bool) -> str | None:
        if len(state) == 1:
            (p, q), text = state[0]
            if p == target * q and (integral is None or integral == ok_integral):
                return text
            return None
        n = len(state)
        for i in range(n):
            for j in range(i + 1, n):
                rest = [state[k] for k in range(n) if k != i and k != j]
                (a, ta), (b, tb) = state[i], state[j]
                options = [
                    (f"({ta} + {tb})", a, b, "+"),
                    (f"({ta} - {tb})", a, b, "-"),
                    (f"({tb} - {ta})", b, a, "-"),
                    (f"({ta} * {tb})", a, b, "*"),
                    (f"({ta} / {tb})", a, b, "/"),
                    (f"({tb} / {ta})", b, a, "/"),
                ]
                for text, x, y, op in options:
                    value = _apply(x, y, op)
                    if value is None:
                        continue
                    found = solve([*rest, (value, text)], ok_integral and value[0] % value[1] == 0)
                    if found is not None:
                        return found
        return None

    result = solve([((n, 1), str(n)) for n in numbers], True)
    if result is not None and result.startswith("(") and result.endswith(")"):
        inner = result[1:-1]
        depth = 0
        balanced = True
        for ch in inner:
            depth += ch == "("
            depth -= ch == ")"
            if depth < 0:
                balanced = False
                break
        if balanced:
            result = inner
    return result


def _apply(x: _Q, y: _Q, op: str) -> _Q | None:
    (p, q), (r, s) = x, y
    if op == "+":
        return (p * s + r * q, q * s)
    if op == "-":
        return (p * s - r * q, q * s)
    if op == "*":
        return (p * r, q * s)
    if r == 0:
        return None
    return (p * s, q * r) if r > 0 else (-p * s, -q * r)


def random_expression(numbers: list[int], rng: random.Random, *, positive_integers: bool) -> tuple[int, str]:
    """Combine all of ``numbers`` in a random order with random operations.

    With ``positive_integers`` every intermediate result stays a positive integer (the
    countdown rule), so the final value is an integer reachable by construction. Returns
    (value, expression) with every operation parenthesised except the outermost.
    """
    pool: list[tuple[int, str]] = [(n, str(n)) for n in numbers]
    while len(pool) > 1:
        i, j = rng.sample(range(len(pool)), 2)
        (a, ta), (b, tb) = pool[i], pool[j]
        if a < b:
            (a, ta), (b, tb) = (b, tb), (a, ta)
        choices: list[tuple[int, str]] = [(a + b, f"({ta} + {tb})")]
        if a * b <= 100_000 and a > 1 and b > 1:
            choices.append((a * b, f"({ta} * {tb})"))
        if a - b > 0 or not positive_integers:
            choices.append((a - b, f"({ta} - {tb})"))
        if b > 1 and a % b == 0:
            choices.append((a // b, f"({ta} / {tb})"))
        value, text = rng.choice(choices)
        pool = [pool[k] for k in range(len(pool)) if k not in (i, j)] + [(value, text)]
    value, text = pool[0]
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    return value, text
