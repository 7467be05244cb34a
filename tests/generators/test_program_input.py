"""program_input: the gold input really prints the target (by Python's own parser on the
shown text), every other input that does is accepted, and inputs out of range, several
inputs at once, or huge answers score 0."""

from __future__ import annotations

import time

from minilang_reference import program_of, run_text

from generators.dataset import create_dataset, score
from generators.families.code import program_input


def _target(item: dict) -> int:
    return int(item["metadata"]["target"])


def test_gold_input_prints_the_target() -> None:
    for level in range(6):
        for item in create_dataset("program_input", level=level, seed=4, size=30):
            source = program_of(item["question"])
            assert f"prints {_target(item)}." in item["question"]
            assert run_text(source, {"n": int(item["answer"])}) == [_target(item)]
            assert 0 <= int(item["answer"]) <= item["metadata"]["max_input"]


def test_every_input_that_prints_the_target_scores_one() -> None:
    checked = 0
    for item in create_dataset("program_input", level=1, seed=6, size=25):
        source = program_of(item["question"])
        for n in range(item["metadata"]["max_input"] + 1):
            try:
                printed = run_text(source, {"n": n})
            except (ZeroDivisionError, RuntimeError):
                continue
            expected = 1.0 if printed == [_target(item)] else 0.0
            assert score("program_input", str(n), item) == expected, (n, printed)
            checked += expected == 1.0 and str(n) != item["answer"]
    assert checked > 0, "some item has a second correct input"


def _handmade() -> dict:
    program = [["print", ["op", "%", ["v", "n"], ["n", 10]]]]
    meta = {"program": program, "target": 3, "max_input": 20, "wrong_input": 4}
    return {"question": "", "answer": "3", "metadata": meta}


def test_handmade_exploits() -> None:
    item = _handmade()
    for right in ("3", "13", "n = 13", "<answer>13</answer>", "\\boxed{3}", "Answer: 13"):
        assert score("program_input", right, item) == 1.0, right
    for wrong in ("23", "-7", "4", "3.5", "3, 13", "3 or 13", "13 and more", "1e1", "", "n"):
        assert score("program_input", wrong, item) == 0.0, wrong
    assert program_input.wrong_answers(item) == ["4"]


def test_constant_inputs_rarely_hit() -> None:
    items = create_dataset("program_input", level=0, seed=3, size=200)
    for constant in ("0", "1", "2", "3", "10"):
        others = [item for item in items if item["answer"] != constant]
        assert sum(score("program_input", constant, item) for item in others) == 0.0


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("program_input", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("1" * 1_000_000, (item["answer"] + ", ") * 100_000, "9" * 5000):
        assert score("program_input", hostile, item) == 0.0
    assert time.perf_counter() - started < 0.5
