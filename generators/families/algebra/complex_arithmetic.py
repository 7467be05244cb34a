"""Add, subtract, multiply or divide complex numbers with integer parts.

The question gives an expression over numbers ``a + bi``; the answer is its value in the
form ``a + bi``. Divisions are built backwards from a Gaussian-integer quotient, so every
answer has integer parts and the task is exact. Harder levels use larger parts, more
operands and more of the four operations, including division (conjugates).

The answer is parsed as a polynomial of degree at most 1 in ``i`` (``3 - 4i``, ``-4i + 3``,
``3-4*i``, ``5``, ``-i``), so any way of writing the same number scores 1.0 and a list of
candidates does not parse.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer
from generators.base import Family, Knobs, Problem
from generators.families._poly import parse_polynomial

NAME = "complex_arithmetic"

_OPERATIONS = ("+", "-", "*", "/")


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"max_part": (1, 1000), "operands": (2, 4), "operations": (1, 4)}

    max_part: int = 9
    """Largest absolute real or imaginary part of an operand (and of a quotient)."""
    operands: int = 2
    operations: int = 2
    """How many of + - * / may appear (in that order)."""


LEVELS = (
    {"max_part": 9, "operands": 2, "operations": 2},
    {"max_part": 12, "operands": 2, "operations": 3},
    {"max_part": 15, "operands": 2, "operations": 4},
    {"max_part": 20, "operands": 3, "operations": 4},
    {"max_part": 30, "operands": 3, "operations": 4},
    {"max_part": 50, "operands": 4, "operations": 4},
)


def format_complex(real: int, imag: int) -> str:
    """``3 - 4i``, ``-i``, ``5``, ``2i``, ``0``."""
    if imag == 0:
        return str(real)
    size = abs(imag)
    body = "i" if size == 1 else f"{size}i"
    if real == 0:
        return f"-{body}" if imag < 0 else body
    return f"{real} {'-' if imag < 0 else '+'} {body}"


def _part(config: Config, rng: random.Random, *, nonzero: bool = False) -> tuple[int, int]:
    """(real, imaginary) drawn as two ``rng.randint(-max_part, max_part)`` (draws inline)."""
    span = 2 * config.max_part + 1
    low = -config.max_part
    bits = span.bit_length()
    getrandbits = rng.getrandbits
    while True:
        real = getrandbits(bits)
        while real >= span:
            real = getrandbits(bits)
        imag = getrandbits(bits)
        while imag >= span:
            imag = getrandbits(bits)
        if imag + low != 0 and (real + low != 0 or not nonzero):
            return real + low, imag + low


def generate(config: Config, rng: random.Random) -> Problem:
    # Gaussian integers as int pairs: the same values ``complex`` arithmetic gave (every
    # part stays far below 2**53, where floats are exact), without float round trips.
    ops = _OPERATIONS[: config.operations]
    real, imag = _part(config, rng, nonzero=True)
    text = f"({format_complex(real, imag)})"
    compound = False
    for _ in range(config.operands - 1):
        op = rng.choice(ops)
        if op == "/":
            # value / w must stay a Gaussian integer: pick the quotient, rebuild the dividend.
            w_real, w_imag = _part(config, rng, nonzero=True)
            q_real, q_imag = _part(config, rng)
            dividend = format_complex(q_real * w_real - q_imag * w_imag, q_real * w_imag + q_imag * w_real)
            # Only a fresh exact division is added: expr + dividend / w keeps integer parts.
            text = f"{text} + ({dividend}) / ({format_complex(w_real, w_imag)})"
            real, imag = real + q_real, imag + q_imag
            compound = True
            continue
        w_real, w_imag = _part(config, rng)
        if op == "*" and compound:
            text = f"({text})"  # multiply the whole running expression, not its last operand
        text = f"{text} {op} ({format_complex(w_real, w_imag)})"
        if op == "+":
            real, imag = real + w_real, imag + w_imag
        elif op == "-":
            real, imag = real - w_real, imag - w_imag
        else:
            real, imag = real * w_real - imag * w_imag, real * w_imag + imag * w_real
        compound = True
    question = (
        f"Compute {text}, where i is the imaginary unit (i^2 = -1).\n"
        "Give the result in the form a + bi with integers a and b (for example 3 - 4i, or just 5 or -2i)."
    )
    return Problem(question, format_complex(real, imag), {"real": real, "imag": imag})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the answer, read as ``a + b i``, is the value (any order, ``*i``, ``j``)."""
    try:
        meta = item.get("metadata") or {}
        want = {0: Fraction(int(meta["real"])), 1: Fraction(int(meta["imag"]))}
        text = extract_answer(answer_text).replace("j", "i").strip()
        if text.startswith("(") and text.endswith(")") and "(" not in text[1:-1]:
            text = text[1:-1]
        got = parse_polynomial(text, "i")
        if got is None or any(power > 1 for power in got):
            return 0.0
        return 1.0 if {p: got.get(p, Fraction(0)) for p in (0, 1)} == want else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """The conjugate (when different) and the real part alone."""
    real, imag = int(item["metadata"]["real"]), int(item["metadata"]["imag"])
    out = [format_complex(real, imag + 1), format_complex(real, 0) if imag else format_complex(real, 1)]
    if imag:
        out.append(format_complex(real, -imag))
    return out


FAMILY = Family(
    name=NAME,
    description="Exact complex arithmetic with integer parts (a + bi), divisions built to stay exact.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:complex_arithmetic",
)
