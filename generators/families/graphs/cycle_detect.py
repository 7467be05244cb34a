"""Find a directed cycle in a graph given as an edge list.

The graph is a random DAG (edges only go forward in a hidden order) plus one planted
cycle of three or more nodes, so a cycle always exists but is hidden among many edges
that almost close one. Node numbers are shuffled against the hidden order. Harder levels
use more nodes, denser edges and longer planted cycles.

Any directed cycle is right, so the scorer replays the answer on the edge list: every
step must be an edge, the last node must lead back to the first, and no node may repeat
(writing the first node again at the end is optional). A path that does not close, a
cycle walked backwards, or two cycles run together score 0.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer
from generators.base import Family, Knobs, Problem

NAME = "cycle_detect"

_ALLOWED = re.compile(r"[\d\s,>→\-–]*")


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"nodes": (4, 60), "edge_factor": (0.5, 4.0), "min_cycle": (3, 20), "max_cycle": (3, 20)}

    nodes: int = 6
    edge_factor: float = 1.0
    """DAG edges per node."""
    min_cycle: int = 3
    max_cycle: int = 3

    def check(self) -> None:
        if self.min_cycle > self.max_cycle:
            raise ValueError("Config.min_cycle must be <= max_cycle")
        if self.max_cycle > self.nodes:
            raise ValueError("Config.max_cycle must be <= nodes")


LEVELS = (
    {"nodes": 6, "edge_factor": 1.0, "min_cycle": 3, "max_cycle": 3},
    {"nodes": 8, "edge_factor": 1.2, "min_cycle": 3, "max_cycle": 4},
    {"nodes": 10, "edge_factor": 1.5, "min_cycle": 3, "max_cycle": 5},
    {"nodes": 13, "edge_factor": 1.8, "min_cycle": 4, "max_cycle": 6},
    {"nodes": 16, "edge_factor": 2.0, "min_cycle": 4, "max_cycle": 7},
    {"nodes": 20, "edge_factor": 2.2, "min_cycle": 5, "max_cycle": 8},
)


def generate(config: Config, rng: random.Random) -> Problem:
    labels = rng.sample(range(1, 10 * config.nodes), config.nodes)  # labels[i]: node at hidden position i
    edges: set[tuple[int, int]] = set()
    target = round(config.edge_factor * config.nodes)
    pairs = config.nodes * (config.nodes - 1) // 2
    while len(edges) < min(target, pairs):
        a, b = sorted(rng.sample(range(config.nodes), 2))
        edges.add((labels[a], labels[b]))
    length = rng.randint(config.min_cycle, config.max_cycle)
    positions = sorted(rng.sample(range(config.nodes), length))
    cycle = [labels[p] for p in positions]
    edges.update(itertools.pairwise(cycle))
    edges.add((cycle[-1], cycle[0]))  # the one backward edge that closes the cycle
    listed = sorted(edges)
    rng.shuffle(listed)
    question = (
        "A directed graph has the edges below (a -> b is an edge from a to b):\n"
        + "\n".join(f"{a} -> {b}" for a, b in listed)
        + "\n\nFind a directed cycle: a sequence of distinct nodes where each node has an edge to the next and the "
        "last node has an edge back to the first. Write it as the node numbers joined by ->, for example "
        "4 -> 9 -> 2 (repeating the first node at the end is optional). Any cycle is accepted."
    )
    rotation = rng.randrange(length)
    gold = cycle[rotation:] + cycle[:rotation]
    return Problem(question, " -> ".join(map(str, gold)), {"edges": [list(edge) for edge in sorted(edges)]})


def parse_cycle(text: str, limit: int) -> list[int] | None:
    """Node numbers of a ``4 -> 9 -> 2`` / ``4, 9, 2`` answer (closing repeat dropped), or None."""
    if len(text) > 8 * limit + 32 or not _ALLOWED.fullmatch(text):
        return None
    nodes = [int(token) for token in re.findall(r"\d+", text)]
    if len(nodes) > 1 and nodes[0] == nodes[-1]:
        nodes.pop()
    return nodes


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 for any directed cycle of the graph (distinct nodes, every step and the closing step an edge)."""
    try:
        edges = {(int(a), int(b)) for a, b in (item.get("metadata") or {})["edges"]}
        nodes = parse_cycle(extract_answer(answer_text), len(edges) + 1)
        if not nodes or len(nodes) < 2 or len(set(nodes)) != len(nodes):
            return 0.0
        steps = zip(nodes, nodes[1:] + nodes[:1])
        return 1.0 if all(step in edges for step in steps) else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """The gold cycle walked backwards, and with its first node repeated in the middle."""
    nodes = [int(v) for v in re.findall(r"\d+", str(item["answer"]))]
    return [" -> ".join(map(str, reversed(nodes))), " -> ".join(map(str, [*nodes, nodes[0], *nodes]))]


FAMILY = Family(
    name=NAME,
    description="Find any directed cycle in a DAG with one planted cycle (answer replayed on the edges).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
)
