"""Evaluate an expression over hexadecimal integers with arithmetic and bitwise operators.

Operands are hexadecimal literals; operators are ``+ - *`` and, at harder levels, shifts
``<< >>`` and bitwise ``& | ^``. The expression is fully parenthesised, so precedence is
never in question; integers are unbounded and signed. Bitwise operators and right shifts
are only applied to non-negative values, where every convention agrees. Harder levels
nest deeper with wider literals.

The answer is asked in hexadecimal (``0x1f``, ``-0x1f``); the same integer in decimal is
accepted too, as it is unambiguous. Hex without its ``0x`` prefix is not accepted, since
``10`` would read as ten.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer, parse_number
from generators.base import Family, Knobs, Problem

NAME = "bitwise_arithmetic"

_HEX = re.compile(r"(?P<sign>[+-]?)0[xX](?P<digits>[0-9a-fA-F]{1,400})")
_ARITH = ("+", "-", "*")
_BITWISE = ("<<", ">>", "&", "|", "^")


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"depth": (1, 5), "hex_digits": (1, 8), "bitwise": (0.0, 1.0)}

    depth: int = 1
    """Height of the expression tree: 1 is ``(a op b)``."""
    hex_digits: int = 2
    bitwise: float = 0.0
    """Chance that an operator is a shift or bitwise one (where it applies)."""


LEVELS = (
    {"depth": 1, "hex_digits": 2, "bitwise": 0.5},
    {"depth": 1, "hex_digits": 3, "bitwise": 0.6},
    {"depth": 2, "hex_digits": 3, "bitwise": 0.6},
    {"depth": 2, "hex_digits": 4, "bitwise": 0.6},
    {"depth": 3, "hex_digits": 4, "bitwise": 0.6},
    {"depth": 3, "hex_digits": 4, "bitwise": 0.7},
)


def _hex(value: int) -> str:
    return f"-0x{-value:x}" if value < 0 else f"0x{value:x}"


def _build(depth: int, config: Config, rng: random.Random) -> tuple[int, str]:
    if depth == 0:
        value = rng.randint(1, 16**config.hex_digits - 1)
        return value, _hex(value)
    left_value, left = _build(depth - 1, config, rng)
    if rng.random() < config.bitwise:
        op = rng.choice(_BITWISE)
        if op in ("<<", ">>"):
            amount = rng.randint(1, 4)
            if op == ">>" and left_value < 0:
                op = "<<"
            value = left_value << amount if op == "<<" else left_value >> amount
            return value, f"({left} {op} 0x{amount:x})"
        right_value, right = _build(depth - 1, config, rng)
        if left_value >= 0 and right_value >= 0:
            value = (
                left_value & right_value
                if op == "&"
                else left_value | right_value
                if op == "|"
                else left_value ^ right_value
            )
            return value, f"({left} {op} {right})"
    else:
        right_value, right = _build(depth - 1, config, rng)
    op = rng.choice(_ARITH)
    value = (
        left_value + right_value if op == "+" else left_value - right_value if op == "-" else left_value * right_value
    )
    return value, f"({left} {op} {right})"


def generate(config: Config, rng: random.Random) -> Problem:
    value, expression = _build(config.depth, config, rng)
    question = (
        f"Evaluate {expression}.\nAll numbers are hexadecimal; integers are signed and of unlimited size; "
        "<< and >> are left and right shifts, & | ^ are bitwise AND, OR and XOR.\n"
        "Give the result as a hexadecimal number with the 0x prefix, with a minus sign if it is negative "
        "(for example -0x3f, not a two's-complement form)."
    )
    return Problem(question, _hex(value), {"value": str(value)})


def parse_integer(text: str) -> int | None:
    """``0x1f`` / ``-0X1F`` / ``31`` -> the integer; anything else (or several numbers) -> None."""
    text = text.strip()
    match = _HEX.fullmatch(text)
    if match:
        magnitude = int(match.group("digits"), 16)
        return -magnitude if match.group("sign") == "-" else magnitude
    value = parse_number(text)
    return int(value) if value is not None and value.denominator == 1 else None


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the answer is the value, in hexadecimal with 0x or in decimal."""
    try:
        want = int((item.get("metadata") or {})["value"])
        return 1.0 if parse_integer(extract_answer(answer_text)) == want else 0.0
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    description="Signed hexadecimal expression with + - * << >> & | ^, answered in hex (0x...).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:bitwise_arithmetic",
)
