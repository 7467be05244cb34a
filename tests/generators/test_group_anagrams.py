"""group_anagrams: the gold grouping equals grouping the printed words by letter counts;
any order and the nested-list form score 1; merged, split, partial, repeated and stuffed
groupings score 0."""

from __future__ import annotations

from collections import Counter

from generators.dataset import create_dataset, score

NAME = "group_anagrams"


def test_gold_groups_by_letter_counts() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=3, size=30):
            words = item["question"].split("letters): ")[1].split(".\n")[0].split(", ")
            classes: dict[frozenset[tuple[str, int]], set[str]] = {}
            for word in words:
                classes.setdefault(frozenset(Counter(word).items()), set()).add(word)
            gold = {frozenset(group.split(", ")) for group in item["answer"].split("; ")}
            assert gold == {frozenset(group) for group in classes.values()}
            assert any(len(group) > 1 for group in gold)


ITEM = {"answer": "eat, tea; bat; nat, tan", "metadata": {"words": ["tea", "bat", "tan", "eat", "nat"]}}


def test_forms_and_exploits() -> None:
    for right in (
        "eat, tea; bat; nat, tan",
        "tan, nat; tea, eat; bat",
        "<answer>\neat, tea\nbat\nnat, tan\n</answer>",
        '[["eat", "tea"], ["bat"], ["nat", "tan"]]',
        "[['tea','eat'],['bat'],['tan','nat']]",
        "<answer>Eat, Tea; Bat; Nat, Tan</answer>",
    ):
        assert score(NAME, right, ITEM) == 1.0, right
    for wrong in (
        "eat, tea, bat; nat, tan",  # merged
        "eat; tea; bat; nat, tan",  # split
        "eat, tea; nat, tan",  # partial
        "eat, tea; bat; nat, tan; eat",  # repeated
        "eat, tea; bat; nat, tan; eat, tea, bat, nat, tan",
        "eat, tea; bat; nat, tan; ate",
        "eat, tea; bat; nat, tan or eat; tea",
        '[["eat", "tea"], ["bat"]], [["nat", "tan"]]',
        "eat, tea; " * 200_000,
    ):
        assert score(NAME, wrong, ITEM) == 0.0, wrong[:60]
