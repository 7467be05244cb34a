"""Total weight of a minimum spanning tree.

Tests Kruskal/Prim reasoning over a weighted edge list. Harder levels add nodes and
edges, allow repeated weights, and with ``cycle_trap`` keep only graphs whose lightest
``n - 1`` edges contain a cycle, so "add up the smallest weights" scores zero.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "spanning_tree_weight"

_MAX_TRIES = 200


@dataclass(frozen=True)
class Config(Knobs):
    num_nodes: int = 4
    extra_edges: int = 2
    max_weight: int = 9
    cycle_trap: bool = False

    RANGES: ClassVar = {"num_nodes": (3, 26), "extra_edges": (1, 100), "max_weight": (2, 100)}

    def check(self) -> None:
        if self.num_nodes - 1 + self.extra_edges > self.num_nodes * (self.num_nodes - 1) // 2:
            raise ValueError("too many edges for the number of nodes")


LEVELS = (
    {"num_nodes": 4, "extra_edges": 2, "max_weight": 25},
    {"num_nodes": 5, "extra_edges": 3, "max_weight": 25, "cycle_trap": True},
    {"num_nodes": 7, "extra_edges": 5, "max_weight": 15, "cycle_trap": True},
    {"num_nodes": 9, "extra_edges": 8, "max_weight": 20, "cycle_trap": True},
    {"num_nodes": 12, "extra_edges": 12, "max_weight": 25, "cycle_trap": True},
    {"num_nodes": 16, "extra_edges": 18, "max_weight": 30, "cycle_trap": True},
)


def mst_weight(n: int, edges: list[tuple[int, int, int]]) -> int:
    """Kruskal with union-find; the graph must be connected."""
    parent = list(range(n))

    def find(v: int) -> int:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    total = used = 0
    for a, b, w in sorted(edges, key=lambda e: e[2]):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
            total += w
            used += 1
    if used != n - 1:
        raise ValueError("graph is not connected")
    return total


def generate(config: Config, rng: random.Random) -> Problem:
    n = config.num_nodes
    for _ in range(_MAX_TRIES):
        order = list(range(n))
        rng.shuffle(order)
        pairs: dict[tuple[int, int], int] = {}
        for i in range(1, n):
            a, b = sorted((order[rng.randrange(i)], order[i]))
            pairs[(a, b)] = rng.randint(1, config.max_weight)
        while len(pairs) < n - 1 + config.extra_edges:
            a, b = sorted(rng.sample(range(n), 2))
            if (a, b) not in pairs:
                pairs[(a, b)] = rng.randint(1, config.max_weight)
        edges = [(a, b, w) for (a, b), w in pairs.items()]
        weight = mst_weight(n, edges)
        naive = sum(sorted(w for _, _, w in edges)[: n - 1])
        if not config.cycle_trap or naive != weight:
            break
    names = string.ascii_uppercase
    rng.shuffle(edges)
    lines = [
        f"{names[a]} - {names[b]}: {w}" if rng.random() < 0.5 else f"{names[b]} - {names[a]}: {w}" for a, b, w in edges
    ]
    question = (
        f"Towns {', '.join(names[:n])} can be linked by building the roads below (cost after the "
        "colon):\n" + "\n".join(lines) + "\n"
        "What is the minimum total cost of roads that connects all towns (a minimum spanning "
        "tree)? Answer with the total cost as an integer."
    )
    return Problem(
        question=question,
        answer=str(weight),
        extra={"edges": [[names[a], names[b], w] for a, b, w in edges], "naive": naive},
    )


FAMILY = Family(
    name=NAME,
    description="Weight of a minimum spanning tree of a random connected weighted graph.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
)
