"""string_rule: the shown examples fix the answer (a naive enumeration of every rule of the
level's set finds only the gold on the query word), and echoes or near misses score 0."""

from __future__ import annotations

import itertools
import re
import time

from generators.dataset import create_dataset, score
from generators.families.induction import string_rule as sr


def _parse(item: dict) -> tuple[list[tuple[str, str]], str]:
    pairs = re.findall(r"^([a-z]+) -> ([a-z]+)$", item["question"], flags=re.MULTILINE)
    query = re.search(r"turn '([a-z]+)' into", item["question"]).group(1)
    return pairs, query


def test_examples_fix_the_answer_by_naive_enumeration() -> None:
    for level in range(6):
        knobs = sr.FAMILY.config_for_level(level)
        pool = [f for _, f in sr.edits(knobs.tiers)]
        chains = [(f,) for f in pool] + (list(itertools.product(pool, pool)) if knobs.depth == 2 else [])
        for item in create_dataset("string_rule", level=level, seed=7, size=15):
            pairs, query = _parse(item)
            answers = set()
            for chain in chains:

                def apply(word: str) -> str:
                    for f in chain:
                        word = f(word)
                    return word

                if all(apply(given) == out for given, out in pairs):
                    answers.add(apply(query))
            assert answers == {item["answer"]}, item["question"]


def test_edits_do_what_their_names_say() -> None:
    named = dict(sr.edits(3))
    assert named["swap halves"]("abcde") == "cdeab"
    assert named["shift -1"]("abz") == "zay"
    assert named["drop vowels"]("queue") == "q"
    assert named["mirror"]("ab") == "abba"


def test_answer_forms_and_exploits() -> None:
    for item in create_dataset("string_rule", level=3, seed=2, size=20):
        gold = item["answer"]
        _, query = _parse(item)
        for form in (gold, gold.upper(), f"'{gold}'", f"Answer: {gold}"):
            assert score("string_rule", form, item) == 1.0, form
        assert score("string_rule", query, item) == 0.0  # the word echoed
        assert score("string_rule", gold[:-1], item) == 0.0
        assert score("string_rule", gold + gold[-1], item) == 0.0
        assert score("string_rule", f"{gold}, {query}", item) == 0.0
        assert score("string_rule", f"{gold} or {gold[::-1]}", item) == 0.0


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("string_rule", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ((item["answer"] + " ") * 100_000, "a" * 1_000_000):
        assert score("string_rule", hostile, item) == 0.0
    assert time.perf_counter() - started < 0.5
