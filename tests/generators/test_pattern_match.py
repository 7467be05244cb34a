"""pattern_match: the matcher agrees with fnmatch, and gold labels are exactly the matches."""

from __future__ import annotations

import fnmatch
import random

from generators.dataset import create_dataset, score
from generators.families.induction.pattern_match import matches


def test_matcher_agrees_with_fnmatch_on_random_cases() -> None:
    rng = random.Random(0)
    pieces = ["a", "b", "c", "*", "?", "[ab]", "[!ab]"]
    for _ in range(3000):
        pattern = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 7)))
        text = "".join(rng.choice("abc") for _ in range(rng.randint(0, 8)))
        assert matches(pattern, text) == fnmatch.fnmatchcase(text, pattern), (pattern, text)


def test_gold_labels_are_the_fnmatch_matches() -> None:
    for level in range(6):
        for item in create_dataset("pattern_match", level=level, seed=5, size=30):
            meta = item["metadata"]
            labels = [chr(65 + i) for i, c in enumerate(meta["candidates"]) if fnmatch.fnmatchcase(c, meta["pattern"])]
            assert item["answer"] == ", ".join(labels)
            assert 0 < len(labels) < len(meta["candidates"])


def test_easiest_level_has_a_wide_answer_space() -> None:
    # Three candidates allow only six answers, so a constant such as "A, B" was often right.
    for item in create_dataset("pattern_match", level=0, seed=1, size=20):
        assert len(item["metadata"]["candidates"]) >= 5


def test_exploits_fail() -> None:
    for item in create_dataset("pattern_match", level=0, seed=8, size=20):
        gold = item["answer"]
        labels = [chr(65 + i) for i in range(len(item["metadata"]["candidates"]))]
        chosen = gold.split(", ")
        assert score("pattern_match", gold, item) == 1.0
        assert score("pattern_match", ", ".join(reversed(chosen)), item) == 1.0  # order is free
        assert score("pattern_match", ", ".join(labels), item) == 0.0  # every label
        assert score("pattern_match", "none", item) == 0.0
        assert score("pattern_match", ", ".join(chosen[:-1]), item) == 0.0  # one match missing
        extra = next(label for label in labels if label not in chosen)
        assert score("pattern_match", f"{gold}, {extra}", item) == 0.0  # one non-match added
        assert score("pattern_match", f"{gold}, {gold}", item) == 0.0  # repeated labels
