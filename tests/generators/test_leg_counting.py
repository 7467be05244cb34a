"""leg_counting: the gold is recomputed from the question's words with an independent leg table."""

from __future__ import annotations

import re

from generators.dataset import create_dataset, score

NAME = "leg_counting"
LEGS = {
    2: "chicken duck goose parrot penguin ostrich flamingo owl",
    4: "dog cat horse cow sheep goat pig zebra giraffe elephant lion tiger deer frog crocodile",
    6: "ant bee beetle butterfly grasshopper cockroach ladybug",
    8: "spider scorpion tick octopus",
    10: "crab lobster shrimp",
    0: "snake fish snail worm",
    5: "starfish",
}
TABLE = {word: legs for legs, words in LEGS.items() for word in words.split()}
PLURALS = {
    "geese": "goose",
    "sheep": "sheep",
    "deer": "deer",
    "fish": "fish",
    "shrimp": "shrimp",
    "starfish": "starfish",
}


def _singular(word: str) -> str:
    if word in PLURALS:
        return PLURALS[word]
    for suffix, repl in (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("uses", "us"), ("s", "")):
        if word.endswith(suffix) and word[: -len(suffix)] + repl in TABLE:
            return word[: -len(suffix)] + repl
    return word


def test_gold_matches_independent_count() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=6, size=40):
            listed = item["question"].split("you have ")[1].split(". Each")[0]
            pairs = re.findall(r"(\d+) ([a-z]+)", listed)
            assert pairs
            total = sum(int(count) * TABLE[_singular(word)] for count, word in pairs)
            assert int(item["answer"]) == total


def test_exploits_score_zero() -> None:
    item = create_dataset(NAME, level=3, seed=2, size=1)[0]
    gold = int(item["answer"])
    assert score(NAME, f"In total there are these legs.\nAnswer: {gold}", item) == 1.0
    for wrong in (
        str(gold + 2),
        f"{gold}, {gold + 2}",
        f"{gold} or {gold + 4}",
        f"{gold} legs and 4 arms",
        "4" * 1_000_000,
    ):
        assert score(NAME, wrong, item) == 0.0, wrong[:40]
