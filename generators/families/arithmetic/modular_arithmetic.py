"""Modular arithmetic: sums, products, powers and inverses modulo m.

Powers use Python's three-argument ``pow``, so even 10^18 exponents cost microseconds;
inverses are only asked when they exist (the base is drawn coprime to the modulus).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "modular_arithmetic"

_OPS = ("add", "mul", "pow", "inv")


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"max_modulus": (2, 10**12), "max_operand": (2, 10**18), "max_exponent": (2, 10**18)}

    max_modulus: int = 12
    max_operand: int = 100
    max_exponent: int = 10
    operations: str = "add,mul"

    def check(self) -> None:
        ops = self.operations.split(",") if isinstance(self.operations, str) else []
        if not ops or any(op not in _OPS for op in ops) or len(set(ops)) != len(ops):
            raise ValueError(
                f"Config.operations must be distinct names from {', '.join(_OPS)}, got {self.operations!r}"
            )


LEVELS = (
    {"max_modulus": 40, "max_operand": 100, "operations": "add,mul"},
    {"max_modulus": 60, "max_operand": 1000, "operations": "add,mul"},
    {"max_modulus": 100, "max_operand": 1000, "max_exponent": 20, "operations": "mul,pow"},
    {"max_modulus": 200, "max_operand": 10**5, "max_exponent": 1000, "operations": "pow,inv"},
    {"max_modulus": 10**4, "max_operand": 10**9, "max_exponent": 10**6, "operations": "pow,inv"},
    {"max_modulus": 10**9, "max_operand": 10**15, "max_exponent": 10**18, "operations": "mul,pow,inv"},
)


def generate(config: Config, rng: random.Random) -> Problem:
    op = rng.choice(config.operations.split(","))
    lowest = 3 if op == "inv" else 2
    # Moduli from the upper half of the range: a small modulus makes 0 and 1 common answers.
    modulus = rng.randint(max(lowest, config.max_modulus // 2), max(lowest, config.max_modulus))
    if op == "inv":
        a = rng.randint(2, max(2, config.max_operand))
        while math.gcd(a, modulus) != 1:
            a += 1
        answer = pow(a, -1, modulus)
        question = (
            f"Find the modular inverse of {a} modulo {modulus}: the integer x with 0 <= x < {modulus} "
            f"and {a} * x ≡ 1 (mod {modulus})."
        )
    else:
        a = rng.randint(1, config.max_operand)
        if op == "pow":
            b = rng.randint(2, config.max_exponent)
            answer = pow(a, b, modulus)
            expression = f"{a}^{b}"
        else:
            b = rng.randint(1, config.max_operand)
            answer = (a + b) % modulus if op == "add" else (a * b) % modulus
            expression = f"({a} {'+' if op == 'add' else '*'} {b})"
        question = f"Compute {expression} mod {modulus}, as an integer between 0 and {modulus - 1}."
    return Problem(question + " Give a single integer.", str(answer), {"operation": op, "modulus": modulus})


FAMILY = Family(
    name=NAME,
    description="Sums, products, powers and inverses modulo m.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
)
