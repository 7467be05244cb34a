"""Evaluate a boolean circuit given as a netlist of gates, for several input assignments.

Tests step-by-step propagation of truth values through AND, OR, XOR, NAND, NOR and NOT
gates, where each gate may feed later ones. Harder levels use more inputs and gates (longer
chains of dependencies) and more input rows to evaluate. The answer is the output bit of
every row in order; rows are picked so that the output bits are uniformly random (a
circuit with a constant output is redrawn), so no constant bit string pays.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "circuit_logic"

_INPUTS = "ABCDEF"
_BINARY = {
    "AND": lambda a, b: a & b,
    "OR": lambda a, b: a | b,
    "XOR": lambda a, b: a ^ b,
    "NAND": lambda a, b: 1 - (a & b),
    "NOR": lambda a, b: 1 - (a | b),
}
_MAX_TRIES = 100


@dataclass(frozen=True)
class Config(Knobs):
    inputs: int = 2
    gates: int = 3
    rows: int = 4
    negated_gates: bool = False
    """Unlock NAND and NOR besides AND, OR, XOR and NOT."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "inputs": (2, len(_INPUTS)),
        "gates": (1, 20),
        "rows": (4, 8),
    }

    def check(self) -> None:
        if not isinstance(self.negated_gates, bool):
            raise ValueError(f"Config.negated_gates must be a bool, got {self.negated_gates!r}")


LEVELS = (
    {"inputs": 3, "gates": 3, "rows": 5},
    {"inputs": 3, "gates": 4, "rows": 5},
    {"inputs": 3, "gates": 5, "rows": 6, "negated_gates": True},
    {"inputs": 4, "gates": 7, "rows": 6, "negated_gates": True},
    {"inputs": 5, "gates": 9, "rows": 7, "negated_gates": True},
    {"inputs": 6, "gates": 12, "rows": 8, "negated_gates": True},
)

Gate = tuple[str, str, str, str]
"""(name, kind, first operand, second operand or "" for NOT)."""


def evaluate(gates: list[Gate], values: Mapping[str, int]) -> int:
    """The last gate's output for the input ``values``."""
    known = dict(values)
    for name, kind, a, b in gates:
        known[name] = 1 - known[a] if kind == "NOT" else _BINARY[kind](known[a], known[b])
    return known[gates[-1][0]]


def _circuit(config: Config, rng: random.Random) -> list[Gate]:
    kinds = ["AND", "OR", "XOR", "NOT"] + (["NAND", "NOR"] if config.negated_gates else [])
    signals = list(_INPUTS[: config.inputs])
    unused = list(signals)
    gates: list[Gate] = []
    for index in range(config.gates):
        name = f"G{index + 1}" if index < config.gates - 1 else "OUT"
        kind = rng.choice(kinds)
        arity = 1 if kind == "NOT" else 2
        operands: list[str] = []
        for _ in range(arity):
            pool = [s for s in unused if s not in operands] or [s for s in signals if s not in operands]
            choice = rng.choice(pool)
            operands.append(choice)
            if choice in unused:
                unused.remove(choice)
        gates.append((name, kind, operands[0], operands[1] if arity == 2 else ""))
        signals.append(name)
        unused.append(name)
    return gates


def _truth_table(gates: list[Gate], names: str) -> int:
    """OUT for every input row at once: bit ``r`` is OUT on row ``r`` (row bits are the inputs,
    first input most significant), computed with one integer operation per gate."""
    rows = 1 << len(names)
    full = (1 << rows) - 1
    known = {}
    for i, name in enumerate(names):
        shift = len(names) - 1 - i
        known[name] = sum(1 << r for r in range(rows) if r >> shift & 1)
    for name, kind, a, b in gates:
        x, y = known[a], known[b] if b else 0
        wide = {"NOT": ~x, "AND": x & y, "OR": x | y, "XOR": x ^ y, "NAND": ~(x & y), "NOR": ~(x | y)}[kind]
        known[name] = full & wide
    return known[gates[-1][0]]


def generate(config: Config, rng: random.Random) -> Problem:
    names = _INPUTS[: config.inputs]
    full = (1 << (1 << len(names))) - 1
    for _ in range(_MAX_TRIES):
        gates = _circuit(config, rng)
        outputs = _truth_table(gates, names)
        if 0 < outputs < full:
            break
    else:
        raise ValueError("circuit_logic: only constant circuits drawn")
    by_output = {bit: [r for r in range(1 << len(names)) if (outputs >> r & 1) == bit] for bit in (0, 1)}
    bits = [rng.randint(0, 1) for _ in range(config.rows)]
    chosen: list[int] = []
    for bit in bits:
        fresh = [r for r in by_output[bit] if r not in chosen]
        chosen.append(rng.choice(fresh or by_output[bit]))
    rows = [tuple(r >> (len(names) - 1 - i) & 1 for i in range(len(names))) for r in chosen]
    if [evaluate(gates, dict(zip(names, row))) for row in rows] != bits:
        raise ValueError("circuit_logic: truth table and gate-by-gate evaluation disagree")
    netlist = "\n".join(
        f"{name} = NOT {a}" if kind == "NOT" else f"{name} = {a} {kind} {b}" for name, kind, a, b in gates
    )
    listing = "\n".join(f"{i + 1}. " + ", ".join(f"{n}={v}" for n, v in zip(names, row)) for i, row in enumerate(rows))
    question = (
        f"A circuit has inputs {', '.join(names)} (each 0 or 1) and these gates, evaluated top to bottom "
        "(NAND and NOR are NOT AND and NOT OR; XOR is 1 when exactly one operand is 1):\n"
        f"{netlist}\n\nWhat is OUT for each of these input rows?\n{listing}\n\n"
        "Answer with the OUT values (0 or 1) of the rows in order, separated by commas."
    )
    meta = {"gates": [list(gate) for gate in gates], "rows": [list(row) for row in rows]}
    return Problem(question, ", ".join(map(str, bits)), meta)


FAMILY = Family(
    name=NAME,
    description="OUT of a boolean gate netlist (AND/OR/XOR/NAND/NOR/NOT) for several input rows.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
    counterpart="reasoning_gym:circuit_logic",
)
