"""letter_mapping: the examples are consistent with one one-to-one mapping that fixes every
query letter, the gold applies it, and echoes, partial or stuffed answers score 0."""

from __future__ import annotations

import re
import time

from generators.dataset import create_dataset, score


def _parse(item: dict) -> tuple[list[tuple[str, str]], str]:
    pairs = re.findall(r"^([a-z]+) -> ([a-z]+)$", item["question"], flags=re.MULTILINE)
    asked = re.search(r"'([a-z ]+)'", item["question"].split("\n\n")[-1]).group(1)
    return pairs, asked


def test_examples_fix_a_one_to_one_mapping_and_the_gold_applies_it() -> None:
    decodes = 0
    for level in range(6):
        for item in create_dataset("letter_mapping", level=level, seed=4, size=30):
            pairs, asked = _parse(item)
            forward: dict[str, str] = {}
            for word, code in pairs:
                assert len(word) == len(code)
                for a, b in zip(word, code):
                    assert forward.setdefault(a, b) == b
            assert len(set(forward.values())) == len(forward)  # one-to-one
            mapping = forward
            if item["metadata"]["decode"]:
                decodes += 1
                mapping = {b: a for a, b in forward.items()}
            assert all(char in mapping for char in asked.replace(" ", "")), "every query letter is shown"
            assert "".join(mapping.get(c, " ") for c in asked) == item["answer"]
            assert item["answer"] != asked
    assert decodes > 10


def test_answer_forms_and_exploits() -> None:
    for item in create_dataset("letter_mapping", level=3, seed=2, size=20):
        gold = item["answer"]
        _, asked = _parse(item)
        for form in (gold, gold.upper(), f"'{gold}'", f"Answer: {gold}", f"<answer> {gold} </answer>"):
            assert score("letter_mapping", form, item) == 1.0, form
        assert score("letter_mapping", asked, item) == 0.0  # the query echoed
        assert score("letter_mapping", gold[:-1], item) == 0.0
        assert score("letter_mapping", gold[::-1], item) == 0.0
        assert score("letter_mapping", f"{gold}, {asked}", item) == 0.0
        assert score("letter_mapping", f"{gold} or {gold}x", item) == 0.0


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("letter_mapping", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ((item["answer"] + " ") * 50_000, "a" * 1_000_000):
        assert score("letter_mapping", hostile, item) == 0.0
    assert time.perf_counter() - started < 0.5
