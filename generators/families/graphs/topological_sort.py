"""Order tasks so that every prerequisite comes first (topological sort).

Tests constraint bookkeeping over a dependency list. Any valid order is accepted: the
scorer checks the candidate against the stored constraints, and it must name every task
exactly once. Harder levels add tasks and constraints, shuffle the constraint list and
mix phrasings ("X before Y" and "Y needs X"), so the direction must be read carefully.
Task letters are shuffled against the hidden order, so alphabetical order is not a
shortcut.
"""

from __future__ import annotations

import heapq
import random
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
from generators.base import Family, Knobs, Problem

NAME = "topological_sort"


@dataclass(frozen=True)
class Config(Knobs):
    num_nodes: int = 5
    num_edges: int = 5
    mixed_phrasing: bool = False

    RANGES: ClassVar = {"num_nodes": (2, 26), "num_edges": (1, 150)}

    def check(self) -> None:
        if self.num_edges > self.num_nodes * (self.num_nodes - 1) // 2:
            raise ValueError("num_edges exceeds the number of node pairs of a DAG")


LEVELS = (
    {"num_nodes": 4, "num_edges": 4},
    {"num_nodes": 6, "num_edges": 7},
    {"num_nodes": 8, "num_edges": 11, "mixed_phrasing": True},
    {"num_nodes": 11, "num_edges": 17, "mixed_phrasing": True},
    {"num_nodes": 15, "num_edges": 26, "mixed_phrasing": True},
    {"num_nodes": 20, "num_edges": 40, "mixed_phrasing": True},
)


def smallest_order(nodes: list[str], edges: list[tuple[str, str]]) -> list[str]:
    """Kahn's algorithm with a heap: the alphabetically smallest valid order."""
    indegree = dict.fromkeys(nodes, 0)
    succ: dict[str, list[str]] = {v: [] for v in nodes}
    for a, b in edges:
        succ[a].append(b)
        indegree[b] += 1
    heap = [v for v in nodes if indegree[v] == 0]
    heapq.heapify(heap)
    order: list[str] = []
    while heap:
        v = heapq.heappop(heap)
        order.append(v)
        for w in succ[v]:
            indegree[w] -= 1
            if indegree[w] == 0:
                heapq.heappush(heap, w)
    if len(order) != len(nodes):
        raise ValueError("the constraints contain a cycle")
    return order


def is_valid_order(order: list[str], nodes: list[str], edges: list[tuple[str, str]]) -> bool:
    """Every node exactly once, and each edge's tail before its head."""
    if len(order) != len(nodes) or sorted(order) != sorted(nodes):
        return False
    position = {v: i for i, v in enumerate(order)}
    return all(position[a] < position[b] for a, b in edges)


def generate(config: Config, rng: random.Random) -> Problem:
    n = config.num_nodes
    hidden = rng.sample(string.ascii_uppercase, n)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    # Half the edges chain consecutive hidden positions, so orders are constrained enough.
    chain = [(i, i + 1) for i in range(n - 1)]
    picked = rng.sample(chain, min(len(chain), config.num_edges // 2))
    chosen = set(picked)
    rest = [p for p in pairs if p not in chosen]
    picked += rng.sample(rest, config.num_edges - len(picked))
    edges = [(hidden[i], hidden[j]) for i, j in picked]
    rng.shuffle(edges)
    lines = []
    for a, b in edges:
        if config.mixed_phrasing and rng.random() < 0.5:
            lines.append(f"- {b} requires {a} to be done first")
        else:
            lines.append(f"- {a} must be done before {b}")
    nodes = sorted(hidden)
    question = (
        f"Tasks {', '.join(nodes)} must each be done once, subject to these constraints:\n"
        + "\n".join(lines)
        + "\nGive an order in which all the tasks can be done. Answer with every task letter "
        "exactly once as a comma-separated list, e.g. A, B, C."
    )
    answer = ", ".join(smallest_order(nodes, edges))
    return Problem(
        question=question,
        answer=answer,
        extra={"nodes": nodes, "edges": [list(e) for e in edges]},
    )


def _instance(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """The stored instance: dataset items keep ``Problem.extra`` under ``metadata``."""
    for field in ("metadata", "extra"):
        inner = item.get(field)
        if isinstance(inner, Mapping) and "edges" in inner:
            return inner
    return item


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 for any valid order of all tasks, else 0.0 (no answer makes it raise)."""
    try:
        from generators.answers import extract_answer

        data = _instance(item)
        nodes = [str(v) for v in data["nodes"]]
        edges = [(str(a), str(b)) for a, b in data["edges"]]
        tokens = re.findall(r"[A-Za-z]+", extract_answer(answer_text))
        order = [t.upper() for t in tokens]
        return 1.0 if is_valid_order(order, nodes, edges) else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """Plausible invalid orders: reversed, one task missing, one task repeated."""
    order = [t.strip() for t in str(item["answer"]).split(",")]
    return [
        ", ".join(reversed(order)),
        ", ".join(order[:-1]),
        ", ".join(order + order[:1]),
    ]


FAMILY = Family(
    name=NAME,
    description="Give any order of tasks consistent with before/after constraints.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
    score=score,
    notes="Any valid order scores 1; the gold answer is the alphabetically smallest one.",
)
