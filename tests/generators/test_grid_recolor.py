"""grid_recolor: the substitution read off the examples cell by cell is consistent, covers
every test colour and gives the gold; grid exploits fail."""

from __future__ import annotations

from grid_checks import assert_grid_exploits, examples_of, grid_of

from generators.dataset import create_dataset, score


def test_examples_determine_the_answer() -> None:
    for level in range(6):
        for item in create_dataset("grid_recolor", level=level, seed=4, size=25):
            pairs, test = examples_of(item["question"])
            seen: dict[int, int] = {}
            for given, result in pairs:
                assert len(given) == len(result)
                for row_in, row_out in zip(given, result):
                    for a, b in zip(row_in, row_out, strict=True):
                        assert seen.setdefault(a, b) == b, "the examples contradict one substitution"
            assert seen.get(0, 0) == 0
            gold = grid_of(item["answer"])
            assert tuple(tuple(seen[cell] for cell in row) for row in test) == gold != test


def test_answer_forms_and_exploits() -> None:
    for level in (0, 2, 5):
        for item in create_dataset("grid_recolor", level=level, seed=9, size=5):
            assert_grid_exploits("grid_recolor", item)


def test_unchanged_test_input_scores_zero() -> None:
    for item in create_dataset("grid_recolor", level=4, seed=1, size=10):
        _, test = examples_of(item["question"])
        assert score("grid_recolor", "\n".join(" ".join(map(str, row)) for row in test), item) == 0.0
