"""What a Brainfuck program prints.

Tests exact simulation of a minimal machine: a tape of byte cells, a pointer, and loops that
multiply (``++++++++[>++++++++<-]>+`` builds 65 as 8 x 8 + 1). Harder levels print longer
texts (several words, capitals, digits), build each character in more varied ways (fresh
multiplication loops, reuse of the previous character with a difference, scratch cells
cleared with ``[-]``) and scatter more cells over the tape, so the reader has to track
more state. The family generates the program for a chosen text and then runs it with its
own interpreter (8-bit wrapping cells, a step budget) to produce the gold, which must equal
the chosen text. The answer is the printed text, compared exactly.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._words import WORDS

NAME = "bf_output"

_MAX_STEPS = 200_000
_TAPE = 64
_DIGITS = "0123456789"


@dataclass(frozen=True)
class Config(Knobs):
    words: int = 1
    """Words printed, separated by single spaces."""
    max_word_length: int = 4
    capitals: float = 0.0
    """Chance that a word is capitalised."""
    digits: int = 0
    """Digits appended to the last word."""
    variety: float = 0.0
    """Chance that a character is built a harder way (difference from the last, scratch cells)."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "words": (1, 5),
        "max_word_length": (3, 8),
        "capitals": (0.0, 1.0),
        "digits": (0, 4),
        "variety": (0.0, 1.0),
    }


LEVELS = (
    {"words": 1, "max_word_length": 4},
    {"words": 1, "max_word_length": 5, "variety": 0.2},
    {"words": 1, "max_word_length": 6, "capitals": 0.5, "digits": 1, "variety": 0.4},
    {"words": 2, "max_word_length": 6, "capitals": 0.5, "digits": 1, "variety": 0.5},
    {"words": 2, "max_word_length": 7, "capitals": 0.5, "digits": 2, "variety": 0.6},
    {"words": 3, "max_word_length": 8, "capitals": 0.5, "digits": 2, "variety": 0.7},
)


class BrainfuckError(ValueError):
    """Unbalanced brackets or a program that runs out of steps."""


def _fold(body: list[tuple[str, Any]]) -> tuple[int, int, tuple[tuple[int, int], ...]] | None:
    """A loop body of only ``+-<>`` that returns to its start cell and takes 1 from it per
    turn runs exactly (start cell) times: its effect is (lowest offset, highest offset,
    (offset, delta per turn) pairs). None for any other body."""
    offset = low = high = 0
    deltas: dict[int, int] = {}
    for kind, value in body:
        if kind == ">":
            offset += value
            low, high = min(low, offset), max(high, offset)
        elif kind == "+":
            deltas[offset] = deltas.get(offset, 0) + value
        else:
            return None
    if offset != 0 or deltas.get(0) != -1:
        return None
    return low, high, tuple(sorted((k, v) for k, v in deltas.items() if k != 0))


def run(program: str, max_steps: int = _MAX_STEPS) -> str:
    """The output of ``program`` (``,`` reads 0); runs of ``+-<>`` and whole multiply loops
    count as one step each."""
    ops: list[tuple[str, Any]] = []
    stack: list[int] = []
    jumps: dict[int, int] = {}
    for char in program:
        if char in "+-<>":
            delta = 1 if char in "+>" else -1
            kind = "+" if char in "+-" else ">"
            if ops and ops[-1][0] == kind:
                ops[-1] = (kind, ops[-1][1] + delta)
            else:
                ops.append((kind, delta))
        elif char in ".,":
            ops.append((char, 0))
        elif char == "[":
            stack.append(len(ops))
            ops.append(("[", 0))
        elif char == "]":
            if not stack:
                raise BrainfuckError("unbalanced ]")
            start = stack.pop()
            folded = _fold(ops[start + 1 :])
            if folded is not None:  # a multiply loop such as [>+++<-] becomes one step
                del ops[start:]
                ops.append(("*", folded))
                continue
            jumps[start], jumps[len(ops)] = len(ops), start
            ops.append(("]", 0))
    if stack:
        raise BrainfuckError("unbalanced [")
    tape = [0] * _TAPE
    pointer = pc = steps = 0
    out: list[str] = []
    while pc < len(ops):
        steps += 1
        if steps > max_steps:
            raise BrainfuckError("step limit reached")
        kind, value = ops[pc]
        if kind == "+":
            tape[pointer] = (tape[pointer] + value) % 256
        elif kind == ">":
            pointer += value
            if not 0 <= pointer < _TAPE:
                raise BrainfuckError("pointer left the tape")
        elif kind == ".":
            out.append(chr(tape[pointer]))
        elif kind == ",":
            tape[pointer] = 0
        elif kind == "*":
            count = tape[pointer]
            if count:
                low, high, moves = value
                if not (pointer + low >= 0 and pointer + high < _TAPE):
                    raise BrainfuckError("pointer left the tape")
                for offset, delta in moves:
                    tape[pointer + offset] = (tape[pointer + offset] + delta * count) % 256
                tape[pointer] = 0
        elif kind == "[":
            if tape[pointer] == 0:
                pc = jumps[pc]
        elif tape[pointer] != 0:
            pc = jumps[pc]
        pc += 1
    return "".join(out)


