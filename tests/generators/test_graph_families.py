"""Graph families: gold answers against independent brute force; custom scorers verify."""

from __future__ import annotations

import itertools
import random
import string

import pytest

from generators.families.graphs import (
    graph_coloring,
    graph_connectivity,
    shortest_path,
    spanning_tree_weight,
    topological_sort,
)


def _item(problem) -> dict:
    return {"question": problem.question, "answer": problem.answer, "metadata": dict(problem.extra)}


@pytest.mark.parametrize("level", range(6))
def test_shortest_path_matches_floyd_warshall(level: int) -> None:
    config = shortest_path.FAMILY.config_for_level(level)
    for index in range(30):
        problem = shortest_path.generate(config, random.Random(index))
        extra = problem.extra
        nodes = sorted({e[0] for e in extra["edges"]} | {e[1] for e in extra["edges"]})
        inf = float("inf")
        dist = {(a, b): 0 if a == b else inf for a in nodes for b in nodes}
        for u, v, w in extra["edges"]:
            dist[u, v] = min(dist[u, v], w)
            if not extra["directed"]:
                dist[v, u] = min(dist[v, u], w)
        for k in nodes:
            for i in nodes:
                for j in nodes:
                    dist[i, j] = min(dist[i, j], dist[i, k] + dist[k, j])
        s, t = (ord(extra["source"]) - 65, ord(extra["target"]) - 65)
        assert problem.answer == str(dist[s, t])
        if config.detour_trap:  # the direct edge, if any, is not the answer
            direct = [
                w for u, v, w in extra["edges"] if (u, v) == (s, t) or (not extra["directed"] and (v, u) == (s, t))
            ]
            assert all(w > dist[s, t] for w in direct)


@pytest.mark.parametrize("level", range(6))
def test_connectivity_matches_search(level: int) -> None:
    config = graph_connectivity.FAMILY.config_for_level(level)
    for index in range(30):
        problem = graph_connectivity.generate(config, random.Random(index))
        nodes, edges = problem.extra["nodes"], problem.extra["edges"]
        unseen, firsts, owner = set(nodes), [], {}
        while unseen:
            start = min(unseen)
            stack, comp = [start], set()
            while stack:
                v = stack.pop()
                if v in comp:
                    continue
                comp.add(v)
                stack += [b for a, b in edges if a == v] + [a for a, b in edges if b == v]
            unseen -= comp
            firsts.append(min(comp))
            owner.update({v: sorted(comp) for v in comp})
        if problem.extra["mode"] == "count":
            assert sorted(problem.answer.split(", ")) == sorted(firsts)
        else:
            who = problem.question.split("Who is in ")[1].split("'s group")[0]
            assert problem.answer.split(", ") == owner[who]


@pytest.mark.parametrize("level", range(6))
def test_topological_scorer_accepts_exactly_valid_orders(level: int) -> None:
    config = topological_sort.FAMILY.config_for_level(level)
    for index in range(10):
        problem = topological_sort.generate(config, random.Random(index))
        item = _item(problem)
        nodes, edges = problem.extra["nodes"], problem.extra["edges"]
        assert topological_sort.score(problem.answer, item) == 1.0
        rng = random.Random(index)
        for _ in range(200):
            order = rng.sample(nodes, len(nodes))
            ok = all(order.index(a) < order.index(b) for a, b in edges)
            assert topological_sort.score(" -> ".join(order), item) == float(ok)
        for wrong in topological_sort.wrong_answers(item):
            assert topological_sort.score(wrong, item) == 0.0
        assert topological_sort.score(problem.answer + ", " + problem.answer, item) == 0.0


def test_topological_scorer_small_exhaustive() -> None:
    config = topological_sort.Config(num_nodes=5, num_edges=5)
    problem = topological_sort.generate(config, random.Random(1))
    item = _item(problem)
    nodes, edges = problem.extra["nodes"], problem.extra["edges"]
    accepted = 0
    for order in itertools.permutations(nodes):
        ok = all(order.index(a) < order.index(b) for a, b in edges)
        assert topological_sort.score(", ".join(order), item) == float(ok)
        accepted += ok
    assert accepted >= 1


