"""pattern_match: the matcher agrees with fnmatch, and gold labels are exactly the matches."""

from __future__ import annotations

import fnmatch
import random

from generators.dataset import create_dataset
from generators.families.pattern_match import matches


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
