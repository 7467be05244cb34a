"""grid_fill_enclosed: the fill colour read off the examples, applied by flood fill from the
border (background cells the border cannot reach are enclosed), gives the gold; the rival
"fill inside every outline" is refuted by an example whenever it differs on the test."""

from __future__ import annotations

from grid_checks import assert_grid_exploits, examples_of, grid_of

from generators.dataset import create_dataset, score

Grid = tuple[tuple[int, ...], ...]


def flood_fill(grid: Grid, colour: int) -> Grid:
    rows, cols = len(grid), len(grid[0])
    outside = set()
    stack = [(r, c) for r in range(rows) for c in range(cols) if (r in (0, rows - 1) or c in (0, cols - 1))]
    stack = [p for p in stack if grid[p[0]][p[1]] == 0]
    outside.update(stack)
    while stack:
        r, c = stack.pop()
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= nr < rows and 0 <= nc < cols and grid[nr][nc] == 0 and (nr, nc) not in outside:
                outside.add((nr, nc))
                stack.append((nr, nc))
    return tuple(
        tuple(colour if cell == 0 and (r, c) not in outside else cell for c, cell in enumerate(row))
        for r, row in enumerate(grid)
    )


def fill_every_outline(grid: Grid, colour: int) -> Grid:
    """The rival rule: the inside of every outline's bounding box is filled, gap or not
    (an outline is a connected group of coloured cells, eight neighbours counted)."""
    rows, cols = len(grid), len(grid[0])
    out = [list(row) for row in grid]
    seen: set[tuple[int, int]] = set()
    for r in range(rows):
        for c in range(cols):
            if not grid[r][c] or (r, c) in seen:
                continue
            group, stack = [], [(r, c)]
            seen.add((r, c))
            while stack:
                y, x = stack.pop()
                group.append((y, x))
                for ny in (y - 1, y, y + 1):
                    for nx in (x - 1, x, x + 1):
                        if 0 <= ny < rows and 0 <= nx < cols and grid[ny][nx] and (ny, nx) not in seen:
                            seen.add((ny, nx))
                            stack.append((ny, nx))
            top, bottom = min(y for y, _ in group), max(y for y, _ in group)
            left, right = min(x for _, x in group), max(x for _, x in group)
            for y in range(top + 1, bottom):
                for x in range(left + 1, right):
                    if grid[y][x] == 0:
                        out[y][x] = colour
    return tuple(tuple(row) for row in out)


def test_flood_fill_gives_the_gold_and_the_rival_is_refuted() -> None:
    refuted = 0
    for level in range(6):
        for item in create_dataset("grid_fill_enclosed", level=level, seed=4, size=25):
            pairs, test = examples_of(item["question"])
            new = {b for given, result in pairs for ra, rb in zip(given, result) for a, b in zip(ra, rb) if a != b}
            assert new == {item["metadata"]["fill"]}
            fill = new.pop()
            assert all(flood_fill(given, fill) == result for given, result in pairs)
            gold = grid_of(item["answer"])
            assert flood_fill(test, fill) == gold != test
            if fill_every_outline(test, fill) != gold:
                assert not all(fill_every_outline(given, fill) == result for given, result in pairs)
                refuted += 1
    assert refuted > 10


def test_answer_forms_and_exploits() -> None:
    for level in (0, 2, 5):
        for item in create_dataset("grid_fill_enclosed", level=level, seed=9, size=5):
            assert_grid_exploits("grid_fill_enclosed", item)


def test_filling_gapped_outlines_scores_zero() -> None:
    for item in create_dataset("grid_fill_enclosed", level=5, seed=3, size=15):
        _, test = examples_of(item["question"])
        rival = fill_every_outline(test, item["metadata"]["fill"])
        if rival != grid_of(item["answer"]):
            text = "\n".join(" ".join(map(str, row)) for row in rival)
            assert score("grid_fill_enclosed", text, item) == 0.0
