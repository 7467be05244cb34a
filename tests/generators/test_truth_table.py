"""truth_table: the gold rows are those where a row-by-row evaluation of the *shown* formula
(parsed here independently) is true; missing, extra or stuffed rows score 0."""

from __future__ import annotations

import re
import time

from generators.dataset import create_dataset, score

_OPS = {
    "and": lambda a, b: a and b,
    "or": lambda a, b: a or b,
    "xor": lambda a, b: a != b,
    "->": lambda a, b: (not a) or b,
    "<->": lambda a, b: a == b,
}


def _parse(tokens: list[str]):
    def unary():
        token = tokens.pop(0)
        if token == "not":
            inner = unary()
            return lambda row: not inner(row)
        if token == "(":
            inner = binary()
            assert tokens.pop(0) == ")"
            return inner
        return lambda row, name=token: row[name]

    def binary():
        left = unary()
        if tokens and tokens[0] in _OPS:
            op = _OPS[tokens.pop(0)]
            right = unary()
            return lambda row: op(left(row), right(row))
        return left

    result = binary()
    assert not tokens
    return result


def test_gold_rows_are_where_the_shown_formula_is_true() -> None:
    for level in range(6):
        for item in create_dataset("truth_table", level=level, seed=2, size=25):
            formula = item["question"].split("Consider the formula ", 1)[1].split("\n", 1)[0]
            evaluate = _parse(re.findall(r"\(|\)|<->|->|[A-Za-z]+", formula))
            rows = re.findall(r"^(\d+)\. (.+)$", item["question"], flags=re.MULTILINE)
            true_rows = []
            for number, assignment in rows:
                row = {name: value == "T" for name, value in (pair.split("=") for pair in assignment.split(", "))}
                if evaluate(row):
                    true_rows.append(number)
            assert ", ".join(true_rows) == item["answer"], formula
            assert 2 <= len(true_rows) <= len(rows) - 2


def test_answer_forms_and_exploits() -> None:
    for item in create_dataset("truth_table", level=3, seed=5, size=20):
        gold = item["answer"]
        chosen = gold.split(", ")
        total = len(re.findall(r"^\d+\. ", item["question"], flags=re.MULTILINE))
        assert score("truth_table", ", ".join(reversed(chosen)), item) == 1.0
        assert score("truth_table", f"[{gold}]", item) == 1.0
        assert score("truth_table", ", ".join(str(r) for r in range(1, total + 1)), item) == 0.0
        assert score("truth_table", ", ".join(chosen[1:]), item) == 0.0
        extra = next(str(r) for r in range(1, total + 1) if str(r) not in chosen)
        assert score("truth_table", f"{gold}, {extra}", item) == 0.0
        assert score("truth_table", f"{gold}, {gold}", item) == 0.0


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("truth_table", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("1, " * 350_000, (item["answer"] + ", ") * 20_000):
        assert score("truth_table", hostile, item) == 0.0
    assert time.perf_counter() - started < 0.5
