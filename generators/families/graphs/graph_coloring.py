"""Find a proper k-colouring of a graph.

Tests constraint satisfaction with backtracking: a colouring is planted so one always
exists, and with ``tight`` the graph needs all k colours, so there is no slack: one node of
each planted colour (the first of its colour) is joined to the other k - 1, a k-clique,
which no k - 1 colours can colour (most such graphs at these densities hold one anyway).
Any valid colouring is accepted; the scorer verifies it against the stored edges and
requires every node coloured exactly once. Harder levels add nodes, colours and edges.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
from generators.base import Family, Knobs, Problem

NAME = "graph_coloring"


@dataclass(frozen=True)
class Config(Knobs):
    num_nodes: int = 5
    num_colors: int = 2
    edge_prob: float = 0.5
    """Chance that a pair of nodes with different planted colours is joined."""
    tight: bool = True
    """Require that fewer than ``num_colors`` colours do not suffice."""

    RANGES: ClassVar = {"num_nodes": (3, 20), "num_colors": (2, 6), "edge_prob": (0.05, 1.0)}

    def check(self) -> None:
        if self.num_colors > self.num_nodes:
            raise ValueError("num_colors cannot exceed num_nodes")


LEVELS = (
    {"num_nodes": 4, "num_colors": 2, "edge_prob": 0.6},
    {"num_nodes": 6, "num_colors": 2, "edge_prob": 0.5},
    {"num_nodes": 7, "num_colors": 3, "edge_prob": 0.5},
    {"num_nodes": 9, "num_colors": 3, "edge_prob": 0.45},
    {"num_nodes": 11, "num_colors": 4, "edge_prob": 0.5},
    {"num_nodes": 14, "num_colors": 4, "edge_prob": 0.45},
)


def colorable(n: int, edges: list[tuple[int, int]], k: int) -> bool:
    """Exhaustive backtracking, highest-degree node first; fine for n <= 20.

    Neighbourhoods and colour classes are bit masks, so a colour is free for a node when
    its class does not meet the node's neighbours (one ``&`` instead of a set per node).
    """
    if k <= 0:
        return n == 0
    degree = [0] * n
    adjacent = [0] * n
    for a, b in edges:
        adjacent[a] |= 1 << b
        adjacent[b] |= 1 << a
        degree[a] += 1
        degree[b] += 1
    return _colorable(n, adjacent, degree, k)


def _colorable(n: int, adjacent: list[int], degree: list[int], k: int) -> bool:
    """:func:`colorable` on neighbour masks and degrees already built (``k >= 1``)."""
    if k < n and _has_clique((1 << n) - 1, k + 1, adjacent):
        return False  # k + 1 nodes all joined need k + 1 colours: no search needed
    order = sorted(range(n), key=lambda v: (-degree[v], v))
    masks = [adjacent[v] for v in order]
    bits = [1 << v for v in order]
    classes = [0] * k

    def place(i: int, used: int) -> bool:
        if i == n:
            return True
        mask, bit = masks[i], bits[i]
        # Symmetry break: a node may open at most one new colour.
        for c in range(min(k, used + 1)):
            if not classes[c] & mask:
                classes[c] |= bit
                if place(i + 1, used if c < used else c + 1):
                    return True
                classes[c] ^= bit
        return False

    return place(0, 0)


def _has_clique(candidates: int, size: int, adjacent: list[int]) -> bool:
    """Whether the nodes in the bit mask ``candidates`` hold ``size`` nodes all joined."""
    if size == 0:
        return True
    while candidates.bit_count() >= size:
        low = candidates & -candidates
        candidates ^= low
        if _has_clique(candidates & adjacent[low.bit_length() - 1], size - 1, adjacent):
            return True
    return False


def is_proper(colouring: Mapping[str, int], nodes: list[str], edges: list[tuple[str, str]], k: int) -> bool:
    if sorted(colouring) != sorted(nodes):
        return False
    if any(not 1 <= c <= k for c in colouring.values()):
        return False
    return all(colouring[a] != colouring[b] for a, b in edges)


_EQUALS = tuple(f"={colour + 1}" for colour in range(6))
"""``=1`` ... ``=6``: a node's text in the answer is its name and one of these (colours < 6)."""