def _adjust(delta: int) -> str:
    return "+" * delta if delta >= 0 else "-" * -delta


def _multiply(value: int, rng: random.Random) -> tuple[int, int, int]:
    """``value = a * b + rest`` with a loop counter ``a`` and a small signed ``rest``."""
    a = rng.randint(3, 12)
    b = max(1, round(value / a))
    return a, b, value - a * b


def _build(target: str, variety: float, rng: random.Random) -> str:
    """Code that prints ``target``: each character in cell 1 or a scratch cell, via cell 0 loops."""
    parts: list[str] = []
    current: int | None = None  # value of the output cell (cell 1), None before the first char
    for char in target:
        code = ord(char)
        if current is not None and rng.random() < variety and abs(code - current) <= 12:
            parts.append(_adjust(code - current) + ".")  # reuse: a difference from the last one
        elif current is not None and rng.random() < variety:
            # a loop on the counter cell adds the difference in one go
            a, b, rest = _multiply(abs(code - current), rng)
            step = "+" if code >= current else "-"
            parts.append("<" + "+" * a + "[>" + step * b + "<-]>" + _adjust(rest if step == "+" else -rest) + ".")
        elif rng.random() < variety:
            # a scratch cell further right: clear it, build the character there, print, come back
            hops = rng.randint(1, 3)
            a, b, rest = _multiply(code, rng)
            parts.append(
                ">" * hops
                + "[-]"
                + "<" * (hops + 1)
                + "+" * a
                + "["
                + ">" * (hops + 1)
                + "+" * b
                + "<" * (hops + 1)
                + "-]"
                + ">" * (hops + 1)
                + _adjust(rest)
                + "."
                + "<" * hops
            )
            continue
        else:
            a, b, rest = _multiply(code, rng)
            clear = "" if current is None else "[-]"
            parts.append(clear + "<" + "+" * a + "[>" + "+" * b + "<-]>" + _adjust(rest) + ".")
        current = code
    return ">" + "".join(parts)


@functools.cache
def _pool(max_length: int) -> tuple[str, ...]:
    return tuple(word for word in WORDS if 3 <= len(word) <= max_length)


def _text(config: Config, rng: random.Random) -> str:
    pool = _pool(config.max_word_length)
    words = [rng.choice(pool) for _ in range(config.words)]
    words = [word.capitalize() if rng.random() < config.capitals else word for word in words]
    words[-1] += "".join(rng.choice(_DIGITS) for _ in range(config.digits))
    return " ".join(words)


def generate(config: Config, rng: random.Random) -> Problem:
    target = _text(config, rng)
    program = _build(target, config.variety, rng)
    printed = run(program)
    if printed != target:
        raise ValueError(f"bf_output: program prints {printed!r}, meant {target!r}")
    lines = [program[i : i + 60] for i in range(0, len(program), 60)]
    question = (
        "What does this Brainfuck program print? The tape starts all zero, cells hold bytes that wrap "
        "around (0 - 1 = 255), and '.' prints the cell under the pointer as an ASCII character.\n\n"
        + "\n".join(lines)
        + "\n\nAnswer with the exact printed text."
    )
    return Problem(question, target, {"program": program})


FAMILY = Family(
    name=NAME,
    description="The text a generated Brainfuck program prints (own interpreter, step budget).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    counterpart="reasoning_gym:bf",
)
