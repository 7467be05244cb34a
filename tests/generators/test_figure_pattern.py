"""figure_pattern: the shown figures follow the item's change, and every change of the set
(written here by coordinates) that fits the shown steps gives the gold; exploits fail."""

from __future__ import annotations

import itertools

from grid_checks import assert_grid_exploits

from generators.dataset import create_dataset, score

Fig = list[str]


def flip(f: Fig, name: str) -> Fig:
    n = len(f)
    at = {
        "none": lambda i, j: (i, j),
        "turn clockwise": lambda i, j: (n - 1 - j, i),
        "turn anticlockwise": lambda i, j: (j, n - 1 - i),
        "half turn": lambda i, j: (n - 1 - i, n - 1 - j),
        "mirror left-right": lambda i, j: (i, n - 1 - j),
        "mirror top-bottom": lambda i, j: (n - 1 - i, j),
        "transpose": lambda i, j: (j, i),
        "anti-transpose": lambda i, j: (n - 1 - j, n - 1 - i),
    }[name]
    return ["".join(f[at(i, j)[0]][at(i, j)[1]] for j in range(n)) for i in range(n)]


def move(f: Fig, name: str) -> Fig:
    n = len(f)
    if name == "swap":
        return ["".join("#" if ch == "." else "." for ch in row) for row in f]
    dr, dc = {"none": (0, 0), "shift right": (0, 1), "shift left": (0, -1), "shift down": (1, 0), "shift up": (-1, 0)}[
        name
    ]
    return ["".join(f[(i - dr) % n][(j - dc) % n] for j in range(n)) for i in range(n)]


FLIPS = ["none", "turn clockwise", "turn anticlockwise", "half turn", "mirror left-right", "mirror top-bottom"]
FLIPS += ["transpose", "anti-transpose"]
MOVES = ["none", "shift right", "shift left", "shift down", "shift up", "swap"]


def shown(question: str) -> list[Fig]:
    return [block.splitlines()[1:] for block in question.split("\n\n") if block.startswith("Figure ")]


def test_every_fitting_change_gives_the_gold() -> None:
    for level in range(6):
        for item in create_dataset("figure_pattern", level=level, seed=4, size=25):
            figures = shown(item["question"])
            gold = item["answer"].splitlines()
            geometric, shift = item["metadata"]["change"]
            assert (geometric != "none" and shift != "none") == (level >= 3)
            chain = [*figures, gold]
            assert all(move(flip(a, geometric), shift) == b for a, b in itertools.pairwise(chain))
            for g in FLIPS:
                for m in MOVES:
                    if all(move(flip(a, g), m) == b for a, b in itertools.pairwise(figures)):
                        assert move(flip(figures[-1], g), m) == gold, (g, m)


def test_answer_forms_and_exploits() -> None:
    for level in (0, 2, 5):
        for item in create_dataset("figure_pattern", level=level, seed=9, size=5):
            assert_grid_exploits("figure_pattern", item, cell_chars="#.", spaced=False)


def test_shown_figures_score_zero() -> None:
    for item in create_dataset("figure_pattern", level=3, seed=2, size=10):
        for figure in shown(item["question"]):
            assert score("figure_pattern", "\n".join(figure), item) == 0.0
        assert score("figure_pattern", "## Answer\n" + item["answer"], item) == 1.0
