"""Connected components of an undirected graph given as an edge list.

Tests transitive closure over scattered facts: the edges are shuffled, so nodes of one
component are mentioned far apart. Questions ask either for every component (named by
its alphabetically first member; isolated nodes count) or for the members of the
component holding a given node: lists of names rather than counts, since a count of
components or a component size is a small number one constant answer would often hit. Harder
levels add nodes, edges and components, and include isolated nodes, which only appear
in the node list.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "graph_connectivity"

_NAMES = (
    "Ada",
    "Ben",
    "Cai",
    "Dov",
    "Eli",
    "Fay",
    "Gus",
    "Hal",
    "Ivy",
    "Jon",
    "Kit",
    "Lea",
    "Max",
    "Ned",
    "Oda",
    "Pia",
    "Quin",
    "Rex",
    "Sam",
    "Tia",
    "Uma",
    "Val",
    "Wes",
    "Xia",
    "Yan",
    "Zoe",
    "Abe",
    "Bea",
    "Cy",
    "Dee",
    "Eva",
    "Finn",
    "Gia",
    "Hugo",
    "Ian",
    "Jo",
)
_QUESTIONS = ("count", "size", "mixed")


@dataclass(frozen=True)
class Config(Knobs):
    num_nodes: int = 6
    min_components: int = 1
    max_components: int = 3
    """Components planted (drawn per item), counting isolated nodes."""
    extra_edges: int = 1
    """Edges added inside components on top of their spanning trees."""
    max_isolated: int = 0
    """Up to this many components are single isolated nodes (at least one never is)."""
    question: str = "count"

    RANGES: ClassVar = {
        "num_nodes": (2, len(_NAMES)),
        "min_components": (1, len(_NAMES)),
        "max_components": (1, len(_NAMES)),
        "extra_edges": (0, 60),
        "max_isolated": (0, len(_NAMES)),
    }

    def check(self) -> None:
        if self.question not in _QUESTIONS:
            raise ValueError(f"question must be one of {_QUESTIONS}, got {self.question!r}")
        if self.min_components > self.max_components:
            raise ValueError("min_components cannot exceed max_components")
        if self.max_components > self.num_nodes:
            raise ValueError("max_components cannot exceed num_nodes")
        if self.num_nodes < 2 * self.max_components:
            raise ValueError("num_nodes must be at least 2 * max_components (components need edges)")


LEVELS = (
    {"num_nodes": 5, "min_components": 1, "max_components": 2, "extra_edges": 0},
    {"num_nodes": 8, "min_components": 1, "max_components": 3, "extra_edges": 1, "question": "mixed"},
    {
        "num_nodes": 12,
        "min_components": 2,
        "max_components": 5,
        "extra_edges": 3,
        "max_isolated": 1,
        "question": "mixed",
    },
    {
        "num_nodes": 16,
        "min_components": 2,
        "max_components": 6,
        "extra_edges": 5,
        "max_isolated": 1,
        "question": "mixed",
    },
    {
        "num_nodes": 22,
        "min_components": 3,
        "max_components": 8,
        "extra_edges": 8,
        "max_isolated": 2,
        "question": "mixed",
    },
    {
        "num_nodes": 30,
        "min_components": 3,
        "max_components": 10,
        "extra_edges": 12,
        "max_isolated": 2,
        "question": "mixed",
    },
)


def components(nodes: list[str], edges: list[tuple[str, str]]) -> list[list[str]]:
    """Union-find; components as sorted name lists, sorted by their first name."""
    parent = {v: v for v in nodes}

    def find(v: str) -> str:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    groups: dict[str, list[str]] = {}
    for v in nodes:
        groups.setdefault(find(v), []).append(v)
    return sorted(sorted(g) for g in groups.values())


def _split(total: int, parts: int, rng: random.Random) -> list[int]:
    """Random composition of ``total`` into ``parts`` sizes, each at least 2."""
    sizes = [2] * parts
    for _ in range(total - 2 * parts):
        sizes[rng.randrange(parts)] += 1
    return sizes


def generate(config: Config, rng: random.Random) -> Problem:
    names = rng.sample(_NAMES, config.num_nodes)
    pool = list(names)
    wanted = rng.randint(config.min_components, config.max_components)
    isolated = rng.randint(0, min(config.max_isolated, wanted - 1))
    groups: list[list[str]] = [[pool.pop()] for _ in range(isolated)]
    for size in _split(len(pool), wanted - isolated, rng):
        groups.append([pool.pop() for _ in range(size)])
    edges: list[tuple[str, str]] = []
    for group in groups:
        for i in range(1, len(group)):
            edges.append((group[rng.randrange(i)], group[i]))
    big = [g for g in groups if len(g) >= 3]
    existing = {frozenset(e) for e in edges}
    for _ in range(config.extra_edges):
        if not big:
            break
        group = rng.choice(big)
        a, b = rng.sample(group, 2)
        if frozenset((a, b)) not in existing:
            existing.add(frozenset((a, b)))
            edges.append((a, b))
    edges = [(a, b) if rng.random() < 0.5 else (b, a) for a, b in edges]
    rng.shuffle(edges)
    nodes = sorted(names)
    comps = components(nodes, edges)
    mode = config.question if config.question != "mixed" else rng.choice(("count", "size"))
    header = (
        f"People: {', '.join(nodes)}.\n"
        "Two people are in the same group if they are friends or are linked through a chain of "
        "friends. Friendships (each goes both ways):\n" + "\n".join(f"{a} - {b}" for a, b in edges) + "\n"
    )
    if mode == "count":
        members = [c[0] for c in comps]
        ask = (
            "A person with no friends forms a group alone. For each separate group, name the person "
            "who comes first alphabetically; answer with those names separated by commas."
        )
    else:
        who = rng.choice(nodes)
        members = next(c for c in comps if who in c)
        ask = f"Who is in {who}'s group, counting {who}? Answer with their names separated by commas."
    return Problem(
        question=header + ask,
        answer=", ".join(members),
        extra={"nodes": nodes, "edges": [list(e) for e in edges], "mode": mode},
    )


FAMILY = Family(
    name=NAME,
    description="Name the connected components, or the members of one, in an undirected graph.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="set",
)
