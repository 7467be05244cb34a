"""Cross-field business rules: the ``rules:`` of a blueprint entity, parsed, checked and rendered.

Real records obey rules SQL constraints cannot state on one column: the insurer covers at
most the amount billed, a "contemporary" artist was born after 1930, a loan is requested
after the artwork was acquired. A blueprint states them as data::

    rules:
      - insurance_covered <= amount
      - {check: birth_year >= 1930, when: "movement == 'contemporary'"}
      - {check: requested_at >= artwork_id.acquired_at, message: a loan starts after the acquisition}

The text is a small subset of Python expressions, parsed with :mod:`ast` (never
evaluated): a ``check`` is one comparison whose left side is a numeric or time field of
the entity (the field population adjusts when a drawn row breaks the rule); its right
side is a number, a field, ``ref_field.field`` of the referenced row, or ``+ - *`` of
those. A ``when`` narrows the rows the rule applies to (``==``, ``!=``, ``in [...]``,
comparisons, ``and``/``or``/``not``). A rule holds vacuously where an operand is empty.

The same rule is enforced three times from this one definition: population draws values
that satisfy it (:mod:`pipeline.data.rules`), every write tool refuses a write that
breaks it, and the realism check counts violating rows in every generated database (both
through :func:`violation_sql`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from pipeline.world.sqlnames import quote_ident as _q
from pipeline.world.sqlnames import quote_literal

if TYPE_CHECKING:
    from pipeline.world.schema import Schema, Table

ORDER_OPS: dict[type, str] = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
EQUALITY_OPS: dict[type, str] = {ast.Eq: "=", ast.NotEq: "!="}
_ARITH: dict[type, str] = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}
NUMERIC = frozenset({"money", "quantity", "integer", "rating", "percent", "decimal"})
TIMES = frozenset({"date", "timestamp"})


@dataclass(frozen=True)
class Ref:
    """An operand naming a field: ``via`` is None for the row's own field, else the ref field followed."""

    field: str
    via: str | None = None


