"""grid_symmetry_complete: the gold is symmetric the item's way and agrees with every
visible test cell; each mirror rule (left-right, top-bottom, half turn, all three) that
restores every example restores the test to the gold; grid exploits fail."""

from __future__ import annotations

from grid_checks import assert_grid_exploits, examples_of, grid_of

from generators.dataset import create_dataset, score

Grid = tuple[tuple[int, ...], ...]
MAPS = {
    "lr": lambda r, c, n, m: (r, m - 1 - c),
    "tb": lambda r, c, n, m: (n - 1 - r, c),
    "half": lambda r, c, n, m: (n - 1 - r, m - 1 - c),
}
RULES = {"lr": ("lr",), "tb": ("tb",), "half": ("half",), "both": ("lr", "tb", "half")}


def mirrored(grid: Grid, kind: str) -> bool:
    n, m = len(grid), len(grid[0])
    return all(grid[r][c] == grid[y][x] for r in range(n) for c in range(m) for y, x in [MAPS[kind](r, c, n, m)])


def restored(grid: Grid, rule: str, mask: int) -> Grid | None:
    n, m = len(grid), len(grid[0])
    out = [list(row) for row in grid]
    for r in range(n):
        for c in range(m):
            if grid[r][c] == mask:
                seen = [grid[y][x] for kind in RULES[rule] for y, x in [MAPS[kind](r, c, n, m)] if grid[y][x] != mask]
                if not seen:
                    return None
                out[r][c] = seen[0]
    return tuple(tuple(row) for row in out)


def test_gold_is_symmetric_consistent_and_forced() -> None:
    kinds = set()
    for level in range(6):
        for item in create_dataset("grid_symmetry_complete", level=level, seed=4, size=25):
            pairs, test = examples_of(item["question"])
            gold = grid_of(item["answer"])
            kind, mask = item["metadata"]["symmetry"], item["metadata"]["mask"]
            kinds.add(kind)
            for name in ("lr", "tb") if kind == "both" else (kind,):
                assert mirrored(gold, name) and all(mirrored(out, name) for _, out in pairs)
            assert all(t in (g, mask) for trow, grow in zip(test, gold) for t, g in zip(trow, grow))
            assert mask in {cell for row in test for cell in row} and mask not in {c for row in gold for c in row}
            for rule in RULES:
                if all(restored(given, rule, mask) == out for given, out in pairs):
                    assert restored(test, rule, mask) == gold, rule
    assert kinds == {"lr", "tb", "both"}


def test_answer_forms_and_exploits() -> None:
    for level in (0, 2, 5):
        for item in create_dataset("grid_symmetry_complete", level=level, seed=9, size=5):
            assert_grid_exploits("grid_symmetry_complete", item)


def test_unrestored_test_input_scores_zero() -> None:
    for item in create_dataset("grid_symmetry_complete", level=4, seed=1, size=10):
        _, test = examples_of(item["question"])
        assert score("grid_symmetry_complete", "\n".join(" ".join(map(str, r)) for r in test), item) == 0.0
