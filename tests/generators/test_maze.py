"""maze: BFS answers agree with an independent relaxation (Bellman-Ford style) on the drawing."""

from __future__ import annotations

from generators.dataset import create_dataset


def _relaxed(drawing: list[str]) -> int:
    cells = {(r, c) for r, line in enumerate(drawing) for c, ch in enumerate(line) if ch != "#"}
    start = next((r, c) for r, c in cells if drawing[r][c] == "S")
    goal = next((r, c) for r, c in cells if drawing[r][c] == "G")
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
    return dist[goal]


def test_shortest_path_against_relaxation() -> None:
    for level in range(6):
        for item in create_dataset("maze", level=level, seed=11, size=15):
            lines = item["question"].split("\n\n")[1].splitlines()
            assert all(set(line) <= set("#.SG") for line in lines)
            assert int(item["answer"]) == _relaxed(lines)
