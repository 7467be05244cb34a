"""stack_machine: the gold is the stack a separate reading of the shown listing leaves, from
bottom to top; the reversed stack, the top alone, or stuffed lists score 0."""

from __future__ import annotations

import time

import pytest

from generators.dataset import create_dataset, score
from generators.families.code import stack_machine


def _reference(listing: list[str]) -> list[int]:
    stack: list[int] = []
    for line in listing:
        word, *rest = line.split()
        if word == "PUSH":
            stack.append(int(rest[0]))
        elif word in ("ADD", "SUB", "MUL", "MOD"):
            b, a = stack.pop(), stack.pop()
            stack.append({"ADD": a + b, "SUB": a - b, "MUL": a * b, "MOD": a % b if b else 0}[word])
        elif word == "DUP":
            stack.append(stack[-1])
        elif word == "SWAP":
            stack[-2:] = stack[-2:][::-1]
        elif word == "OVER":
            stack.append(stack[-2])
        elif word == "POP":
            stack.pop()
        elif word == "NEG":
            stack.append(-stack.pop())
        elif word == "ROT":
            a, b, c = stack[-3:]
            stack[-3:] = [b, c, a]
        else:
            raise AssertionError(word)
    return stack


def _listing(item: dict) -> list[str]:
    return item["question"].split("\n\n")[1].splitlines()


def test_gold_is_the_final_stack_of_the_shown_listing() -> None:
    seen = set()
    for level in range(6):
        for item in create_dataset("stack_machine", level=level, seed=2, size=40):
            lines = _listing(item)
            assert len(lines) >= item["metadata"]["knobs"]["length"]
            final = _reference(lines)
            assert item["answer"] == ", ".join(map(str, final))
            assert 0 not in final
            seen.update(line.split()[0] for line in lines)
    assert seen == set(stack_machine._ARITY)


def test_underflow_and_division_by_zero_raise() -> None:
    with pytest.raises(ValueError):
        stack_machine.step([1], "ADD")
    with pytest.raises(ValueError):
        stack_machine.step([3, 0], "MOD")
    stack = [1, 2, 3]
    stack_machine.step(stack, "ROT")
    assert stack == [2, 3, 1]


def test_answer_forms_and_exploits() -> None:
    multi = 0
    for item in create_dataset("stack_machine", level=4, seed=6, size=30):
        gold = item["answer"]
        values = gold.split(", ")
        for form in (gold, " ".join(values), f"[{gold}]", f"Answer: {gold}"):
            assert score("stack_machine", form, item) == 1.0, form
        if len(values) > 1 and values != values[::-1]:
            multi += 1
            assert score("stack_machine", ", ".join(reversed(values)), item) == 0.0  # top to bottom
            assert score("stack_machine", values[-1], item) == 0.0  # the top value alone
        assert score("stack_machine", f"{gold}, 0", item) == 0.0
        assert score("stack_machine", f"{gold} or 1", item) == 0.0
    assert multi > 5


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("stack_machine", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ((item["answer"] + ", ") * 100_000, "PUSH 1\n" * 150_000):
        assert score("stack_machine", hostile, item) == 0.0
    assert time.perf_counter() - started < 1.0