@cache
def parse(text: str, condition: bool = False) -> ast.expr:
    """Parse and shape-check one rule expression (``condition``: a ``when``, else a ``check``)."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise ValueError(f"rule {text!r}: not an expression ({exc.msg})") from None
    if condition:
        _check_condition(node, text)
    else:
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in ORDER_OPS):
            raise ValueError(f"rule {text!r}: a check is one comparison (<, <=, >, >=)")
        if not isinstance(node.left, ast.Name):
            raise ValueError(f"rule {text!r}: the left side must be a field of the entity")
        _check_value(node.comparators[0], text)
    return node


def _check_condition(node: ast.expr, text: str) -> None:
    if isinstance(node, ast.BoolOp):
        for v in node.values:
            _check_condition(v, text)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        _check_condition(node.operand, text)
    elif isinstance(node, ast.Compare) and len(node.ops) == 1:
        op = type(node.ops[0])
        _check_value(node.left, text)
        right = node.comparators[0]
        if op in (ast.In, ast.NotIn):
            if not isinstance(right, ast.List | ast.Tuple) or not all(
                isinstance(e, ast.Constant) and isinstance(e.value, str | int | float) for e in right.elts
            ):
                raise ValueError(f"rule {text!r}: 'in' needs a list of constants")
        elif op in ORDER_OPS or op in EQUALITY_OPS:
            _check_value(right, text)
        else:
            raise ValueError(f"rule {text!r}: unsupported comparison")
    else:
        raise ValueError(f"rule {text!r}: a condition is comparisons joined by and/or/not")


def _check_value(node: ast.expr, text: str) -> None:
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
        _check_value(node.left, text)
        _check_value(node.right, text)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        _check_value(node.operand, text)
    elif isinstance(node, ast.Constant):
        if not isinstance(node.value, int | float | str) or isinstance(node.value, bool):
            raise ValueError(f"rule {text!r}: constants are numbers or quoted text")
    elif not (isinstance(node, ast.Name) or _is_ref(node)):
        raise ValueError(f"rule {text!r}: cannot read {ast.unparse(node)!r} (fields, ref.field, numbers, + - *)")


def _is_ref(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)


def operands(node: ast.expr) -> Iterator[Ref]:
    """Every field an expression reads."""
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
            yield Ref(field=n.attr, via=n.value.id)
        elif isinstance(n, ast.Name) and not _is_ref_head(node, n):
            yield Ref(field=n.id)


def _is_ref_head(root: ast.expr, name: ast.Name) -> bool:
    return any(isinstance(n, ast.Attribute) and n.value is name for n in ast.walk(root))


def left_field(check: str) -> str:
    node = parse(check)
    if not isinstance(node, ast.Compare) or not isinstance(node.left, ast.Name):
        raise ValueError(f"rule {check!r}: the left side must be a field")
    return node.left.id


def split(check: str) -> tuple[str, str, ast.expr]:
    """(left field, operator, right side) of a check."""
    node = parse(check)
    if not isinstance(node, ast.Compare):
        raise ValueError(f"rule {check!r}: not a comparison")
    return left_field(check), ORDER_OPS[type(node.ops[0])], node.comparators[0]


def restyle(text: str, own: Callable[[str], str], target: Callable[[str, str], str]) -> str:
    """The same expression with fields renamed: ``own(field)``, ``ref.field`` -> ``own(ref).target(ref, field)``."""

    class _Rename(ast.NodeTransformer):
        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            if isinstance(node.value, ast.Name):
                return ast.Attribute(value=ast.Name(id=own(node.value.id)), attr=target(node.value.id, node.attr))
            return node

        def visit_Name(self, node: ast.Name) -> ast.AST:
            return ast.Name(id=own(node.id))

    tree = _Rename().visit(ast.parse(text.strip(), mode="eval"))
    return ast.unparse(ast.fix_missing_locations(tree))


# -- SQL -------------------------------------------------------------------------------------


def _literal(value: object) -> str:
    if isinstance(value, str):
        return quote_literal(value)
    return repr(value)


class _Sql:
    """Renders rule expressions over the row alias ``r`` of one table (columns already styled)."""

    def __init__(self, schema: Schema, table: Table, alias: str = "r") -> None:
        self.schema, self.table, self.alias = schema, table, alias

    def semantic(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return self.table.column(node.id).semantic
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            parent = self.schema.table(str(self.table.column(node.value.id).references))
            return parent.column(node.attr).semantic
        return None

    def value(self, node: ast.expr, day: bool = False) -> str:
        if isinstance(node, ast.Constant):
            return _literal(node.value)
        if isinstance(node, ast.Name):
            out = f"{self.alias}.{_q(node.id)}"
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            fk = self.table.column(node.value.id)
            out = f"(SELECT p.{_q(node.attr)} FROM {_q(str(fk.references))} p WHERE p.id = {self.alias}.{_q(fk.name)})"
        elif isinstance(node, ast.BinOp):
            return f"({self.value(node.left)} {_ARITH[type(node.op)]} {self.value(node.right)})"
        elif isinstance(node, ast.UnaryOp):
            return f"(-{self.value(node.operand)})"
        else:
            raise ValueError(f"cannot render {ast.unparse(node)!r}")
        return f"substr({out}, 1, 10)" if day else out

    def compare(self, node: ast.Compare) -> str:
        op, right = type(node.ops[0]), node.comparators[0]
        if op in (ast.In, ast.NotIn):
            items = ", ".join(_literal(e.value) for e in right.elts if isinstance(e, ast.Constant))  # type: ignore[attr-defined]
            return f"{self.value(node.left)} {'NOT IN' if op is ast.NotIn else 'IN'} ({items})"
        day = "date" in (self.semantic(node.left), self.semantic(right))
        sym = ORDER_OPS.get(op) or EQUALITY_OPS[op]
        return f"{self.value(node.left, day)} {sym} {self.value(right, day)}"

    def condition(self, node: ast.expr) -> str:
        if isinstance(node, ast.BoolOp):
            joiner = " AND " if isinstance(node.op, ast.And) else " OR "
            return "(" + joiner.join(self.condition(v) for v in node.values) + ")"
        if isinstance(node, ast.UnaryOp):
            return f"NOT ({self.condition(node.operand)})"
        if isinstance(node, ast.Compare):
            return self.compare(node)
        raise ValueError(f"cannot render {ast.unparse(node)!r}")


def rule_value_sql(schema: Schema, table: Table, node: ast.expr, alias: str = "r") -> str:
    """A rule operand (a field, ``ref.field``, arithmetic) as SQL over the row alias."""
    return _Sql(schema, table, alias).value(node)


def violation_sql(schema: Schema, table: Table, check: str, when: str | None = None, alias: str = "r") -> str:
    """A predicate true exactly for the rows of ``table`` (as ``alias``) that break the rule."""
    sql = _Sql(schema, table, alias)
    node = parse(check)
    if not isinstance(node, ast.Compare):
        raise ValueError(f"rule {check!r}: not a comparison")
    broken = f"NOT ({sql.compare(node)})"
    return f"{broken} AND {sql.condition(parse(when, condition=True))}" if when else broken
