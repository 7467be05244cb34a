"""isomorphic_strings: the named pairs agree with a canonical-pattern check, each pair is
isomorphic about half the time, and only the exact set of pair numbers scores."""

from __future__ import annotations

import random
import re
import string
from typing import Any

import pytest

from generators.dataset import create_dataset, score
from generators.families._choose import parse_indices
from generators.families.algorithmic import isomorphic_strings

NAME = "isomorphic_strings"


def _pattern(text: str) -> list[int]:
    first: dict[str, int] = {}
    return [first.setdefault(ch, len(first)) for ch in text]


def test_answer_matches_pattern_check_and_labels_are_balanced() -> None:
    for level in range(6):
        yes = total = 0
        for item in create_dataset(NAME, level=level, seed=4, size=60):
            pairs = re.findall(r"^(\d+)\. ([a-z]+) ([a-z]+)$", item["question"], re.MULTILINE)
            assert [[s, t] for _, s, t in pairs] == item["metadata"]["pairs"]
            want = {int(n) for n, s, t in pairs if len(s) == len(t) and _pattern(s) == _pattern(t)}
            assert parse_indices(item["answer"], len(pairs)) == want
            yes += len(want)
            total += len(pairs)
        assert 0.4 < yes / total < 0.6


def test_forms_and_exploits() -> None:
    item = {"answer": "1, 3", "metadata": {"pairs": [["ab", "xy"], ["aa", "xy"], ["abc", "bca"], ["ab", "xx"]]}}
    for right in ("1, 3", "3, 1", "1 3", "[1, 3]", "{1, 3}", "Answer: 1, 3", "<answer>3,1</answer>"):
        assert score(NAME, right, item) == 1.0, right
    for wrong in (
        "1",
        "1, 2, 3",
        "1, 2, 3, 4",
        "1, 3, 3",
        "1, 3, 5",
        "none",
        "True",
        "1, 3 or 2",
        "pairs 1 and 3",
        "1, 3" * 200_000,
        "",
    ):
        assert score(NAME, wrong, item) == 0.0, wrong[:40]
    empty = {"answer": "none", "metadata": {"pairs": [["aa", "xy"]] * 4}}
    assert score(NAME, "None", empty) == 1.0
    assert score(NAME, "", empty) == 0.0
    assert score(NAME, "1", empty) == 0.0


def _reference_pair(config: Any, rng: random.Random, want: bool) -> tuple[str, str]:
    """The plain form of ``_pair``: randint, choices, sample, randrange and choice calls,
    and the isomorphism test on every edit."""
    length = rng.randint(config.min_length, config.max_length)
    letters = string.ascii_lowercase
    source = "".join(rng.choices(letters[: config.alphabet], k=length))
    used = sorted(set(source))
    mapping = dict(zip(used, rng.sample(letters, len(used)), strict=True))
    target = [mapping[ch] for ch in source]
    if not want:
        for _ in range(200):
            broken = target[:]
            position = rng.randrange(length)
            broken[position] = rng.choice([c for c in letters if c != target[position]])
            if not isomorphic_strings.isomorphic(source, "".join(broken)):
                target = broken
                break
        else:
            source = source[:-1] + ("b" if source[-1] == "a" else "a")
            target = [target[0]] * length
    return source, "".join(target)


@pytest.mark.parametrize(
    "knobs",
    [
        {"min_length": 2, "max_length": 5, "alphabet": 2},  # one-letter sources: the fallback
        {"min_length": 4, "max_length": 6, "alphabet": 4},
        {"min_length": 8, "max_length": 12, "alphabet": 6},  # 6 letters: the sample's pool branch
        {"min_length": 20, "max_length": 28, "alphabet": 12},
        {"min_length": 40, "max_length": 60, "alphabet": 26},
    ],
)
def test_inline_pair_equals_the_plain_draws(knobs: dict[str, int]) -> None:
    config = isomorphic_strings.Config(**knobs)
    ours, theirs = random.Random(7), random.Random(7)
    for index in range(600):
        want = index % 3 != 0
        pair = isomorphic_strings._pair(config, ours, want)
        assert pair == _reference_pair(config, theirs, want)
        assert isomorphic_strings.isomorphic(*pair) == want
    assert ours.getstate() == theirs.getstate()
