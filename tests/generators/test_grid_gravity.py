"""grid_gravity: the gold is the test input with every cell slid to the far side (checked by
simulating single steps until nothing moves), the examples fit exactly one direction's
result on the test, and grid exploits fail."""

from __future__ import annotations

from grid_checks import assert_grid_exploits, examples_of, grid_of

from generators.dataset import create_dataset, score

STEP = {"down": (1, 0), "up": (-1, 0), "left": (0, -1), "right": (0, 1)}


def settle(grid: tuple[tuple[int, ...], ...], direction: str) -> tuple[tuple[int, ...], ...]:
    """Move any cell whose neighbour in ``direction`` is empty, one step at a time, until stable."""
    cells = [list(row) for row in grid]
    dr, dc = STEP[direction]
    moved = True
    while moved:
        moved = False
        for r in range(len(cells)):
            for c in range(len(cells[0])):
                nr, nc = r + dr, c + dc
                if cells[r][c] and 0 <= nr < len(cells) and 0 <= nc < len(cells[0]) and not cells[nr][nc]:
                    cells[nr][nc], cells[r][c] = cells[r][c], 0
                    moved = True
    return tuple(tuple(row) for row in cells)


def test_gold_is_the_settled_test_input_and_unique() -> None:
    for level in range(6):
        for item in create_dataset("grid_gravity", level=level, seed=4, size=25):
            pairs, test = examples_of(item["question"])
            gold = grid_of(item["answer"])
            direction = item["metadata"]["rule"]
            assert all(settle(given, direction) == result for given, result in pairs)
            assert settle(test, direction) == gold != test
            fitting = [d for d in STEP if all(settle(i, d) == o for i, o in pairs)]
            assert all(settle(test, d) == gold for d in fitting)
            if level == 0:
                assert direction in ("down", "up")


def test_answer_forms_and_exploits() -> None:
    for level in (0, 2, 5):
        for item in create_dataset("grid_gravity", level=level, seed=9, size=5):
            assert_grid_exploits("grid_gravity", item)


def test_other_directions_score_zero() -> None:
    for item in create_dataset("grid_gravity", level=5, seed=3, size=10):
        _, test = examples_of(item["question"])
        for direction in STEP:
            settled = settle(test, direction)
            if direction != item["metadata"]["rule"] and settled != grid_of(item["answer"]):
                text = "\n".join(" ".join(map(str, row)) for row in settled)
                assert score("grid_gravity", text, item) == 0.0
