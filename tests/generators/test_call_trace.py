"""call_trace: value and call count come out the same from a plain, uncached recursive
walk over the *shown* Python text (parsed with ``ast``); near misses and stuffing score 0."""

from __future__ import annotations

import ast
import operator
import time

from minilang_reference import program_of

from generators.dataset import create_dataset, score

_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv}
_BIN[ast.Mod] = operator.mod


def _walker(source: str):
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef) and function.name == "f"
    calls = [0]

    def expr(node: ast.expr, n: int) -> int:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return n
        if isinstance(node, ast.UnaryOp):
            return -expr(node.operand, n)
        if isinstance(node, ast.Call):
            return call(expr(node.args[0], n))
        if isinstance(node, ast.Compare):
            compare = operator.eq if isinstance(node.ops[0], ast.Eq) else operator.le
            return int(compare(expr(node.left, n), expr(node.comparators[0], n)))
        assert isinstance(node, ast.BinOp)
        return _BIN[type(node.op)](expr(node.left, n), expr(node.right, n))

    def call(n: int) -> int:
        calls[0] += 1
        for stmt in function.body:
            if isinstance(stmt, ast.If):
                if expr(stmt.test, n):
                    return expr(stmt.body[0].value, n)  # type: ignore[attr-defined]
            else:
                return expr(stmt.value, n)  # type: ignore[attr-defined]
        raise AssertionError("no return")

    return call, calls


def test_gold_matches_an_uncached_walk_of_the_shown_code() -> None:
    asked = set()
    for level in range(6):
        for item in create_dataset("call_trace", level=level, seed=5, size=30):
            call, calls = _walker(program_of(item["question"]))
            k = int(item["metadata"]["k"])
            assert f"f({k})" in item["question"].split("```")[-1]
            value = call(k)
            want = calls[0] if item["metadata"]["asked"] == "calls" else value
            assert str(want) == item["answer"], (item["question"], want)
            asked.add(item["metadata"]["asked"])
    assert asked == {"value", "calls"}


def test_answer_forms_and_exploits() -> None:
    for item in create_dataset("call_trace", level=4, seed=9, size=20):
        gold = int(item["answer"])
        for form in (str(gold), f"\\boxed{{{gold}}}", f"Answer: {gold}", f"{gold}.0"):
            assert score("call_trace", form, item) == 1.0, form
        assert score("call_trace", f"x = {gold}", item) == 1.0
        for wrong in (gold + 1, gold - 1, 0, item["metadata"]["k"]):
            if wrong != gold:
                assert score("call_trace", str(wrong), item) == 0.0
        assert score("call_trace", f"{gold}, {gold + 1}", item) == 0.0
        assert score("call_trace", f"{gold} or {gold + 1}", item) == 0.0


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("call_trace", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("7" * 1_000_000, "f(" * 300_000):
        assert score("call_trace", hostile, item) == 0.0
    assert time.perf_counter() - started < 0.5
