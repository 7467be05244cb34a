"""rectangle_count: the gold equals an independent count of closed outlines (connected '#'
components that are exactly the border of their bounding box), gapped distractors are
present at hard levels, outlines never touch, and counts spread widely."""

from __future__ import annotations

from collections import Counter

from generators.dataset import create_dataset, score


def components(drawing: list[str]) -> list[set[tuple[int, int]]]:
    """Connected groups of '#' cells, eight neighbours counted (touching outlines would merge)."""
    seen: set[tuple[int, int]] = set()
    out = []
    for r, line in enumerate(drawing):
        for c, ch in enumerate(line):
            if ch != "#" or (r, c) in seen:
                continue
            group, stack = set(), [(r, c)]
            seen.add((r, c))
            while stack:
                y, x = stack.pop()
                group.add((y, x))
                for dy in (-1, 0, 1):
                    for dx in (-1, 0, 1):
                        ny, nx = y + dy, x + dx
                        inside = 0 <= ny < len(drawing) and 0 <= nx < len(drawing[ny])
                        if inside and drawing[ny][nx] == "#" and (ny, nx) not in seen:
                            seen.add((ny, nx))
                            stack.append((ny, nx))
            out.append(group)
    return out


def is_outline(group: set[tuple[int, int]]) -> bool:
    top, bottom = min(r for r, _ in group), max(r for r, _ in group)
    left, right = min(c for _, c in group), max(c for _, c in group)
    if bottom - top < 2 or right - left < 2:
        return False
    rows, cols = range(top, bottom + 1), range(left, right + 1)
    border = {(r, c) for r in rows for c in cols if r in (top, bottom) or c in (left, right)}
    return group == border


def test_gold_is_the_number_of_closed_outlines() -> None:
    gapped = 0
    for level in range(6):
        for item in create_dataset("rectangle_count", level=level, seed=6, size=30):
            drawing = item["question"].split("\n\n")[1].splitlines()
            groups = components(drawing)
            closed = sum(is_outline(group) for group in groups)
            assert closed == int(item["answer"])
            assert len(groups) - closed == item["metadata"]["broken"]
            gapped += item["metadata"]["broken"]
    assert gapped > 0


def test_exploits() -> None:
    for item in create_dataset("rectangle_count", level=3, seed=2, size=10):
        gold = int(item["answer"])
        assert score("rectangle_count", f"I count {gold}.\nAnswer: {gold}", item) == 1.0
        assert score("rectangle_count", str(gold + item["metadata"]["broken"] + 1), item) == 0.0
        assert score("rectangle_count", f"{gold}, {gold + 1}", item) == 0.0
        assert score("rectangle_count", f"{gold} or {gold - 1}", item) == 0.0
        assert score("rectangle_count", "9" * 500_000, item) == 0.0


def test_counts_spread() -> None:
    golds = Counter(item["answer"] for item in create_dataset("rectangle_count", level=0, seed=5, size=400))
    assert golds.most_common(1)[0][1] / 400 < 0.1
