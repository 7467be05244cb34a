"""loop_trace: the gold is the printed sequence by Python's own parser on the shown text;
the order matters, and partial, extended or stuffed traces score 0."""

from __future__ import annotations

import time

from minilang_reference import program_of, run_text

from generators.dataset import create_dataset, score


def test_gold_is_the_printed_sequence() -> None:
    shapes = set()
    for level in range(6):
        for item in create_dataset("loop_trace", level=level, seed=3, size=40):
            printed = run_text(program_of(item["question"]))
            assert item["answer"] == ", ".join(map(str, printed))
            assert len(printed) >= 3 and len(set(printed)) >= 3
            shapes.add(item["metadata"]["shape"])
    assert shapes == {"countdown", "growth", "digits", "collatz", "gcd", "pair"}


def test_answer_forms_and_exploits() -> None:
    for item in create_dataset("loop_trace", level=4, seed=8, size=20):
        gold = item["answer"]
        values = gold.split(", ")
        for form in (gold, " ".join(values), f"[{gold}]", f"Answer: {gold}", ",".join(values)):
            assert score("loop_trace", form, item) == 1.0, form
        assert score("loop_trace", ", ".join(values[:-1]), item) == 0.0  # one iteration short
        assert score("loop_trace", f"{gold}, {values[-1]}", item) == 0.0  # one too many
        assert score("loop_trace", values[-1], item) == 0.0  # the final value only
        swapped = [values[1], values[0], *values[2:]]
        if swapped != values:
            assert score("loop_trace", ", ".join(swapped), item) == 0.0
        assert score("loop_trace", f"{gold} or {gold}, 0", item) == 0.0


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("loop_trace", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ((item["answer"] + ", ") * 40_000, "1, " * 300_000):
        assert score("loop_trace", hostile, item) == 0.0
    assert time.perf_counter() - started < 1.0
