"""bf_output: the gold is what a plain, character-by-character Brainfuck interpreter prints;
the family's run-length interpreter agrees with it; near misses and stuffing score 0."""

from __future__ import annotations

import random
import time

import pytest

from generators.dataset import create_dataset, score
from generators.families.code import bf_output


def _naive(program: str) -> str:
    """The textbook interpreter: one command per step, brackets matched by scanning."""
    tape, pointer, pc, out = [0] * 64, 0, 0, []
    while pc < len(program):
        char = program[pc]
        if char == "+":
            tape[pointer] = (tape[pointer] + 1) % 256
        elif char == "-":
            tape[pointer] = (tape[pointer] - 1) % 256
        elif char == ">":
            pointer += 1
        elif char == "<":
            pointer -= 1
        elif char == ".":
            out.append(chr(tape[pointer]))
        elif char == "[" and tape[pointer] == 0:
            depth = 1
            while depth:
                pc += 1
                depth += {"[": 1, "]": -1}.get(program[pc], 0)
        elif char == "]" and tape[pointer] != 0:
            depth = 1
            while depth:
                pc -= 1
                depth += {"]": 1, "[": -1}.get(program[pc], 0)
        pc += 1
    return "".join(out)


def _program(item: dict) -> str:
    return "".join(item["question"].split("\n\n")[1].splitlines())


def test_gold_is_what_a_naive_interpreter_prints() -> None:
    for level in range(6):
        for item in create_dataset("bf_output", level=level, seed=2, size=30):
            assert _program(item) == item["metadata"]["program"]
            assert _naive(_program(item)) == item["answer"]


def test_interpreters_agree_on_random_programs() -> None:
    rng = random.Random(0)
    for _ in range(300):
        body = "".join(rng.choice("+++--<>>.[]") for _ in range(rng.randint(1, 40)))
        program = ">>>>" + body
        try:
            got = bf_output.run(program, max_steps=5000)
        except bf_output.BrainfuckError:
            continue
        assert got == _naive(program), program


def test_broken_programs_raise() -> None:
    for broken in ("[", "]", "+[", "<"):
        with pytest.raises(bf_output.BrainfuckError):
            bf_output.run(broken)
    with pytest.raises(bf_output.BrainfuckError):
        bf_output.run("+[]", max_steps=1000)
    with pytest.raises(bf_output.BrainfuckError):
        bf_output.run("+[<+>-]")  # a folded multiply loop still may not leave the tape


def test_multiply_loops_fold_to_the_same_result() -> None:
    for program in ("+++[>++<-]>.", ">+++++[>+++<-]<++[>>--<<-]>>.", "-[>+<-]>.", "+++[>+>++>+++<<<-]>>>.<.<."):
        assert bf_output.run(program) == _naive(program), program


def test_answer_forms_and_exploits() -> None:
    for item in create_dataset("bf_output", level=4, seed=5, size=15):
        gold = item["answer"]
        for form in (gold, f'"{gold}"', f"`{gold}`", f"Answer: {gold}", f"<answer>{gold}</answer>"):
            assert score("bf_output", form, item) == 1.0, form
        for wrong in (gold[:-1], gold.swapcase(), gold + "!", gold[::-1], gold.replace(" ", "")):
            if wrong != gold:
                assert score("bf_output", wrong, item) == 0.0, wrong
        assert score("bf_output", f"{gold}, {gold[:-1]}", item) == 0.0
        assert score("bf_output", f"{gold} or {gold.upper()}", item) == 0.0


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("bf_output", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in (item["answer"] * 100_000, "+" * 1_000_000, "[" * 500_000):
        assert score("bf_output", hostile, item) == 0.0
    assert time.perf_counter() - started < 0.5
