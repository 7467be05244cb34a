"""mirror_text: the gold equals the block transformed by coordinates (each step as an index
map, independent of the family's slicing), steps never cancel out, and block exploits fail."""

from __future__ import annotations

from grid_checks import assert_grid_exploits

from generators.dataset import create_dataset, score


def step(rows: list[str], name: str) -> list[str]:
    n, m = len(rows), len(rows[0])
    if name == "mirror it left to right":
        return ["".join(rows[r][m - 1 - c] for c in range(m)) for r in range(n)]
    if name == "flip it upside down":
        return [rows[n - 1 - r] for r in range(n)]
    if name == "turn it a quarter turn clockwise":  # new (i, j) = old (n - 1 - j, i)
        return ["".join(rows[n - 1 - j][i] for j in range(n)) for i in range(m)]
    if name == "turn it a quarter turn anticlockwise":  # new (i, j) = old (j, m - 1 - i)
        return ["".join(rows[j][m - 1 - i] for j in range(n)) for i in range(m)]
    assert name == "turn it half a turn"
    return ["".join(rows[n - 1 - r][m - 1 - c] for c in range(m)) for r in range(n)]


def test_gold_is_the_transformed_block() -> None:
    for level in range(6):
        for item in create_dataset("mirror_text", level=level, seed=3, size=30):
            block = item["question"].split("\n\n")[1].splitlines()
            rows = block
            for name in item["metadata"]["steps"]:
                assert name in item["question"]
                rows = step(rows, name)
            assert "\n".join(rows) == item["answer"] and rows != block


def test_answer_forms_and_exploits() -> None:
    for level in (0, 2, 5):
        for item in create_dataset("mirror_text", level=level, seed=9, size=5):
            assert_grid_exploits("mirror_text", item, cell_chars="AB", spaced=False)


def test_untransformed_and_lowercase_blocks_score_zero() -> None:
    for item in create_dataset("mirror_text", level=2, seed=1, size=10):
        block = item["question"].split("\n\n")[1]
        assert score("mirror_text", block, item) == 0.0
        assert score("mirror_text", item["answer"].lower(), item) == 0.0
        assert score("mirror_text", " ".join(item["answer"].splitlines()), item) == 0.0
