"""grid_upscale: the gold is the test input under the item's rule (rebuilt cell by cell
here), no rival rule of the same output size fits the examples with another test output,
and grid exploits fail."""

from __future__ import annotations

from grid_checks import assert_grid_exploits, examples_of, grid_of

from generators.dataset import create_dataset


def build(grid: tuple[tuple[int, ...], ...], mode: str, fr: int, fc: int) -> tuple[tuple[int, ...], ...]:
    rows, cols = len(grid), len(grid[0])
    out = []
    for r in range(rows * fr):
        line = []
        for c in range(cols * fc):
            if mode == "scale":
                line.append(grid[r // fr][c // fc])
            elif mode == "tile":
                line.append(grid[r % rows][c % cols])
            else:  # mirror: quadrants reflect the grid
                rr = r if r < rows else 2 * rows - 1 - r
                cc = c if c < cols else 2 * cols - 1 - c
                line.append(grid[rr][cc])
        out.append(tuple(line))
    return tuple(out)


def test_gold_follows_the_rule_and_rivals_are_excluded() -> None:
    modes_seen = set()
    for level in range(6):
        for item in create_dataset("grid_upscale", level=level, seed=4, size=25):
            pairs, test = examples_of(item["question"])
            mode, (fr, fc) = item["metadata"]["rule"], item["metadata"]["factors"]
            modes_seen.add(mode)
            assert all(build(given, mode, fr, fc) == result for given, result in pairs)
            gold = grid_of(item["answer"])
            assert build(test, mode, fr, fc) == gold
            for other in ("scale", "tile", "mirror"):
                if other == "mirror" and (fr, fc) != (2, 2):
                    continue
                if all(build(given, other, fr, fc) == result for given, result in pairs):
                    assert build(test, other, fr, fc) == gold
            if level == 0:
                assert mode == "scale" and (fr, fc) == (2, 2)
    assert modes_seen == {"scale", "tile", "mirror"}


def test_answer_forms_and_exploits() -> None:
    for level in (0, 2, 5):
        for item in create_dataset("grid_upscale", level=level, seed=9, size=5):
            assert_grid_exploits("grid_upscale", item)
