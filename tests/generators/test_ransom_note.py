"""ransom_note: the named notes agree with a letter-count check, all notes have the same
length (no label leaks), labels are balanced, and only the exact set of numbers scores."""

from __future__ import annotations

import re
from collections import Counter

from generators.dataset import create_dataset, score
from generators.families._choose import parse_indices

NAME = "ransom_note"


def test_answer_matches_count_check() -> None:
    for level in range(6):
        yes = total = 0
        for item in create_dataset(NAME, level=level, seed=4, size=60):
            magazine = re.search(r"^Magazine: ([a-z]+)$", item["question"], re.MULTILINE).group(1)  # type: ignore[union-attr]
            notes = re.findall(r"^(\d+)\. ([a-z]+)$", item["question"], re.MULTILINE)
            assert len({len(note) for _, note in notes}) == 1
            want = {int(n) for n, note in notes if not (Counter(note) - Counter(magazine))}
            assert parse_indices(item["answer"], len(notes)) == want
            yes += len(want)
            total += len(notes)
        assert 0.4 < yes / total < 0.6


def test_exploits_score_zero() -> None:
    item = create_dataset(NAME, level=3, seed=2, size=1)[0]
    count = len(item["metadata"]["notes"])
    gold = parse_indices(item["answer"], count)
    assert gold is not None
    everything = ", ".join(str(i) for i in range(1, count + 1))
    flipped = ", ".join(str(i) for i in range(1, count + 1) if i not in gold) or "none"
    for wrong in (flipped, f"{item['answer']}, {flipped}", f"{item['answer']} or {flipped}", "True", "0"):
        assert score(NAME, wrong, item) == 0.0, wrong
    if len(gold) != count:
        assert score(NAME, everything, item) == 0.0
