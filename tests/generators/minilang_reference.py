"""An independent reference for the code families: parse a program's *rendered text* with
Python's ``ast`` and walk it with Python's own operators.

The families run their programs with their own interpreter on the tuple trees; this walker
reads what the question shows, so a test that compares both catches a renderer whose text
means something else than the tree (a missing parenthesis, a wrong operator) as well as an
interpreter bug. Only the constructs the tiny language renders are accepted.
"""

from __future__ import annotations

import ast
import operator
from typing import Any

_BIN = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_CMP = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}


class Reference:
    def __init__(self, env: dict[str, int] | None = None, max_steps: int = 100_000) -> None:
        self.env: dict[str, Any] = dict(env or {})
        self.out: list[int] = []
        self.steps = max_steps

    def expr(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.env[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -self.expr(node.operand)
        if isinstance(node, ast.BinOp):
            return _BIN[type(node.op)](self.expr(node.left), self.expr(node.right))
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            return _CMP[type(node.ops[0])](self.expr(node.left), self.expr(node.comparators[0]))
        raise AssertionError(f"unexpected expression {ast.dump(node)}")

    def block(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.steps -= 1
            if self.steps < 0:
                raise RuntimeError("too many steps")
            if isinstance(stmt, ast.Assign):
                self.env[stmt.targets[0].id] = self.expr(stmt.value)  # type: ignore[attr-defined]
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                assert stmt.value.func.id == "print"  # type: ignore[attr-defined]
                self.out.append(self.expr(stmt.value.args[0]))
            elif isinstance(stmt, ast.If):
                self.block(stmt.body if self.expr(stmt.test) else stmt.orelse)
            elif isinstance(stmt, ast.For):
                call = stmt.iter
                assert isinstance(call, ast.Call) and call.func.id == "range"  # type: ignore[attr-defined]
                for i in range(self.expr(call.args[0])):
                    self.env[stmt.target.id] = i  # type: ignore[attr-defined]
                    self.block(stmt.body)
            elif isinstance(stmt, ast.While):
                while self.expr(stmt.test):
                    self.steps -= 1
                    if self.steps < 0:
                        raise RuntimeError("too many steps")
                    self.block(stmt.body)
            else:
                raise AssertionError(f"unexpected statement {ast.dump(stmt)}")


def run_text(source: str, env: dict[str, int] | None = None) -> list[int]:
    """What the rendered program prints, by Python's parser and operators."""
    reference = Reference(env)
    reference.block(ast.parse(source).body)
    return reference.out


def program_of(question: str) -> str:
    """The code block of a question."""
    return question.split("```python\n", 1)[1].split("\n```", 1)[0]
