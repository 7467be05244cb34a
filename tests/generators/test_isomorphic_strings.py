"""isomorphic_strings: the named pairs agree with a canonical-pattern check, each pair is
isomorphic about half the time, and only the exact set of pair numbers scores."""

from __future__ import annotations

import re

from generators.dataset import create_dataset, score
from generators.families._choose import parse_indices

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
