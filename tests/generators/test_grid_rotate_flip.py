"""grid_rotate_flip: the examples pin the symmetry down (every one of the eight that fits
them gives the gold), the gold is that symmetry of the test input, and grid exploits fail."""

from __future__ import annotations

from grid_checks import assert_grid_exploits, examples_of, grid_of

from generators.dataset import create_dataset, score
from generators.families.arc import grid_rotate_flip as family

SYMMETRIES = {
    "identity": lambda g: g,
    "rotate_cw": lambda g: tuple(tuple(g[len(g) - 1 - r][c] for r in range(len(g))) for c in range(len(g[0]))),
    "rotate_half": lambda g: tuple(tuple(reversed(row)) for row in reversed(g)),
    "rotate_ccw": lambda g: tuple(tuple(g[r][len(g[0]) - 1 - c] for r in range(len(g))) for c in range(len(g[0]))),
    "mirror_left_right": lambda g: tuple(tuple(reversed(row)) for row in g),
    "mirror_top_bottom": lambda g: tuple(reversed(g)),
    "transpose": lambda g: tuple(tuple(g[r][c] for r in range(len(g))) for c in range(len(g[0]))),
    "anti_transpose": lambda g: tuple(
        tuple(g[len(g) - 1 - j][len(g[0]) - 1 - i] for j in range(len(g))) for i in range(len(g[0]))
    ),
}
"""Written index by index, independently of the family's zip/slice versions."""


def test_symmetries_agree_with_the_family() -> None:
    grid = ((1, 2, 3), (4, 5, 6))
    for name, transform in family.TRANSFORMS.items():
        assert transform(grid) == SYMMETRIES[name](grid), name


def test_examples_determine_the_answer() -> None:
    for level in range(6):
        for item in create_dataset("grid_rotate_flip", level=level, seed=4, size=25):
            pairs, test = examples_of(item["question"])
            gold = grid_of(item["answer"])
            rule = SYMMETRIES[item["metadata"]["rule"]]
            assert all(rule(given) == result for given, result in pairs)
            assert rule(test) == gold != test
            fitting = [name for name, s in SYMMETRIES.items() if all(s(i) == o for i, o in pairs)]
            assert fitting and all(SYMMETRIES[name](test) == gold for name in fitting), fitting
            if level == 0:
                assert item["metadata"]["rule"] in ("rotate_cw", "rotate_half", "rotate_ccw")


def test_answer_forms_and_exploits() -> None:
    for level in (0, 2, 5):
        for item in create_dataset("grid_rotate_flip", level=level, seed=9, size=5):
            assert_grid_exploits("grid_rotate_flip", item)


def test_the_test_input_itself_and_other_symmetries_score_zero() -> None:
    for item in create_dataset("grid_rotate_flip", level=3, seed=2, size=20):
        _, test = examples_of(item["question"])
        gold = grid_of(item["answer"])
        for transform in SYMMETRIES.values():
            candidate = transform(test)
            if candidate != gold:
                text = "\n".join(" ".join(map(str, row)) for row in candidate)
                assert score("grid_rotate_flip", text, item) == 0.0
