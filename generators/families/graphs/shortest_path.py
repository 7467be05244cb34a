"""Weighted shortest-path distance between two nodes.

Tests Dijkstra-style search over an edge list given as text. Harder levels add nodes and
edges, make edges one-way, demand that the best route uses several edges, and with
``detour_trap`` keep only pairs where the route with the fewest edges is strictly longer
than the shortest one, so counting hops or taking the direct edge scores zero.
"""

from __future__ import annotations

import heapq
import random
import string
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "shortest_path"

_MAX_TRIES = 60

Adjacency = list[list[tuple[int, int]]]


@dataclass(frozen=True)
class Config(Knobs):
    num_nodes: int = 5
    extra_edges: int = 2
    """Edges added on top of a random spanning tree."""
    max_weight: int = 9
    directed: bool = False
    min_hops: int = 1
    """The shortest route between the asked nodes has at least this many edges."""
    detour_trap: bool = False

    RANGES: ClassVar = {
        "num_nodes": (3, 26),
        "extra_edges": (0, 80),
        "max_weight": (1, 100),
        "min_hops": (1, 6),
    }

    def check(self) -> None:
        if self.min_hops >= self.num_nodes:
            raise ValueError("min_hops must be smaller than num_nodes")
        pairs = self.num_nodes * (self.num_nodes - 1) // (1 if self.directed else 2)
        if self.num_nodes - 1 + self.extra_edges > pairs:
            raise ValueError("too many edges for the number of nodes")
        if self.detour_trap and self.max_weight < 2:
            raise ValueError("detour_trap needs max_weight >= 2")


LEVELS = (
    {"num_nodes": 4, "extra_edges": 1, "max_weight": 30},
    {"num_nodes": 6, "extra_edges": 3, "max_weight": 30, "min_hops": 2},
    {"num_nodes": 8, "extra_edges": 5, "max_weight": 30, "min_hops": 2, "detour_trap": True},
    {"num_nodes": 10, "extra_edges": 8, "max_weight": 15, "min_hops": 3, "detour_trap": True},
    {"num_nodes": 13, "extra_edges": 12, "max_weight": 20, "min_hops": 3, "directed": True, "detour_trap": True},
    {"num_nodes": 17, "extra_edges": 18, "max_weight": 30, "min_hops": 4, "directed": True, "detour_trap": True},
)


def dijkstra(adj: Adjacency, source: int) -> list[float]:
    dist = [float("inf")] * len(adj)
    dist[source] = 0
    heap = [(0, source)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for v, w in adj[u]:
            if d + w < dist[v]:
                dist[v] = d + w
                heapq.heappush(heap, (d + w, v))
    return dist


def _hop_stats(adj: Adjacency, source: int) -> tuple[list[int], list[float]]:
    """Fewest edges to each node, and the lightest weight among routes with that many."""
    n = len(adj)
    hops = [-1] * n
    weight = [float("inf")] * n
    hops[source], weight[source] = 0, 0
    frontier = [source]
    while frontier:
        nxt: list[int] = []
        for u in frontier:
            for v, w in adj[u]:
                if hops[v] == -1:
                    hops[v] = hops[u] + 1
                    nxt.append(v)
                if hops[v] == hops[u] + 1:
                    weight[v] = min(weight[v], weight[u] + w)
        frontier = nxt
    return hops, weight


def _shortest_hops(adj: Adjacency, source: int, dist: list[float]) -> list[int]:
    """Fewest edges among the shortest-weight routes (DP over the shortest-path DAG)."""
    order = sorted(range(len(adj)), key=lambda v: dist[v])
    best = [10**9] * len(adj)
    best[source] = 0
    for u in order:
        if dist[u] == float("inf"):
            break
        for v, w in adj[u]:
            if dist[u] + w == dist[v] and w > 0:
                best[v] = min(best[v], best[u] + 1)
    return best


def _random_graph(config: Config, rng: random.Random) -> list[tuple[int, int, int]]:
    n = config.num_nodes
    order = list(range(n))
    rng.shuffle(order)
    edges: dict[tuple[int, int], int] = {}
    for i in range(1, n):
        # Tree edges point away from order[0] so every node is reachable from it.
        edges[(order[rng.randrange(i)], order[i])] = rng.randint(1, config.max_weight)
    while len(edges) < n - 1 + config.extra_edges:
        u, v = rng.sample(range(n), 2)
        if (u, v) in edges or (not config.directed and (v, u) in edges):
            continue
        edges[(u, v)] = rng.randint(1, config.max_weight)
    return [(u, v, w) for (u, v), w in edges.items()]


def generate(config: Config, rng: random.Random) -> Problem:
    n = config.num_nodes
    for _ in range(_MAX_TRIES):
        edges = _random_graph(config, rng)
        adj: Adjacency = [[] for _ in range(n)]
        for u, v, w in edges:
            adj[u].append((v, w))
            if not config.directed:
                adj[v].append((u, w))
        candidates: list[tuple[int, int, int]] = []
        # Each table is built only when its test can exclude a target: every reachable
        # target has at least one hop, and hop weights matter only to the detour trap.
        min_hops, trap = config.min_hops, config.detour_trap
        inf = float("inf")
        for s in range(n):
            dist = dijkstra(adj, s)
            hop_count = _shortest_hops(adj, s, dist) if min_hops > 1 else None
            hop_weight = _hop_stats(adj, s)[1] if trap else None
            for t in range(n):
                if t == s or dist[t] == inf or (hop_count is not None and hop_count[t] < min_hops):
                    continue
                if hop_weight is not None and not hop_weight[t] > dist[t]:
                    continue
                candidates.append((s, t, int(dist[t])))
        if candidates:
            break
    else:
        raise ValueError(f"{NAME}: no instance met the constraints in {_MAX_TRIES} draws")
    s, t, distance = rng.choice(candidates)
    names = string.ascii_uppercase
    rng.shuffle(edges)
    arrow = "->" if config.directed else "-"
    lines = [f"{names[u]} {arrow} {names[v]}: {w}" for u, v, w in edges]
    kind = "one-way roads (A -> B can only be used from A to B)" if config.directed else "two-way roads"
    question = (
        f"A map has {n} places, {', '.join(names[:n])}, connected by these {kind} with their "
        "lengths:\n" + "\n".join(lines) + "\n"
        f"What is the length of the shortest route from {names[s]} to {names[t]}? "
        "Answer with the distance as an integer."
    )
    return Problem(
        question=question,
        answer=str(distance),
        extra={"edges": [list(e) for e in edges], "source": names[s], "target": names[t], "directed": config.directed},
    )


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:shortest_path",
    description="Weighted shortest-path distance on a random (directed) graph.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
)
