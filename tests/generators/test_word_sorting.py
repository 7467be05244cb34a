"""word_sorting: the gold is the words sorted by Python's ordering in the asked direction;
permutations, the other direction, dropped or repeated words and stuffed lists score 0."""

from __future__ import annotations

from generators.dataset import create_dataset, score

NAME = "word_sorting"


def test_gold_is_sorted_question_words() -> None:
    seen = set()
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=2, size=30):
            listed = item["question"].split("order: ")[1].split(".\n")[0].split(", ")
            descending = "descending" in item["question"]
            seen.add(descending)
            assert item["answer"].split(", ") == sorted(listed, reverse=descending)
            assert len(set(listed)) == len(listed)
    assert seen == {True, False}


def test_forms_and_exploits() -> None:
    item = create_dataset(NAME, level=3, seed=1, size=1)[0]
    words = item["answer"].split(", ")
    assert score(NAME, " ".join(words), item) == 1.0
    assert score(NAME, "<answer>" + ", ".join(w.upper() for w in words) + "</answer>", item) == 1.0
    swapped = words[:]
    swapped[0], swapped[1] = swapped[1], swapped[0]
    for wrong in (
        ", ".join(swapped),
        ", ".join(reversed(words)),
        ", ".join(words[:-1]),
        ", ".join([*words, words[-1]]),
        ", ".join(words) + ", " + ", ".join(reversed(words)),
        ", ".join(words) + " are sorted",
        "a, " * 300_000,
    ):
        assert score(NAME, wrong, item) == 0.0, wrong[:60]
