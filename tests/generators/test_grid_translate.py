"""grid_translate: the offset and the moving colours read off the examples alone give the
gold, and grid exploits fail."""

from __future__ import annotations

from grid_checks import assert_grid_exploits, examples_of, grid_of

from generators.dataset import create_dataset


def cells(grid: tuple[tuple[int, ...], ...], colour: int) -> set[tuple[int, int]]:
    return {(r, c) for r, row in enumerate(grid) for c, cell in enumerate(row) if cell == colour}


def induce(pairs: list) -> tuple[tuple[int, int], set[int], set[int]]:
    """(offset, moving colours, standing colours) implied by the examples."""
    offsets, moving, standing = set(), set(), set()
    for given, result in pairs:
        for colour in {cell for row in given for cell in row} - {0}:
            before, after = cells(given, colour), cells(result, colour)
            if before == after:
                standing.add(colour)
                continue
            moving.add(colour)
            (r0, c0), (r1, c1) = min(before), min(after)
            offset = (r1 - r0, c1 - c0)
            assert {(r + offset[0], c + offset[1]) for r, c in before} == after
            offsets.add(offset)
    assert len(offsets) == 1 and not moving & standing
    return offsets.pop(), moving, standing


def test_examples_alone_give_the_gold() -> None:
    for level in range(6):
        for item in create_dataset("grid_translate", level=level, seed=4, size=25):
            pairs, test = examples_of(item["question"])
            (dr, dc), moving, standing = induce(pairs)
            assert [dr, dc] == item["metadata"]["offset"]
            colours = {cell for row in test for cell in row} - {0}
            assert colours <= moving | standing
            if level >= 3:
                assert len(moving) == 1 and standing
            out = [[0 if cell in moving else cell for cell in row] for row in test]
            for colour in moving & colours:
                for r, c in cells(test, colour):
                    out[r + dr][c + dc] = colour
            assert tuple(tuple(row) for row in out) == grid_of(item["answer"]) != test


def test_answer_forms_and_exploits() -> None:
    for level in (0, 2, 5):
        for item in create_dataset("grid_translate", level=level, seed=9, size=5):
            assert_grid_exploits("grid_translate", item)
