"""Plain JSON at the boundary: what an action, a tool argument or an answer may contain.

Python's ``json`` accepts things no tool, verifier or response encoder can handle: ``1e999``
parses as infinity, ``"\\ud800"`` as a lone surrogate that cannot be encoded back to UTF-8,
a 400-digit literal as an integer SQLite and ``float()`` overflow on, and deep nesting
that exhausts recursion later. Each of these used to surface as a server error or an
exception from ``step`` after the episode had changed. They are refused here, once, where
values enter (the HTTP body parser, MCP and ``Environment.step`` all call this module):

* numbers: finite floats, integers within SQLite's signed 64-bit range;
* strings (keys too): valid Unicode (no lone surrogates), at most ``MAX_STRING`` characters;
* containers: nesting at most ``MAX_DEPTH`` deep, at most ``MAX_NODES`` values in all;
* types: only ``None``, ``bool``, ``int``, ``float``, ``str``, ``list``/``tuple`` and
  ``dict`` with string keys.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 32
MAX_NODES = 100_000
MAX_STRING = 1 << 20
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
_MAX_INT_DIGITS = 20


def _where(path: tuple[Any, ...]) -> str:
    head, *rest = path
    return str(head) + "".join(f"[{p!r}]" if isinstance(p, str) else f"[{p}]" for p in rest)


def _string_problem(text: str) -> str | None:
    if len(text) > MAX_STRING:
        return f"a string of {len(text)} characters is over the limit of {MAX_STRING}"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "a string holds a lone surrogate (not valid Unicode)"
    return None


def _plain(value: Any) -> bool:
    """True when ``value`` is plain, bounded JSON of exact built-in types: the check of every step,
    kept cheap (no paths; ASCII strings need no encoding). False sends :func:`json_problem` the slow way,
    which also decides subclasses of the built-in types."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    nodes = 0
    while stack:
        item, depth = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            return False
        kind = type(item)
        if kind is str:
            if len(item) > MAX_STRING or not (item.isascii() or _string_problem(item) is None):
                return False
        elif kind is int:
            if not INT_MIN <= item <= INT_MAX:
                return False
        elif item is None or kind is bool:
            continue
        elif kind is float:
            if not math.isfinite(item):
                return False
        elif kind is dict:
            if depth >= MAX_DEPTH:
                return False
            for key, child in item.items():
                if type(key) is not str or len(key) > MAX_STRING or not (key.isascii() or _string_problem(key) is None):
                    return False
                stack.append((child, depth + 1))
        elif kind is list or kind is tuple:
            if depth >= MAX_DEPTH:
                return False
            stack.extend((child, depth + 1) for child in item)
        else:
            return False
    return True


def json_problem(value: Any, what: str = "value") -> str | None:
    """Why ``value`` is not plain, bounded JSON (a message naming where), or None when it is.

    Iterative, so a hostile depth can never exhaust the interpreter's recursion limit.
    """
    if _plain(value):
        return None
    stack: list[tuple[Any, tuple[Any, ...], int]] = [(value, (what,), 0)]
    nodes = 0
    while stack:
        item, path, depth = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            return f"{what} holds more than {MAX_NODES} values"
        if item is None or isinstance(item, bool):
            continue
        if isinstance(item, int):
            if not INT_MIN <= item <= INT_MAX:
                return f"{_where(path)}: integer outside the 64-bit range ({item.bit_length()} bits)"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"{_where(path)}: {item} is not a finite number"
        elif isinstance(item, str):
            problem = _string_problem(item)
            if problem is not None:
                return f"{_where(path)}: {problem}"
        elif isinstance(item, list | tuple | dict):
            if depth >= MAX_DEPTH:
                return f"{_where(path)}: nested more than {MAX_DEPTH} levels deep"
            if isinstance(item, dict):
                for key, child in item.items():
                    if not isinstance(key, str):
                        return f"{_where(path)}: key {type(key).__name__} is not a string"
                    problem = _string_problem(key)
                    if problem is not None:
                        return f"{_where(path)}: a key: {problem}"
                    stack.append((child, (*path, key[:40]), depth + 1))
            else:
                stack.extend((child, (*path, i), depth + 1) for i, child in enumerate(item))
        else:
            return f"{_where(path)}: {type(item).__name__} is not a JSON value"
    return None


def check_json(value: Any, what: str = "value") -> Any:
    """``value`` if it is plain, bounded JSON; ValueError naming the problem otherwise."""
    problem = json_problem(value, what)
    if problem is not None:
        raise ValueError(problem)
    return value


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is too large to represent (infinite)")
    return value


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits is outside the 64-bit range")
    value = int(text)
    if not INT_MIN <= value <= INT_MAX:
        raise ValueError(f"the integer {text} is outside the 64-bit range")
    return value


def parse_json(raw: bytes | str, what: str = "body") -> Any:
    """Parse JSON text strictly: the rules above, plus no NaN/Infinity literals; ValueError otherwise."""
    try:
        value = json.loads(raw, parse_constant=_refuse_constant, parse_float=_finite, parse_int=_bounded_int)
    except RecursionError:
        raise ValueError(f"{what} is nested too deeply") from None
    return check_json(value, what)
