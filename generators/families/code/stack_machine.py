"""The final stack of a small stack-machine program.

Tests exact tracking of a data structure through a sequence of operations whose operand
order matters (``SUB`` computes second-from-top minus top). Harder levels run longer
programs, unlock the stack-shuffling instructions (``SWAP``, ``OVER``, ``ROT``, ``POP``)
and remainder and negation, and leave more values on the stack. Programs are drawn so that
no instruction underflows; the family's own interpreter gives the gold. The answer is the
whole stack from bottom to top, compared as an ordered list. ``x x SUB`` is drawn as ``ADD``
and final stacks holding a 0 are redrawn: both made "0" the answer of an eighth of the items.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "stack_machine"

_ARITY = {
    "PUSH": 0,
    "ADD": 2,
    "SUB": 2,
    "MUL": 2,
    "DUP": 1,
    "SWAP": 2,
    "OVER": 2,
    "POP": 1,
    "NEG": 1,
    "MOD": 2,
    "ROT": 3,
}
_TIERS = (("PUSH", "ADD", "SUB", "MUL", "DUP"), ("SWAP", "OVER", "POP"), ("NEG", "MOD", "ROT"))
_HELP = {
    "PUSH": "PUSH k: push the number k",
    "ADD": "ADD: pop b, pop a, push a + b",
    "SUB": "SUB: pop b, pop a, push a - b",
    "MUL": "MUL: pop b, pop a, push a * b",
    "DUP": "DUP: push a copy of the top value",
    "SWAP": "SWAP: exchange the top two values",
    "OVER": "OVER: push a copy of the second value from the top",
    "POP": "POP: discard the top value",
    "NEG": "NEG: replace the top value x by -x",
    "MOD": "MOD: pop b, pop a, push a mod b (the remainder with the sign of b, as in Python)",
    "ROT": "ROT: move the third value from the top to the top (a b c becomes b c a)",
}
_LIMIT = 10**6
_MAX_TRIES = 100


@dataclass(frozen=True)
class Config(Knobs):
    length: int = 6
    tiers: int = 1
    """Instruction tiers unlocked: 1 arithmetic and DUP, 2 adds SWAP/OVER/POP, 3 adds NEG/MOD/ROT."""
    max_push: int = 9
    max_final: int = 2
    """Most values left on the stack at the end."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "length": (2, 40),
        "tiers": (1, len(_TIERS)),
        "max_push": (2, 100),
        "max_final": (1, 6),
    }


LEVELS = (
    {"length": 6, "tiers": 1, "max_push": 9, "max_final": 2},
    {"length": 8, "tiers": 2, "max_push": 9, "max_final": 2},
    {"length": 10, "tiers": 2, "max_push": 12, "max_final": 3},
    {"length": 12, "tiers": 3, "max_push": 15, "max_final": 3},
    {"length": 15, "tiers": 3, "max_push": 20, "max_final": 4},
    {"length": 18, "tiers": 3, "max_push": 20, "max_final": 4},
)


def step(stack: list[int], op: str, arg: int = 0) -> None:
    """Apply one instruction in place; ``ValueError`` on underflow or division by zero."""
    if len(stack) < _ARITY[op]:
        raise ValueError(f"{op} on a stack of {len(stack)}")
    if op == "PUSH":
        stack.append(arg)
    elif op in ("ADD", "SUB", "MUL", "MOD"):
        b, a = stack.pop(), stack.pop()
        if op == "MOD" and b == 0:
            raise ValueError("MOD by zero")
        stack.append(a + b if op == "ADD" else a - b if op == "SUB" else a * b if op == "MUL" else a % b)
    elif op == "DUP":
        stack.append(stack[-1])
    elif op == "SWAP":
        stack[-1], stack[-2] = stack[-2], stack[-1]
    elif op == "OVER":
        stack.append(stack[-2])
    elif op == "POP":
        stack.pop()
    elif op == "NEG":
        stack[-1] = -stack[-1]
    else:  # ROT
        stack.append(stack.pop(-3))


def _draw(config: Config, rng: random.Random) -> list[tuple[str, int]] | None:
    ops = [op for tier in _TIERS[: config.tiers] for op in tier]
    stack: list[int] = []
    program: list[tuple[str, int]] = []
    for position in range(config.length):
        left = config.length - position
        # Leave room to bring the stack down to max_final with binary operations.
        must_reduce = len(stack) - 1 >= left
        choices = [op for op in ops if _ARITY[op] <= len(stack)]
        if must_reduce:
            choices = [op for op in choices if op in ("ADD", "SUB", "MUL", "MOD", "POP")]
        if len(stack) >= 5:
            choices = [op for op in choices if op not in ("PUSH", "DUP", "OVER")]
        op = rng.choice(choices)
        if op == "MUL" and abs(stack[-1] * stack[-2]) > 1000:
            op = "ADD"
        if op == "SUB" and stack[-1] == stack[-2]:
            op = "ADD"  # x - x = 0 made "0" the most common answer
        arg = rng.randint(1, config.max_push) if op == "PUSH" else 0
        if op == "MOD" and stack[-1] <= 0:
            stack.append(rng.randint(2, 9))
            program.append(("PUSH", stack[-1]))
        try:
            step(stack, op, arg)
        except ValueError:
            return None
        program.append((op, arg))
    if not 1 <= len(stack) <= config.max_final or any(abs(value) > _LIMIT for value in stack) or 0 in stack:
        return None
    return program


def generate(config: Config, rng: random.Random) -> Problem:
    for _ in range(_MAX_TRIES):
        program = _draw(config, rng)
        if program is not None:
            break
    else:
        raise ValueError("stack_machine: no program within the limits")
    stack: list[int] = []
    for op, arg in program:
        step(stack, op, arg)
    used = sorted({op for op, _ in program}, key=list(_ARITY).index)
    listing = "\n".join(f"{op} {arg}" if op == "PUSH" else op for op, arg in program)
    question = (
        "A stack machine starts with an empty stack and runs the program below, one instruction per line.\n"
        + "\n".join(f"- {_HELP[op]}" for op in used)
        + f"\n\n{listing}\n\n"
        "What is on the stack at the end? Answer with the values from the bottom of the stack to the top, "
        "separated by commas."
    )
    return Problem(question, ", ".join(map(str, stack)), {"program": [list(pair) for pair in program]})


FAMILY = Family(
    name=NAME,
    description="The final stack, bottom to top, after a PUSH/ADD/SUB/MUL/SWAP/OVER/ROT... program.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
)
