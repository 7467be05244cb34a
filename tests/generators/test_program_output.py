"""program_output: the gold is what Python's own parser and operators make of the shown
program, readers' answer forms score 1, and wrong, stuffed or huge answers score 0."""

from __future__ import annotations

import time

from minilang_reference import program_of, run_text

from generators.dataset import create_dataset, score
from generators.families import _minilang as ml


def test_gold_is_what_the_shown_program_prints() -> None:
    for level in range(6):
        for item in create_dataset("program_output", level=level, seed=4, size=40):
            source = program_of(item["question"])
            assert source == item["metadata"]["program"]
            assert run_text(source) == [int(item["answer"])]


def test_renderer_keeps_precedence_and_left_association() -> None:
    tree = ("op", "-", ("v", "a"), ("op", "-", ("v", "b"), ("n", 3)))
    assert ml.expr_text(tree) == "a - (b - 3)"
    tree = ("op", "*", ("op", "+", ("v", "a"), ("n", 1)), ("n", -2))
    assert ml.expr_text(tree) == "(a + 1) * (-2)"
    assert ml.run([("set", "a", ("n", -7)), ("print", ("op", "%", ("v", "a"), ("n", 2)))]) == [1]
    assert ml.run([("set", "a", ("n", -7)), ("print", ("op", "//", ("v", "a"), ("n", 2)))]) == [-4]


def test_step_budget_stops_endless_loops() -> None:
    loop = [("set", "a", ("n", 1)), ("while", ("cmp", ">", ("v", "a"), ("n", 0)), [("set", "a", ("v", "a"))])]
    try:
        ml.run(loop, max_steps=100)
    except ml.ProgramError:
        pass
    else:
        raise AssertionError("an endless loop must hit the step budget")


def test_answer_forms_and_exploits() -> None:
    for item in create_dataset("program_output", level=3, seed=9, size=20):
        gold = int(item["answer"])
        for form in (str(gold), f"Answer: {gold}", f"\\boxed{{{gold}}}", f"{gold}.0", f"<answer> {gold} </answer>"):
            assert score("program_output", form, item) == 1.0, form
        for wrong in (gold + 1, gold - 1, -gold, 0):
            assert score("program_output", str(wrong), item) == 0.0
        assert score("program_output", f"{gold}, {gold + 1}", item) == 0.0
        assert score("program_output", f"{gold} or {gold + 1}", item) == 0.0
        assert score("program_output", f"{gold} plus one", item) == 0.0
        assert score("program_output", "print(a)", item) == 0.0


def test_outputs_spread_so_no_constant_pays() -> None:
    answers = [item["answer"] for item in create_dataset("program_output", level=0, seed=2, size=300)]
    top = max(answers.count(value) for value in set(answers))
    assert top / len(answers) < 0.08
    assert all(abs(int(value)) >= 10 for value in answers)


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("program_output", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("1" * 1_000_000, item["answer"] * 200_000, "(" * 1_000_000):
        assert score("program_output", hostile, item) == 0.0
    assert time.perf_counter() - started < 0.5
