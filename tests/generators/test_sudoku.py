"""sudoku: puzzles have exactly one solution (independent brute force), and the scorer verifies."""

from __future__ import annotations

from generators.dataset import create_dataset
from generators.families.games.sudoku import BOXES, count_solutions


def _brute_count(grid: list[int], size: int, limit: int = 2) -> int:
    """Plain backtracking in cell order, no bitmasks, no heuristics."""
    br, bc = BOXES[size]

    def ok(i: int, v: int) -> bool:
        r, c = divmod(i, size)
        for j in range(size):
            if grid[r * size + j] == v or grid[j * size + c] == v:
                return False
        r0, c0 = r - r % br, c - c % bc
        return all(grid[(r0 + a) * size + c0 + b] != v for a in range(br) for b in range(bc))

    def search(i: int) -> int:
        if i == size * size:
            return 1
        if grid[i]:
            return search(i + 1)
        total = 0
        for v in range(1, size + 1):
            if ok(i, v):
                grid[i] = v
                total += search(i + 1)
                grid[i] = 0
                if total >= limit:
                    break
        return total

    return search(0)


def test_unique_solution_and_consistent_gold() -> None:
    for level in range(6):
        for item in create_dataset("sudoku", level=level, seed=7, size=12 if level >= 4 else 30):
            meta = item["metadata"]
            size = meta["size"]
            puzzle = [int(c) for c in meta["puzzle"]]
            solution = [int(c) for c in item["answer"].replace(",", "")]
            assert all(p in (0, s) for p, s in zip(puzzle, solution))
            assert puzzle.count(0) == meta["holes"]
            assert count_solutions(solution, size, limit=2) == 1
            if size <= 6:
                assert _brute_count(list(puzzle), size) == 1
            else:
                assert count_solutions(puzzle, size, limit=2, node_cap=10**7) == 1


def test_scorer_formats_and_wrong_grids() -> None:
    from generators.dataset import score

    item = create_dataset("sudoku", level=4, seed=8, size=1)[0]
    rows = item["answer"].split(",")
    assert score("sudoku", item["answer"], item) == 1.0
    assert score("sudoku", "Here it is:\n" + "\n".join(" ".join(r) for r in rows), item) == 1.0
    swapped = [rows[1], rows[0], *rows[2:]]
    assert score("sudoku", ",".join(swapped), item) == 0.0
    assert score("sudoku", item["answer"] + "," + rows[0], item) == 0.0
