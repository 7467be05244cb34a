"""Decide whether a graph is bipartite, and prove it either way.

A connected undirected graph is either split into two parts with every edge between
them, or it has a cycle with an odd number of nodes (and then no split exists). The
answer is the proof, not a yes/no label: the part that contains node 1 when the graph is
bipartite, or an odd cycle when it is not. Half the graphs are bipartite; the others are
a bipartite graph plus one edge inside a part, so one edge decides. Harder levels use
more nodes and edges, and longer odd cycles.

The scorer checks the proof: a part must be exactly the side of node 1 (a connected
bipartite graph has one split); a cycle must have an odd number of distinct nodes with
every step an edge, and any such cycle is accepted. A bare "yes"/"no" scores 0, so a
constant earns nothing.
"""

from __future__ import annotations

import random
import re
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer
from generators.base import Family, Knobs, Problem

NAME = "bipartite_check"

_CYCLE_CHARS = re.compile(r"[\d\s,>→\-–]*")
_PART_CHARS = re.compile(r"[\d\s,\[\]{}()]*")


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"nodes": (4, 40), "extra_edges": (0.0, 3.0)}

    nodes: int = 6
    extra_edges: float = 0.3
    """Edges beyond the spanning tree, per node."""


LEVELS = (
    {"nodes": 6, "extra_edges": 0.3},
    {"nodes": 8, "extra_edges": 0.4},
    {"nodes": 10, "extra_edges": 0.5},
    {"nodes": 12, "extra_edges": 0.6},
    {"nodes": 15, "extra_edges": 0.7},
    {"nodes": 18, "extra_edges": 0.8},
)


def _path(adjacency: dict[int, list[int]], start: int, goal: int) -> list[int]:
    parent = {start: start}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            break
        for nxt in adjacency[node]:
            if nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    path = [goal]
    while path[-1] != start:
        path.append(parent[path[-1]])
    return path[::-1]


def generate(config: Config, rng: random.Random) -> Problem:
    n = config.nodes
    side = {1: 0}
    for node in range(2, n + 1):
        side[node] = rng.randrange(2)
    if len(set(side.values())) == 1:
        side[rng.randint(2, n)] = 1
    parts = [[v for v in side if side[v] == s] for s in (0, 1)]
    # A spanning tree with every edge across: node 1, then a node of the other part, then
    # the rest in random order, each joined to a random placed node of the opposite part.
    rest = rng.sample(range(2, n + 1), n - 1)
    opposite = next(v for v in rest if side[v] == 1)
    rest.remove(opposite)
    edges: set[tuple[int, int]] = {(1, opposite)}
    placed = [[1], [opposite]]
    for node in rest:
        other = rng.choice(placed[1 - side[node]])
        edges.add((min(node, other), max(node, other)))
        placed[side[node]].append(node)
    cross = [(a, b) for a in parts[0] for b in parts[1]]
    for a, b in rng.sample(cross, min(len(cross), round(config.extra_edges * n))):
        edges.add((min(a, b), max(a, b)))
    adjacency: dict[int, list[int]] = {v: [] for v in range(1, n + 1)}
    for a, b in edges:
        adjacency[a].append(b)
        adjacency[b].append(a)
    bipartite = rng.random() < 0.5
    if bipartite:
        answer = ", ".join(str(v) for v in sorted(v for v in side if side[v] == side[1]))
    else:
        same = [(a, b) for s in (0, 1) for a in parts[s] for b in parts[s] if a < b]
        a, b = rng.choice(same)
        cycle = _path(adjacency, a, b)  # even number of edges between two nodes of one part
        edges.add((a, b))
        answer = " -> ".join(map(str, cycle))
    listed = sorted(edges)
    rng.shuffle(listed)
    question = (
        f"An undirected graph has nodes 1 to {n} and these edges:\n"
        + ", ".join(f"{a}-{b}" for a, b in listed)
        + "\n\nIs it bipartite (can its nodes be split into two groups so that every edge joins the two groups)?\n"
        "If it is, answer with the group that contains node 1: its node numbers separated by commas "
        "(for example 1, 4, 6). If it is not, answer with a cycle that has an odd number of nodes: its node numbers "
        "in order joined by -> (for example 2 -> 5 -> 7)."
    )
    return Problem(question, answer, {"nodes": n, "edges": [list(e) for e in sorted(edges)], "bipartite": bipartite})


def _side_of_one(n: int, edges: set[tuple[int, int]]) -> set[int] | None:
    colour = {1: 0}
    adjacency: dict[int, list[int]] = {v: [] for v in range(1, n + 1)}
    for a, b in edges:
        adjacency[a].append(b)
        adjacency[b].append(a)
    queue = deque([1])
    while queue:
        node = queue.popleft()
        for nxt in adjacency[node]:
            if nxt not in colour:
                colour[nxt] = 1 - colour[node]
                queue.append(nxt)
            elif colour[nxt] == colour[node]:
                return None
    return {v for v, c in colour.items() if c == 0}


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 for the side of node 1 of a bipartite graph, or any odd cycle of a non-bipartite one."""
    try:
        meta = item.get("metadata") or {}
        n = int(meta["nodes"])
        edges = {(int(a), int(b)) for a, b in meta["edges"]}
        text = extract_answer(answer_text)
        if len(text) > 8 * n + 32:
            return 0.0
        numbers = [int(v) for v in re.findall(r"\d+", text)]
        if not numbers:
            return 0.0
        if ">" in text or "→" in text:
            if not _CYCLE_CHARS.fullmatch(text):
                return 0.0
            if len(numbers) > 1 and numbers[0] == numbers[-1]:
                numbers.pop()
            if len(numbers) < 3 or len(numbers) % 2 == 0 or len(set(numbers)) != len(numbers):
                return 0.0
            steps = zip(numbers, numbers[1:] + numbers[:1])
            return 1.0 if all((min(a, b), max(a, b)) in edges for a, b in steps) else 0.0
        if not _PART_CHARS.fullmatch(text) or len(set(numbers)) != len(numbers):
            return 0.0
        side = _side_of_one(n, edges)
        return 1.0 if side is not None and set(numbers) == side else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """For a split: the other group, and the group less one node; for a cycle: it less one node."""
    gold = str(item["answer"])
    if "->" in gold:
        nodes = gold.split(" -> ")
        return [" -> ".join(nodes[:-1]), "yes"]
    n = int(item["metadata"]["nodes"])
    group = [int(v) for v in gold.split(", ")]
    other = [v for v in range(1, n + 1) if v not in group]
    return [", ".join(map(str, other)), ", ".join(map(str, group[:-1])) or "2"]


FAMILY = Family(
    name=NAME,
    description="Bipartite or not, with proof: the side of node 1, or any odd cycle (both verified).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
)