@pytest.mark.parametrize("level", range(6))
def test_coloring_gold_valid_and_tight(level: int) -> None:
    config = graph_coloring.FAMILY.config_for_level(level)
    for index in range(15):
        problem = graph_coloring.generate(config, random.Random(index))
        item = _item(problem)
        nodes, edges, k = problem.extra["nodes"], problem.extra["edges"], problem.extra["num_colors"]
        assert graph_coloring.score(problem.answer, item) == 1.0
        # Renaming colours gives another valid colouring, which must also score 1.
        swap = {str(c): str(k + 1 - c) for c in range(1, k + 1)}
        renamed = ", ".join(f"{p.split('=')[0]}={swap[p.split('=')[1]]}" for p in problem.answer.split(", "))
        assert graph_coloring.score(renamed, item) == 1.0
        for wrong in graph_coloring.wrong_answers(item):
            assert graph_coloring.score(wrong, item) == 0.0
        assert graph_coloring.score(problem.answer + ", " + renamed, item) == 0.0
        if len(nodes) <= 9:  # brute force: no colouring with k - 1 colours
            index_of = {v: i for i, v in enumerate(nodes)}
            pairs = [(index_of[a], index_of[b]) for a, b in edges]
            fewer = any(all(c[a] != c[b] for a, b in pairs) for c in itertools.product(range(k - 1), repeat=len(nodes)))
            assert not fewer


def test_colorable_matches_brute_force() -> None:
    rng = random.Random(2)
    for _ in range(200):
        n = rng.randint(3, 7)
        edges = [(a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < 0.5]
        for k in (1, 2, 3):
            brute = any(all(c[a] != c[b] for a, b in edges) for c in itertools.product(range(k), repeat=n))
            assert graph_coloring.colorable(n, edges, k) == brute


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_spanning_tree_matches_subset_enumeration(level: int) -> None:
    config = spanning_tree_weight.FAMILY.config_for_level(level)
    for index in range(8):
        problem = spanning_tree_weight.generate(config, random.Random(index))
        edges = problem.extra["edges"]
        nodes = sorted({e[0] for e in edges} | {e[1] for e in edges})
        best = None
        for subset in itertools.combinations(edges, len(nodes) - 1):
            parent = {v: v for v in nodes}

            def find(v: str) -> str:
                while parent[v] != v:
                    v = parent[v]
                return v

            merged = 0
            for a, b, _ in subset:
                ra, rb = find(a), find(b)
                if ra != rb:
                    parent[ra] = rb
                    merged += 1
            if merged == len(nodes) - 1:
                weight = sum(w for _, _, w in subset)
                best = weight if best is None else min(best, weight)
        assert problem.answer == str(best)
        if config.cycle_trap:
            assert problem.extra["naive"] != best


def _reference_colouring(config: graph_coloring.Config, rng: random.Random) -> tuple[list[list[str]], str]:
    """graph_coloring's draws in their plain form (randrange, shuffle, sample, random,
    getrandbits): the edges and gold it must give. With ``tight`` the first node of each
    colour is joined to the others without a draw."""
    n, k = config.num_nodes, config.num_colors
    planted = list(range(k)) + [rng.randrange(k) for _ in range(n - k)]
    rng.shuffle(planted)
    clique = {planted.index(c) for c in range(k)} if config.tight else set()
    names = rng.sample(string.ascii_uppercase, n)
    edges = [
        (a, b)
        for a in range(n)
        for b in range(a + 1, n)
        if planted[a] != planted[b] and ((a in clique and b in clique) or rng.random() < config.edge_prob)
    ]
    flips = rng.getrandbits(len(edges)) if edges else 0
    named = [[names[b], names[a]] if flips >> i & 1 else [names[a], names[b]] for i, (a, b) in enumerate(edges)]
    rng.shuffle(named)
    gold = {names[v]: planted[v] + 1 for v in range(n)}
    return named, ", ".join(f"{v}={gold[v]}" for v in sorted(names))


def test_tight_colouring_needs_every_colour_by_search() -> None:
    # The planted clique makes k - 1 colours too few; the exhaustive search agrees.
    for level in range(6):
        config = graph_coloring.FAMILY.config_for_level(level)
        for index in range(40):
            problem = graph_coloring.generate(config, random.Random(index))
            nodes, k = problem.extra["nodes"], problem.extra["num_colors"]
            at = {v: i for i, v in enumerate(nodes)}
            edges = [(at[a], at[b]) for a, b in problem.extra["edges"]]
            assert not graph_coloring.colorable(len(nodes), edges, k - 1)
            assert graph_coloring.colorable(len(nodes), edges, k)


@pytest.mark.parametrize("level", range(6))
def test_coloring_inline_draws_equal_the_plain_form(level: int) -> None:
    config = graph_coloring.FAMILY.config_for_level(level)
    ours, theirs = random.Random(level), random.Random(level)
    for _ in range(150):
        problem = graph_coloring.generate(config, ours)
        edges, answer = _reference_colouring(config, theirs)
        assert (problem.extra["edges"], problem.answer) == (edges, answer)
    assert ours.getstate() == theirs.getstate()
