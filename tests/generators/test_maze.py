"""maze: the gold route is a shortest one (checked against an independent relaxation on the
drawing), every shortest route is accepted, and routes that cheat score 0."""

from __future__ import annotations

import time
from typing import Any

import pytest

from generators.dataset import create_dataset, score
from generators.families.games import maze
from generators.scoring import ScorerError

STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


def _relaxed(drawing: list[str]) -> dict[tuple[int, int], int]:
    """Distances from S by repeated relaxation (Bellman-Ford style), not breadth-first search."""
    cells = {(r, c) for r, line in enumerate(drawing) for c, ch in enumerate(line) if ch != "#"}
    start = next((r, c) for r, c in cells if drawing[r][c] == "S")
    inf = 10**9
    dist = dict.fromkeys(cells, inf)
    dist[start] = 0
    changed = True
    while changed:
        changed = False
        for r, c in sorted(cells):
            for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if nb in dist and dist[nb] + 1 < dist[(r, c)]:
                    dist[(r, c)] = dist[nb] + 1
                    changed = True
    return dist


def _find(drawing: list[str], mark: str) -> tuple[int, int]:
    return next((r, c) for r, line in enumerate(drawing) for c, ch in enumerate(line) if ch == mark)


def _all_shortest(drawing: list[str], cap: int = 200) -> list[str]:
    """Every shortest route (up to ``cap``): walk from G back to S along decreasing distances."""
    dist = _relaxed(drawing)
    out: list[str] = []

    def back(pos: tuple[int, int], suffix: str) -> None:
        if len(out) >= cap:
            return
        if dist[pos] == 0:
            out.append(suffix)
            return
        for letter, (dr, dc) in STEP.items():
            prev = (pos[0] - dr, pos[1] - dc)
            if dist.get(prev) == dist[pos] - 1:
                back(prev, letter + suffix)

    back(_find(drawing, "G"), "")
    return out


def _drawing(item: dict[str, Any]) -> list[str]:
    return item["question"].split("\n\n")[1].splitlines()


def test_gold_route_is_shortest_against_relaxation() -> None:
    for level in range(6):
        for item in create_dataset("maze", level=level, seed=11, size=15):
            lines = _drawing(item)
            assert all(set(line) <= set("#.SG") for line in lines)
            assert lines == item["metadata"]["grid"]
            assert len(item["answer"]) == _relaxed(lines)[_find(lines, "G")]
            assert set(item["answer"]) <= set("UDLR")
            assert score("maze", item["answer"], item) == 1.0


def test_every_shortest_route_is_accepted() -> None:
    seen_several = False
    for level in (0, 3, 5):
        for item in create_dataset("maze", level=level, seed=3, size=10):
            routes = _all_shortest(_drawing(item))
            assert item["answer"] in routes or len(routes) == 200
            seen_several |= len(routes) > 1
            for route in routes:
                assert score("maze", route, item) == 1.0, route
    assert seen_several, "loops give several shortest routes somewhere"


def test_lenient_forms_the_question_allows() -> None:
    item = create_dataset("maze", level=2, seed=5, size=1)[0]
    gold = item["answer"]
    for form in (gold.lower(), " ".join(gold), ", ".join(gold), f"Answer: {gold}", f"<answer>{gold}</answer>"):
        assert score("maze", form, item) == 1.0, form


HANDMADE = ["#######", "#S....#", "#####.#", "#G....#", "#######"]
"""S and G are one wall apart; the only route goes round: RRRRDDLLLL (10 moves)."""


def _handmade() -> dict[str, Any]:
    return {"answer": "RRRRDDLLLL", "metadata": {"grid": HANDMADE}}


def test_handmade_exploits_score_zero() -> None:
    item = _handmade()
    assert score("maze", "RRRRDDLLLL", item) == 1.0
    assert score("maze", "DD", item) == 0.0  # straight through the wall, too short
    assert score("maze", "RRDDLLRRLL", item) == 0.0  # right length, ends on G, crosses the wall at (2, 3)
    assert score("maze", "RRRRDDLLLR", item) == 0.0  # right length, valid moves, does not end on G
    assert score("maze", "RRRRDDLLLLRL", item) == 0.0  # ends on G but longer than shortest
    assert score("maze", "RRRRDDLLRLLL", item) == 0.0  # detour in the middle, ends on G, too long
    assert score("maze", "10", item) == 0.0  # the length instead of the route
    assert score("maze", "RRRRDDLLLL RRRRDDLLLL", item) == 0.0  # stuffed twice
    assert score("maze", "RRRRDDLLLL or DD", item) == 0.0
    assert score("maze", "RRRRDDLLLX", item) == 0.0
    assert score("maze", "UP RIGHT", item) == 0.0


def test_leaving_the_grid_never_wraps_round() -> None:
    """Python's negative indexing must not turn a step off the left edge into a step onto G."""
    item = {"answer": "L", "metadata": {"grid": ["S#G"]}}
    assert score("maze", "L", item) == 0.0
    assert score("maze", "R", item) == 0.0


def test_wrong_answers_and_constants_score_zero() -> None:
    for level in range(6):
        for item in create_dataset("maze", level=level, seed=8, size=10):
            for wrong in maze.wrong_answers(item):
                assert score("maze", wrong, item) == 0.0, wrong
            assert score("maze", str(len(item["answer"])), item) == 0.0


def test_hostile_answers_are_refused_fast() -> None:
    item = create_dataset("maze", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("R" * 128_000, "R, " * 50_000, "[" * 100_000, "9" * 100_000, None, 7):
        assert score("maze", hostile, item) == 0.0  # type: ignore[arg-type]
    assert time.perf_counter() - started < 2.0
    with pytest.raises(ScorerError):  # a broken item is the project's error, never the agent's 0
        score("maze", "RRDD", {"answer": "RRDD", "metadata": {}})