def generate(config: Config, rng: random.Random) -> Problem:
    n, k = config.num_nodes, config.num_colors
    # The draws of ``rng.randrange(k)`` inline.
    getrandbits, uniform, bits = rng.getrandbits, rng.random, k.bit_length()
    edge_prob = config.edge_prob
    planted = list(range(k))
    for _ in range(n - k):
        r = getrandbits(bits)
        while r >= k:
            r = getrandbits(bits)
        planted.append(r)
    rng.shuffle(planted)
    # With ``tight``, the first node of each colour is in the clique: joined without a draw.
    clique = 0
    if config.tight:
        for c in range(k):
            clique |= 1 << planted.index(c)
    names = rng.sample(string.ascii_uppercase, n)
    named = []
    for a in range(n):
        colour, name = planted[a], names[a]
        in_clique = clique >> a & 1
        for b in range(a + 1, n):
            if colour != planted[b] and ((in_clique and clique >> b & 1) or uniform() < edge_prob):
                named.append([name, names[b]])
    flips = getrandbits(len(named)) if named else 0  # bit i: edge i written the other way round
    for edge in named:
        if flips & 1:
            edge.reverse()
        flips >>= 1
    rng.shuffle(named)
    coloured = sorted(zip(names, planted))  # (name, planted colour) by name: names are distinct
    nodes = [name for name, _ in coloured]
    question = (
        f"A graph has nodes {', '.join(nodes)} and these edges:\n"
        + "\n".join(map(" - ".join, named))
        + f"\nColour every node with one of the colours 1 to {k} so that the two ends of each "
        "edge get different colours. Answer with every node exactly once as a comma-separated "
        "list of node=colour pairs, e.g. A=1, B=2."
    )
    answer = ", ".join([name + _EQUALS[colour] for name, colour in coloured])
    return Problem(question=question, answer=answer, extra={"nodes": nodes, "edges": named, "num_colors": k})


def _instance(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """The stored instance: dataset items keep ``Problem.extra`` under ``metadata``."""
    for field in ("metadata", "extra"):
        inner = item.get(field)
        if isinstance(inner, Mapping) and "edges" in inner:
            return inner
    return item


_PAIR = re.compile(r"(?<![A-Za-z])([A-Za-z]++)\s*+(?:=|:|->)\s*+(-?\d+)")


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 for any proper colouring naming each node once, else 0.0 (no answer makes it raise)."""
    try:
        from generators.answers import extract_answer, whole_pairs

        data = _instance(item)
        nodes = [str(v) for v in data["nodes"]]
        edges = [(str(a), str(b)) for a, b in data["edges"]]
        pairs = whole_pairs(_PAIR, extract_answer(answer_text))
        if pairs is None:  # text beside the pairs ("... or maybe C=2") changes the answer
            return 0.0
        colouring: dict[str, int] = {}
        for name, colour in pairs:
            key = name.upper()
            if key in colouring:  # a node listed twice is ambiguous, even if consistent
                return 0.0
            colouring[key] = int(colour)
        return 1.0 if is_proper(colouring, nodes, edges, int(data["num_colors"])) else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """An edge with both ends the same colour, and a colouring missing one node."""
    data = _instance(item)
    pairs = [p.split("=") for p in str(item["answer"]).split(", ")]
    colouring = dict(pairs)
    a, b = data["edges"][0]
    clash = dict(colouring, **{b: colouring[a]})
    return [
        ", ".join(f"{v}={clash[v]}" for v in colouring),
        ", ".join(f"{v}={c}" for v, c in list(colouring.items())[:-1]),
    ]


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:graph_color",
    description="Give a proper colouring of a graph with a fixed number of colours.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="text",
    score=score,
    notes="Any proper colouring scores 1; the gold answer is the planted colouring. With "
    "tight=True the graph's chromatic number equals num_colors.",
)
