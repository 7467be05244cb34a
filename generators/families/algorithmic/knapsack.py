"""0/1 knapsack: the best total value that fits in a capacity.

Tests combinatorial optimisation where the obvious greedy rule (take items by value per
unit of weight) is wrong. Harder levels add items and larger numbers and, with
``greedy_trap``, only keep instances where the greedy answer is strictly below the
optimum, so a plausible heuristic answer scores zero.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from generators.base import Family, Knobs, Problem

NAME = "knapsack"

_MAX_TRIES = 200


@dataclass(frozen=True)
class Config(Knobs):
    num_items: int = 4
    max_weight: int = 10
    max_value: int = 20
    capacity_fraction: float = 0.5
    """Capacity as a fraction of the total weight of all items."""
    greedy_trap: bool = False

    RANGES: ClassVar = {
        "num_items": (2, 30),
        "max_weight": (2, 200),
        "max_value": (2, 1000),
        "capacity_fraction": (0.1, 0.9),
    }


LEVELS = (
    {"num_items": 3, "max_weight": 8, "max_value": 40},
    {"num_items": 5, "max_weight": 12, "max_value": 30},
    {"num_items": 7, "max_weight": 20, "max_value": 50, "greedy_trap": True},
    {"num_items": 10, "max_weight": 30, "max_value": 80, "capacity_fraction": 0.4, "greedy_trap": True},
    {"num_items": 14, "max_weight": 50, "max_value": 150, "capacity_fraction": 0.4, "greedy_trap": True},
    {"num_items": 20, "max_weight": 80, "max_value": 300, "capacity_fraction": 0.35, "greedy_trap": True},
)


def best_value(weights: list[int], values: list[int], capacity: int) -> int:
    """Dynamic programming over capacities, exact for integer weights.

    One vectorised step per item (``numpy``): the right-hand side reads the table before
    the item, so each item is taken at most once, as in the scalar loop it replaced
    (:func:`best_value_loop`, which the tests compare it with).
    """
    table = np.zeros(capacity + 1, dtype=np.int64)
    for w, v in zip(weights, values, strict=True):
        if w <= capacity:
            np.maximum(table[w:], table[:-w] + v if w else table + v, out=table[w:])
    return int(table[capacity])


def best_value_loop(weights: list[int], values: list[int], capacity: int) -> int:
    """The scalar form of :func:`best_value`, kept as its reference."""
    table = [0] * (capacity + 1)
    for w, v in zip(weights, values):
        for c in range(capacity, w - 1, -1):
            candidate = table[c - w] + v
            if candidate > table[c]:
                table[c] = candidate
    return table[capacity]


def greedy_value(weights: list[int], values: list[int], capacity: int) -> int:
    """Take items by value density while they fit: the plausible wrong answer."""
    order = sorted(range(len(weights)), key=lambda i: (-values[i] / weights[i], i))
    total, room = 0, capacity
    for i in order:
        if weights[i] <= room:
            room -= weights[i]
            total += values[i]
    return total


def generate(config: Config, rng: random.Random) -> Problem:
    for _ in range(_MAX_TRIES):
        weights = [rng.randint(1, config.max_weight) for _ in range(config.num_items)]
        values = [rng.randint(1, config.max_value) for _ in range(config.num_items)]
        capacity = max(1, round(sum(weights) * config.capacity_fraction))
        optimum = best_value(weights, values, capacity)
        greedy = greedy_value(weights, values, capacity)
        if not config.greedy_trap or greedy < optimum:
            break
    lines = [f"- item {i + 1}: weight {w}, value {v}" for i, (w, v) in enumerate(zip(weights, values))]
    question = (
        f"You have a knapsack with capacity {capacity}. Each item below can be taken at most "
        "once:\n" + "\n".join(lines) + "\n"
        "What is the largest total value you can carry without the total weight exceeding the "
        "capacity? Answer with the total value as an integer."
    )
    return Problem(
        question=question,
        answer=str(optimum),
        extra={"weights": weights, "values": values, "capacity": capacity, "greedy": greedy},
    )


FAMILY = Family(
    name=NAME,
    description="0/1 knapsack: maximal total value within a weight capacity.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
    notes="With greedy_trap the value-density greedy answer is always strictly suboptimal "
    "(it falls back to a non-trap instance after 200 draws; not seen in 2,000 draws per level).",
)
