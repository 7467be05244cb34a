"""needle_haystack: exactly one sentence matches the question and names the gold; near
misses (same first or last name, same activity) are present at hard levels and score 0."""

from __future__ import annotations

import re

from generators.dataset import create_dataset, score

SENTENCE = re.compile(r"^(\w+ \w+) (.+) (\w+)\.$")


def parse(question: str) -> tuple[list[tuple[str, str, str]], str, str]:
    body = question.split("\n\n")[1]
    facts = [SENTENCE.match(line).groups() for line in body.splitlines()]
    attitude, activity = re.search(r"\n\nWho (.+) (\w+)\? Answer", question).groups()
    return facts, attitude, activity


def test_exactly_one_sentence_answers() -> None:
    for level in range(6):
        for item in create_dataset("needle_haystack", level=level, seed=2, size=20):
            facts, attitude, activity = parse(item["question"])
            assert len(facts) == item["metadata"]["knobs"]["sentences"]
            matches = [name for name, a, b in facts if (a, b) == (attitude, activity)]
            assert matches == [item["answer"]]


def test_near_misses_score_zero() -> None:
    near = 0
    for item in create_dataset("needle_haystack", level=5, seed=4, size=10):
        facts, _, activity = parse(item["question"])
        gold = item["answer"]
        first, last = gold.split()
        for name, _, b in facts:
            if name != gold and (first in name.split() or last in name.split() or b == activity):
                near += 1
                assert score("needle_haystack", name, item) == 0.0
        assert score("needle_haystack", first, item) == 0.0  # a partial name
        assert score("needle_haystack", f"{last} {first}", item) == 0.0
        assert score("needle_haystack", gold.lower(), item) == 1.0
        assert score("needle_haystack", f"The answer is: {gold}", item) == 1.0
        others = [name for name, _, _ in facts if name != gold][:5]
        assert score("needle_haystack", ", ".join([gold, *others]), item) == 0.0
        assert score("needle_haystack", f"{gold} or {others[0]}", item) == 0.0
        assert score("needle_haystack", (gold + " ") * 100_000, item) == 0.0
    assert near > 50
