"""grammar_rule: every rule of the level's set that labels the shown examples correctly
labels the candidates like the gold, the predicates mean what their names say, and
label-set exploits score 0."""

from __future__ import annotations

import re
import time

from generators.dataset import create_dataset, score
from generators.families.induction import grammar_rule as gr


def _parse(item: dict) -> tuple[list[tuple[str, bool]], list[str]]:
    shown = [
        (t, lab == "accepted") for t, lab in re.findall(r'^"([a-e]+)": (accepted|rejected)$', item["question"], re.M)
    ]
    candidates = re.findall(r'^[A-J]: "([a-e]+)"$', item["question"], flags=re.MULTILINE)
    return shown, candidates


def test_every_consistent_rule_gives_the_gold_labels() -> None:
    for level in range(6):
        knobs = gr.FAMILY.config_for_level(level)
        pool = gr.rules(gr._LETTERS[: knobs.alphabet], knobs.negations)
        for item in create_dataset("grammar_rule", level=level, seed=3, size=20):
            shown, candidates = _parse(item)
            consistent = [f for _, f in pool if all(f(t) == label for t, label in shown)]
            assert consistent
            for f in consistent:
                labels = ", ".join(gr.LABELS[i] for i, c in enumerate(candidates) if f(c))
                assert labels == item["answer"], (item["question"], item["metadata"]["rule"])
            assert 0 < len(item["answer"].split(", ")) < len(candidates)


def test_predicates_mean_what_they_say() -> None:
    named = dict(gr.rules("abc", True))
    assert named["every a before every b"]("aacbb") and not named["every a before every b"]("aba")
    assert named["every a before every b"]("ccc") and named["every a before every b"]("bbb")
    assert named["contains ab"]("cab") and not named["contains ab"]("ba")
    assert named["odd number of c"]("cac") is False and named["odd number of c"]("c")
    assert named["no letter twice in a row"]("abab") and not named["no letter twice in a row"]("abba")
    assert named["not (palindrome)"]("ab") and not named["not (palindrome)"]("aba")
    assert named["longer than 3"]("abcd") and not named["longer than 3"]("abc")


def test_label_set_exploits_fail() -> None:
    for item in create_dataset("grammar_rule", level=2, seed=8, size=20):
        gold = item["answer"]
        _, candidates = _parse(item)
        labels = [gr.LABELS[i] for i in range(len(candidates))]
        chosen = gold.split(", ")
        assert score("grammar_rule", ", ".join(reversed(chosen)), item) == 1.0
        assert score("grammar_rule", ", ".join(labels), item) == 0.0
        assert score("grammar_rule", "none", item) == 0.0
        extra = next(label for label in labels if label not in chosen)
        assert score("grammar_rule", f"{gold}, {extra}", item) == 0.0
        if len(chosen) > 1:
            assert score("grammar_rule", ", ".join(chosen[1:]), item) == 0.0
        assert score("grammar_rule", f"{gold}, {gold}", item) == 0.0


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("grammar_rule", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("A, " * 350_000, (item["answer"] + " ") * 50_000):
        assert score("grammar_rule", hostile, item) == 0.0
    assert time.perf_counter() - started < 0.5
