"""bitwise_arithmetic: the gold equals an independent evaluation of the printed expression;
hex and decimal forms score 1, bare hex, two's complement and stuffed answers score 0."""

from __future__ import annotations

import ast
import operator
import time

from generators.dataset import create_dataset, score

NAME = "bitwise_arithmetic"
OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}


def _evaluate(node: ast.AST) -> int:
    """Walk the parsed expression (integer literals and the eight operators only; no eval)."""
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in OPS:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor, ast.RShift)):
            assert left >= 0 and right >= 0, "bitwise operators only ever see non-negative values"
        return OPS[type(node.op)](left, right)
    raise AssertionError(f"unexpected node {ast.dump(node)}")


def test_gold_matches_independent_evaluation() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=4, size=40):
            expression = item["question"].split("Evaluate ")[1].split(".\n")[0]
            value = _evaluate(ast.parse(expression, mode="eval"))
            assert int(item["metadata"]["value"]) == value
            assert score(NAME, str(value), item) == 1.0  # decimal is accepted
            assert score(NAME, item["answer"].upper().replace("0X", "0x"), item) == 1.0


def test_exploits_score_zero() -> None:
    item = {"answer": "-0x1f", "metadata": {"value": "-31"}}
    assert score(NAME, "-0x1F", item) == 1.0
    assert score(NAME, "<answer>-31</answer>", item) == 1.0
    for wrong in (
        "0x1f",
        "-1f",
        "0xffffffe1",
        "-0x1f, 0x1f",
        "-0x1f or -0x20",
        "-0x20",
        "-0x1f0",
        "-0x1fg",
        "-0x" + "f" * 1_000_000,
    ):
        assert score(NAME, wrong, item) == 0.0, wrong[:40]


def test_huge_answer_is_fast() -> None:
    item = {"answer": "-0x1f", "metadata": {"value": "-31"}}
    started = time.process_time()
    for hostile in ("0x" + "f" * 1_000_000, "9" * 1_000_000):
        assert score(NAME, hostile, item) == 0.0
    assert time.process_time() - started < 1.0
