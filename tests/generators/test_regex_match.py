"""regex_match: the family's NFA matcher agrees with Python's ``re`` on the dialect, gold
labels are exactly the ``re`` full matches, and label-set exploits score 0."""

from __future__ import annotations

import random
import re
import time

import pytest

from generators.dataset import create_dataset, score
from generators.families.code import regex_match as rm


def test_matcher_agrees_with_re_on_random_regexes() -> None:
    rng = random.Random(0)
    for _ in range(400):
        alphabet = "abc"
        pattern = rm.render(rm._random_tree(rng.randint(1, 4), alphabet, True, rng))
        if not pattern:
            continue
        matcher = rm.Matcher(rm.parse(pattern, alphabet), alphabet)
        compiled = re.compile(pattern.replace(".", "[abc]"))
        for _ in range(15):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 7)))
            assert matcher.fullmatch(text) == bool(compiled.fullmatch(text)), (pattern, text)


def test_rendering_round_trips_through_the_parser() -> None:
    rng = random.Random(1)
    for _ in range(300):
        pattern = rm.render(rm._random_tree(3, "abcd", True, rng))
        assert rm.render(rm.parse(pattern, "abcd")) == pattern
    for bad in ("(ab", "a)", "[ab", "*a", "a{2}", "a**", "a??"):
        with pytest.raises(ValueError):
            rm.parse(bad, "ab")


def test_gold_labels_are_the_re_full_matches() -> None:
    for level in range(6):
        for item in create_dataset("regex_match", level=level, seed=4, size=30):
            meta = item["metadata"]
            letters = "".join(meta["alphabet"])
            compiled = re.compile(meta["pattern"].replace(".", f"[{letters}]"))
            labels = [rm.LABELS[i] for i, text in enumerate(meta["candidates"]) if compiled.fullmatch(text)]
            assert item["answer"] == ", ".join(labels)
            assert 0 < len(labels) < len(meta["candidates"])
            assert len(set(meta["candidates"])) == len(meta["candidates"])


def test_label_set_exploits_fail() -> None:
    for item in create_dataset("regex_match", level=2, seed=8, size=20):
        gold = item["answer"]
        labels = [rm.LABELS[i] for i in range(len(item["metadata"]["candidates"]))]
        chosen = gold.split(", ")
        assert score("regex_match", ", ".join(reversed(chosen)), item) == 1.0  # order is free
        assert score("regex_match", f"[{gold}]", item) == 1.0
        assert score("regex_match", gold.lower(), item) == 1.0
        assert score("regex_match", ", ".join(labels), item) == 0.0
        assert score("regex_match", "none", item) == 0.0
        assert score("regex_match", ", ".join(chosen[1:]), item) == 0.0 or len(chosen) == 1
        extra = next(label for label in labels if label not in chosen)
        assert score("regex_match", f"{gold}, {extra}", item) == 0.0
        assert score("regex_match", f"{gold}, {gold}", item) == 0.0


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("regex_match", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("A, " * 350_000, (item["answer"] + " ") * 50_000):
        assert score("regex_match", hostile, item) == 0.0
    assert time.perf_counter() - started < 1.0
